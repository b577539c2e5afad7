// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

/**
 * A secret option value (secret key, session token). Its `toString` never shows the value, so a secret that
 * reaches a log line, a plan string or an exception message by accident shows as `*****`.
 * Immutable and thread-safe; serialized into tasks that need it.
 */
private[sparkkinesis] final class Secret(value: String) extends Serializable {
  def reveal: String = value
  override def toString: String = Secret.Redacted
  override def equals(other: Any): Boolean = other match {
    case s: Secret => s.reveal == value
    case _ => false
  }
  override def hashCode(): Int = value.hashCode
}

private[sparkkinesis] object Secret {
  val Redacted = "*****"
}
