// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import scala.util.matching.Regex

/**
 * Kinesis' rules for the names of streams and consumers, declared once: the options, the sink's `stream`
 * column, the consumer manager and the Python builders (through the options' rules) all check by these.
 */
private[sparkkinesis] object KinesisNames {

  /** A stream name: 1 to 128 of letters, digits, `_`, `.` and `-`. */
  val Stream: Regex = "[a-zA-Z0-9_.-]{1,128}".r

  val StreamAccepted = "1 to 128 letters, digits, '_', '.' or '-'"

  /** The characters of a consumer name: letters, digits, `_`, `.` and `-`. */
  val ConsumerChars: Regex = "[a-zA-Z0-9_.-]*".r

  val ConsumerAccepted = "letters, digits, '_', '.' or '-'"

  /** Kinesis' longest consumer name. */
  val MaxConsumerNameLength = 128

  /** A streaming query's id, the default consumer name: a UUID. */
  val QueryIdLength = 36

  def isStream(name: String): Boolean = name != null && Stream.pattern.matcher(name).matches()

  /** A whole consumer name: 1 to 128 of its characters. */
  def isConsumer(name: String): Boolean =
    name != null && name.nonEmpty && name.length <= MaxConsumerNameLength && ConsumerChars.pattern
      .matcher(name)
      .matches()
}
