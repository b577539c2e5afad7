// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/** One record of a PutRecords call. */
private[sparkkinesis] final case class PutRecord(
    partitionKey: String,
    data: Array[Byte],
    explicitHashKey: Option[String] = None)
