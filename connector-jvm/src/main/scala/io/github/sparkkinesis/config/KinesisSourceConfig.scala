// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.errors.KinesisErrors
import org.slf4j.LoggerFactory

/**
 * Everything the source needs, parsed and validated once, on the driver, when the DataFrame is created.
 * Immutable and serializable; the parts executors need travel inside the input partitions. `givenOptions`
 * holds the keys of the options the user set, for what depends on how the query runs (real-time mode
 * refuses some).
 *
 * @param reading  how each shard is read, the same in every mode (prefetch tasks, real-time tasks, stretches
 *                 read again)
 * @param prefetch how micro-batches prefetch, and nothing else: real-time mode prefetches nothing
 */
private[sparkkinesis] final case class KinesisSourceConfig(
    streams: Seq[String],
    initialPosition: InitialPosition,
    shardFetchIntervalMs: Long,
    maxShardsPerDescribe: Int,
    reading: ReadConfig,
    prefetch: PrefetchConfig,
    limits: TriggerLimits,
    consumer: ConsumerConfig,
    aws: AwsConfig,
    givenOptions: Set[String] = Set.empty
) {

  /** How long the query goes on while every call to Kinesis for a stream fails (None: forever). */
  def outageTimeoutMs: Option[Long] = reading.outageTimeoutMs

  /** The name Spark shows for this source in plans and progress reports, as the Databricks source does. */
  lazy val description: String = KinesisSourceConfig.describe(streams)
}

private[sparkkinesis] object KinesisSourceConfig {
  private val log = LoggerFactory.getLogger(classOf[KinesisSourceConfig])

  /** A streaming read's name as Spark shows it (the source's `toString`, a progress's `sources[].description`). */
  def describe(streams: Seq[String]): String = s"KinesisV2[${streams.mkString(",")}]"

  private val Described = """KinesisV2\[([^\[\],]+(?:,[^\[\],]+)*)\]""".r

  /** The streams a progress's source `description` names, if it is a Kinesis streaming read's ([[describe]]). */
  def streamsDescribed(description: String): Option[Seq[String]] = description match {
    case Described(streams) => Some(streams.split(',').toSeq)
    case _ => None
  }

  /**
   * Parses the source's options; throws [[io.github.sparkkinesis.errors.KinesisIllegalArgumentException]] naming the
   * first bad option. `resolveDefaultRegion` supplies the region when neither `region` nor `endpoint` do.
   */
  def apply(raw: Map[String, String], resolveDefaultRegion: () => Option[String]): KinesisSourceConfig = {
    val options = new ParsedOptions(raw)
    if (options.givenKeys.contains(KinesisOptions.EndPositionOption.key))
      throw KinesisErrors.optionBatchReadOnly(
        KinesisOptions.EndPositionOption.key,
        "a stream has no end; to read what is there and stop, run the query with Trigger.AvailableNow"
      )
    val unknown = options.unknownKeys
    if (unknown.nonEmpty) {
      log.warn(s"Ignoring options the Kinesis source does not know: ${unknown.mkString(", ")}")
    }
    val streams = StreamOptions.required(options)
    val initialPosition = options.required(KinesisOptions.InitialPositionOption)
    val maxPartitions = options.get(KinesisOptions.MaxPartitions)
    OptionRelations.MaxPartitionsOrShardsPerTask.check(options)
    KinesisBatchReadConfig.checkStreams(initialPosition, EndPosition.Latest, streams)
    KinesisSourceConfig(
      streams = streams,
      initialPosition = initialPosition,
      shardFetchIntervalMs = options.required(KinesisOptions.ShardFetchInterval),
      maxShardsPerDescribe = options.required(KinesisOptions.MaxShardsPerDescribe),
      reading = ReadConfig(options),
      prefetch = PrefetchConfig(
        maxFetchDurationMs = options.required(KinesisOptions.MaxFetchDuration),
        fetchBufferBytes = options.required(KinesisOptions.FetchBufferSize),
        shardsPerTask = options.required(KinesisOptions.ShardsPerTask),
        coalesceThresholdBlockSize = options.required(KinesisOptions.CoalesceThresholdBlockSize),
        coalesceBinSize = options.required(KinesisOptions.CoalesceBinSize),
        maxPartitions = maxPartitions
      ),
      limits = TriggerLimits(
        maxRecords = options.get(KinesisOptions.MaxRecordsPerTrigger),
        maxBytes = options.get(KinesisOptions.MaxBytesPerTrigger)
      ),
      consumer = consumerConfig(options, raw),
      aws = AwsOptions.parse(options, resolveDefaultRegion),
      givenOptions = options.givenKeys
    )
  }

  /** The enhanced fan-out settings, checked against the streams; their options are ignored when polling. */
  private def consumerConfig(options: ParsedOptions, raw: Map[String, String]): ConsumerConfig = {
    val streams = StreamOptions.required(options)
    val efo = options.required(KinesisOptions.ConsumerModeOption) == ConsumerMode.Efo
    val consumer = ConsumerConfig(
      mode = options.required(KinesisOptions.ConsumerModeOption),
      names = options.get(KinesisOptions.ConsumerName),
      prefix = options.required(KinesisOptions.ConsumerNamePrefix),
      refreshIntervalMs = options.required(KinesisOptions.ConsumerRefreshInterval),
      deregisterOnStop = options.required(KinesisOptions.RequireConsumerDeregistration),
      registered = if (efo) RegisteredConsumers.parse(options, streams) else None
    )
    if (consumer.isEfo) {
      if (consumer.registered.isEmpty) checkNames(consumer, streams)
    } else {
      OptionRelations.RegisteredConsumerNeedsEfo.check(options)
      val efoOnly = Seq(
        KinesisOptions.ConsumerName,
        KinesisOptions.ConsumerNamePrefix,
        KinesisOptions.ConsumerRefreshInterval,
        KinesisOptions.RequireConsumerDeregistration,
        KinesisOptions.RegisteredConsumerIdType
      ).map(_.key).filter(k => raw.keys.exists(_.equalsIgnoreCase(k)))
      if (efoOnly.nonEmpty)
        log.warn(s"Ignoring ${efoOnly.mkString(", ")}: they apply only with consumerMode efo")
    }
    consumer
  }

  /** Consumer names: one for all streams or one per stream, and within Kinesis' length with the prefix. */
  private def checkNames(consumer: ConsumerConfig, streams: Seq[String]): Unit = {
    consumer.names.foreach { names =>
      if (names.size != 1 && names.size != streams.size)
        throw KinesisErrors.invalidOption(
          KinesisOptions.ConsumerName.key,
          s"'${names.mkString(",")}'",
          s"it names ${names.size} consumers for ${streams.size} streams; give one name for all streams, or " +
            "one per stream in the order of streamName",
          streams.map(s => s"$s-reader").mkString(",")
        )
    }
    val longest = consumer.names.fold(KinesisNames.QueryIdLength)(_.map(_.length).max)
    if (consumer.prefix.length + longest > KinesisNames.MaxConsumerNameLength)
      throw KinesisErrors.invalidOption(
        KinesisOptions.ConsumerNamePrefix.key,
        s"'${consumer.prefix}'",
        s"with it a consumer name is ${consumer.prefix.length + longest} characters long (the query id when " +
          s"consumerName is not set is ${KinesisNames.QueryIdLength}); Kinesis allows at most " +
          s"${KinesisNames.MaxConsumerNameLength}",
        KinesisOptions.DefaultConsumerNamePrefix
      )
  }
}
