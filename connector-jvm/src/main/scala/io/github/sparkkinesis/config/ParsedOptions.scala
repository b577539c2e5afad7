// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.util.Locale

import io.github.sparkkinesis.aws.Secret
import io.github.sparkkinesis.errors.KinesisErrors

/**
 * The options a user gave, looked up case-insensitively and parsed through their [[OptionSpec]]s. A value
 * that does not parse fails with an error that names the option, shows the value (unless it is secret) and
 * gives an example. Immutable; built on the driver at `.load()`.
 */
private[sparkkinesis] final class ParsedOptions(raw: Map[String, String]) {

  private val values: Map[String, String] = raw.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }

  /** The parsed value, or the parsed default, or None when the option has neither. */
  def get[T](spec: OptionSpec[T]): Option[T] =
    values.get(spec.lowerKey).orElse(spec.default).map { value =>
      spec.parse(value) match {
        case Right(parsed) => parsed
        case Left(problem) =>
          val shown = if (spec.secret) Secret.Redacted else s"'$value'"
          throw KinesisErrors.invalidOption(spec.key, shown, problem, spec.example)
      }
    }

  def required[T](spec: OptionSpec[T]): T =
    get(spec).getOrElse(throw KinesisErrors.missingOption(spec.key, spec.example))

  /**
   * Parses every known option given, so that a bad value fails whichever way the options are used, and
   * refuses a key that is a likely misspelling of an option (see [[OptionKeys]]), naming the option meant:
   * the option would otherwise be left at its default without a word. Refuses, too, an option of the
   * Databricks source that names credentials only Databricks can resolve.
   */
  def checkGiven(): Unit = {
    unknownKeys.foreach { k =>
      OptionKeys.databricksOnlyOption(k).foreach(what => throw KinesisErrors.optionDatabricksOnly(k, what))
      OptionKeys.meant(k).foreach(o => throw KinesisErrors.unknownOption(k, o.key))
    }
    raw.keys.flatMap(KinesisOptions.find).foreach(get(_))
  }

  /** The options given, by their keys as the connector spells them. */
  def givenKeys: Set[String] = raw.keys.flatMap(KinesisOptions.find).map(_.key).toSet

  /** Keys the connector does not know, as the user wrote them; Spark's own `path` is not reported. */
  def unknownKeys: Seq[String] =
    raw.keys.filter(k => KinesisOptions.find(k).isEmpty && k.toLowerCase(Locale.ROOT) != "path").toSeq.sorted
}
