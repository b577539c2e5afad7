// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.util.Locale

/**
 * One option the connector accepts.
 *
 * @param key     the name users write; matched case-insensitively
 * @param default the default as documented, or None when the option has none
 * @param doc     one line for the option table of docs/reference/options.md
 * @param example a good value, shown in error messages
 * @param secret  whether the value must never be shown again
 * @param parse   what the option accepts: turns the raw string into a value, or says what is wrong with it
 */
private[sparkkinesis] final case class OptionSpec[T](
    key: String,
    default: Option[String],
    doc: String,
    example: String,
    secret: Boolean,
    parse: OptionRule[T]
) {

  def lowerKey: String = key.toLowerCase(Locale.ROOT)
}

private[sparkkinesis] object OptionSpec {

  /** An option whose value may be shown; `default` null when it has none. */
  def plain[T](key: String, default: String, doc: String, example: String)(parse: OptionRule[T]): OptionSpec[T] =
    OptionSpec(key, Option(default), doc, example, secret = false, parse)
}
