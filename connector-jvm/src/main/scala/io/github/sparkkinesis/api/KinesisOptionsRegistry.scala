// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.api

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.config.{KinesisOptions, OptionRelation, OptionRelations, OptionRule, OptionSpec}

/**
 * The options the connector accepts, as other languages' option builders check themselves against them:
 * each option's key, default and rule. The Python package reads [[json]] from the file generated from it
 * (`pyspark_kinesis/_options.json`); its tests ask the JVM over py4j. Stateless.
 */
private[sparkkinesis] object KinesisOptionsRegistry {

  /** What `spark.readStream.format("kinesis")` takes: option key to its default, empty when it has none. */
  def sourceOptions(): java.util.Map[String, String] = defaults(KinesisOptions.all)

  /** What `spark.read.format("kinesis")` takes. */
  def batchReadOptions(): java.util.Map[String, String] = defaults(KinesisOptions.batchRead)

  /** What `df.write` and `df.writeStream` `.format("kinesis")` take. */
  def sinkOptions(): java.util.Map[String, String] = defaults(KinesisOptions.shared ++ KinesisOptions.sinkOnly)

  /**
   * What the option `key` says of `value`: empty when it accepts it, else why not, as `.load()` would
   * say it (whether the other options agree with it aside).
   */
  def check(key: String, value: String): String =
    KinesisOptions.find(key) match {
      case None => s"there is no option $key"
      case Some(spec) => spec.parse(value).left.getOrElse("")
    }

  /**
   * Every option of each side (`source`: streaming reads, `batch`: batch reads, `sink`), with its key,
   * default (null: none), secrecy and rule; and under `relations`, each side's rules between its options
   * ([[io.github.sparkkinesis.config.OptionRelations]]), and under `shared` those of the options every side
   * shares: options that exclude each other, that need another, or one of which is required, each with its
   * reason.
   */
  def json(): String = {
    def side(specs: Seq[OptionSpec[_]]) = specs.map { s =>
      val option = new java.util.LinkedHashMap[String, Any]()
      option.put("key", s.key)
      option.put("default", s.default.orNull)
      option.put("secret", s.secret)
      option.put("rule", s.parse.describe)
      option
    }.asJava
    val all = new java.util.LinkedHashMap[String, Any]()
    all.put("source", side(KinesisOptions.all))
    all.put("batch", side(KinesisOptions.batchRead))
    all.put("sink", side(KinesisOptions.shared ++ KinesisOptions.sinkOnly))
    def rules(relations: Seq[OptionRelation]) = relations.map(_.describe).asJava
    val relations = new java.util.LinkedHashMap[String, Any]()
    relations.put("source", rules(OptionRelations.source))
    relations.put("batch", rules(OptionRelations.batch))
    relations.put("sink", rules(OptionRelations.sink))
    relations.put("shared", rules(OptionRelations.shared))
    all.put("relations", relations)
    OptionRule.toJson(all) + "\n"
  }

  private def defaults(specs: Seq[OptionSpec[_]]): java.util.Map[String, String] =
    specs.map(s => s.key -> s.default.getOrElse("")).toMap.asJava
}
