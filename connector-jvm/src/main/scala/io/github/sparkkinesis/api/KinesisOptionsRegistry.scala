package io.github.sparkkinesis.api

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.config.{KinesisOptions, OptionSpec}

/**
 * The options the connector accepts, as other languages' option builders check themselves against them
 * (the Python package's tests read them over py4j): option key to its default, empty when it has none.
 * Stateless.
 */
private[sparkkinesis] object KinesisOptionsRegistry {

  /** What `spark.readStream.format("kinesis")` takes. */
  def sourceOptions(): java.util.Map[String, String] = defaults(KinesisOptions.all)

  /** What `df.write` and `df.writeStream` `.format("kinesis")` take. */
  def sinkOptions(): java.util.Map[String, String] = defaults(KinesisOptions.shared ++ KinesisOptions.sinkOnly)

  private def defaults(specs: Seq[OptionSpec[_]]): java.util.Map[String, String] =
    specs.map(s => s.key -> s.default.getOrElse("")).toMap.asJava
}
