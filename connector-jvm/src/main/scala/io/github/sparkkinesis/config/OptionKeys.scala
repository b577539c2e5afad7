// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.util.Locale

/**
 * Tells a misspelt option key from one that is simply not the connector's: a key a character or two away
 * from an option's (a letter dropped, added, changed or two swapped; case never counts) is taken for a typo
 * of it. Knows, too, the Databricks source's options that name what only Databricks resolves. Stateless.
 */
private[sparkkinesis] object OptionKeys {

  /**
   * Options of the Databricks source (and the spelling its Kafka source uses) that name a Unity Catalog
   * service credential: by lower-case key, what the option names. Ignoring one would run the query with
   * other credentials than the user chose, so they are refused.
   */
  private val databricksOnly: Map[String, String] = Map(
    "servicecredential" -> "a Databricks Unity Catalog service credential",
    "databricks.servicecredential" -> "a Databricks Unity Catalog service credential"
  )

  /** What `key` names, if it is an option only the Databricks source can use. */
  def databricksOnlyOption(key: String): Option[String] = databricksOnly.get(key.toLowerCase(Locale.ROOT))

  /**
   * Arguments of Databricks' `read_kinesis` (lower-case) that tune what this connector does its own way: how
   * long to wait for an enhanced fan-out consumer to be registered and deregistered. Taken, so that ported
   * queries run, and ignored with the warning every unknown option gets.
   */
  val databricksUnused: Set[String] = Set("registerconsumertimeoutinterval", "deregisterconsumertimeoutinterval")

  /** The option `key` is a likely misspelling of, if any; None for a known key. */
  def meant(key: String): Option[OptionSpec[_]] = {
    val lower = key.toLowerCase(Locale.ROOT)
    if (KinesisOptions.find(key).isDefined) None
    else {
      val allowed = if (lower.length <= 4) 0 else if (lower.length <= 8) 1 else 2
      val candidates = KinesisOptions.documented.map(s => s -> distance(lower, s.lowerKey)).filter(_._2 <= allowed)
      if (candidates.isEmpty) None else Some(candidates.minBy(_._2)._1)
    }
  }

  /** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`: optimal string alignment. */
  private[config] def distance(a: String, b: String): Int = {
    val d = Array.ofDim[Int](a.length + 1, b.length + 1)
    for (i <- 0 to a.length) d(i)(0) = i
    for (j <- 0 to b.length) d(0)(j) = j
    for (i <- 1 to a.length; j <- 1 to b.length) {
      val cost = if (a(i - 1) == b(j - 1)) 0 else 1
      d(i)(j) = math.min(math.min(d(i - 1)(j) + 1, d(i)(j - 1) + 1), d(i - 1)(j - 1) + cost)
      if (i > 1 && j > 1 && a(i - 1) == b(j - 2) && a(i - 2) == b(j - 1))
        d(i)(j) = math.min(d(i)(j), d(i - 2)(j - 2) + 1)
    }
    d(a.length)(b.length)
  }
}
