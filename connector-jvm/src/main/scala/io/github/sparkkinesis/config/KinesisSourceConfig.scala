package io.github.sparkkinesis.config

import org.slf4j.LoggerFactory

/**
 * Everything the source needs, parsed and validated once, on the driver, when the DataFrame is created.
 * Immutable and serializable; the parts executors need travel inside the input partitions.
 */
final case class KinesisSourceConfig(
    streams: Seq[String],
    initialPosition: InitialPosition,
    maxRecordsPerFetch: Int,
    shardFetchIntervalMs: Long,
    aws: AwsConfig
) {

  /** The name Spark shows for this source in plans and progress reports, as the Databricks source does. */
  def description: String = s"KinesisV2[${streams.mkString(",")}]"
}

object KinesisSourceConfig {
  private val log = LoggerFactory.getLogger(classOf[KinesisSourceConfig])

  /**
   * Parses the source's options; throws [[io.github.sparkkinesis.errors.KinesisOptionException]] naming the
   * first bad option. `resolveDefaultRegion` supplies the region when neither `region` nor `endpoint` do.
   */
  def apply(raw: Map[String, String], resolveDefaultRegion: () => Option[String]): KinesisSourceConfig = {
    val options = new ParsedOptions(raw)
    val unknown = options.unknownKeys
    if (unknown.nonEmpty) {
      log.warn(s"Ignoring options the Kinesis source does not know: ${unknown.mkString(", ")}")
    }
    KinesisSourceConfig(
      streams = options.required(KinesisOptions.StreamName),
      initialPosition = options.required(KinesisOptions.InitialPositionOption),
      maxRecordsPerFetch = options.required(KinesisOptions.MaxRecordsPerFetch),
      shardFetchIntervalMs = options.required(KinesisOptions.ShardFetchInterval),
      aws = AwsConfig.fromOptions(options, resolveDefaultRegion)
    )
  }
}
