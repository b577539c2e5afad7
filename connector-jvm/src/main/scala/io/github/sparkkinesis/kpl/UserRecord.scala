// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

/** One record of a producer, as the KPL packs several into one Kinesis record. */
private[sparkkinesis] final case class UserRecord(
    partitionKey: String,
    explicitHashKey: Option[String],
    data: Array[Byte]) {
  override def equals(other: Any): Boolean = other match {
    case o: UserRecord =>
      partitionKey == o.partitionKey && explicitHashKey == o.explicitHashKey && java.util.Arrays.equals(data, o.data)
    case _ => false
  }
  override def hashCode(): Int = (partitionKey, explicitHashKey, java.util.Arrays.hashCode(data)).hashCode()
}
