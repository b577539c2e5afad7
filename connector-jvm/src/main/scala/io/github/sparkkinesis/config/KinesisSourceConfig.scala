package io.github.sparkkinesis.config

import org.slf4j.LoggerFactory

/**
 * Everything the source needs, parsed and validated once, on the driver, when the DataFrame is created.
 * Immutable and serializable; the parts executors need travel inside the input partitions.
 */
final case class KinesisSourceConfig(
    streams: Seq[String],
    initialPosition: InitialPosition,
    shardFetchIntervalMs: Long,
    maxShardsPerDescribe: Int,
    prefetch: PrefetchConfig,
    limits: TriggerLimits,
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
      shardFetchIntervalMs = options.required(KinesisOptions.ShardFetchInterval),
      maxShardsPerDescribe = options.required(KinesisOptions.MaxShardsPerDescribe),
      prefetch = PrefetchConfig(
        maxRecordsPerFetch = options.required(KinesisOptions.MaxRecordsPerFetch),
        maxFetchBytesPerSecond = math.round(options.required(KinesisOptions.MaxFetchRate) * PrefetchConfig.MB),
        minFetchPeriodMs = options.required(KinesisOptions.MinFetchPeriod),
        maxFetchDurationMs = options.required(KinesisOptions.MaxFetchDuration),
        fetchBufferBytes = options.required(KinesisOptions.FetchBufferSize),
        shardsPerTask = options.required(KinesisOptions.ShardsPerTask),
        coalesceThresholdBlockSize = options.required(KinesisOptions.CoalesceThresholdBlockSize),
        coalesceBinSize = options.required(KinesisOptions.CoalesceBinSize),
        failOnDataLoss = options.required(KinesisOptions.FailOnDataLoss)
      ),
      limits = TriggerLimits(
        maxRecords = options.get(KinesisOptions.MaxRecordsPerTrigger),
        maxBytes = options.get(KinesisOptions.MaxBytesPerTrigger)
      ),
      aws = AwsConfig.fromOptions(options, resolveDefaultRegion)
    )
  }
}

/**
 * How the background prefetch, and the tasks that read a batch, read Kinesis and store what they read.
 * Serializable: it travels to the tasks.
 *
 * @param maxFetchBytesPerSecond     per shard: the next call waits until the bytes of the last one fit
 * @param minFetchPeriodMs           per shard: least time between two GetRecords calls
 * @param maxFetchDurationMs         longest a prefetch task buffers before handing its blocks over
 * @param fetchBufferBytes           prefetched, uncommitted bytes above which prefetching pauses
 * @param coalesceThresholdBlockSize average block size below which a batch's blocks are packed together
 * @param coalesceBinSize            bytes per packed partition
 * @param failOnDataLoss             whether records trimmed before they were read fail the query
 */
final case class PrefetchConfig(
    maxRecordsPerFetch: Int,
    maxFetchBytesPerSecond: Long,
    minFetchPeriodMs: Long,
    maxFetchDurationMs: Long,
    fetchBufferBytes: Long,
    shardsPerTask: Int,
    coalesceThresholdBlockSize: Long,
    coalesceBinSize: Long,
    failOnDataLoss: Boolean
)

object PrefetchConfig {

  /** `maxFetchRate` is in MB/s, as Kinesis' limits are: 1 MB = 2^20 bytes. */
  val MB: Long = 1024L * 1024

  val Defaults: PrefetchConfig = PrefetchConfig(
    maxRecordsPerFetch = 10000,
    maxFetchBytesPerSecond = MB,
    minFetchPeriodMs = 400,
    maxFetchDurationMs = 10000,
    fetchBufferBytes = 20L * 1024 * MB,
    shardsPerTask = 5,
    coalesceThresholdBlockSize = 10000000L,
    coalesceBinSize = 128000000L,
    failOnDataLoss = true
  )
}

/** Admission control: how much one micro-batch may take at most, in records and in record bytes. */
final case class TriggerLimits(maxRecords: Option[Long], maxBytes: Option[Long]) {
  def isEmpty: Boolean = maxRecords.isEmpty && maxBytes.isEmpty
}
