// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/** An enhanced fan-out consumer of a stream. `status` is CREATING, ACTIVE or DELETING. */
private[sparkkinesis] final case class ConsumerInfo(name: String, arn: String, status: String, createdAtMillis: Long) {
  def isActive: Boolean = status == "ACTIVE"
}
