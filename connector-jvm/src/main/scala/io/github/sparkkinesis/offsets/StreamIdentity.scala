// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.offsets

/** Which stream of a name: its ARN and when it was created (epoch ms). */
private[sparkkinesis] final case class StreamIdentity(arn: String, createdAtMillis: Long) {
  override def toString: String = s"$arn created at ${java.time.Instant.ofEpochMilli(createdAtMillis)}"
}
