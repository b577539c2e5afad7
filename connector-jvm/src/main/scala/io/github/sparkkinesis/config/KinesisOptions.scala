// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.util.Locale

import io.github.sparkkinesis.aws.Secret
import io.github.sparkkinesis.config.OptionParsers._

/**
 * Every option the connector accepts, declared once: key, default, documentation and parser. The typed
 * configurations, the option tables of docs/reference/options.md and the Python builders all follow from this list.
 * Names and defaults are those of the Databricks Kinesis source, so user code ports unchanged.
 */
private[sparkkinesis] object KinesisOptions {

  private def spec[T](key: String, default: String, doc: String, example: String)(
      parse: OptionRule[T]
  ): OptionSpec[T] = OptionSpec.plain(key, default, doc, example)(parse)

  private def secretSpec(key: String, doc: String): OptionSpec[Secret] =
    OptionSpec(key, None, doc, "<secret>", secret = true, string.map(new Secret(_)))

  /** Ours, so that our consumers are told apart from those of other tools; the Databricks source uses databricks_. */
  val DefaultConsumerNamePrefix = "spark-kinesis_"

  // ---- what to read ----

  val StreamName: OptionSpec[Seq[String]] =
    spec("streamName", null, "Comma-separated names of the streams to read (or streamARN).", "my-stream")(streamNames)

  val StreamArnOption: OptionSpec[Seq[StreamArn]] =
    spec(
      "streamARN",
      null,
      "Instead of streamName: comma-separated ARNs of the streams, which every call then names them by, as " +
        "reading another account's stream through its resource policy requires. The region is theirs; the " +
        "stream column and offsets show their names.",
      StreamArn.Example
    )(streamArns)

  val InitialPositionOption: OptionSpec[InitialPosition] =
    spec(
      "initialPosition",
      "latest",
      "Where a new query, or a batch read, starts: latest, trim_horizon, earliest (alias of trim_horizon), " +
        """at_timestamp as JSON, e.g. {"at_timestamp": "06/25/2020 10:23:45 PDT", "format": "MM/dd/yyyy """ +
        """HH:mm:ss ZZZ"}, sequence numbers per shard as JSON, {"at_sequence_number": {"<stream>": """ +
        """{"<shardId>": "<seq>"}}, "after_sequence_number": {...}} (shards not named from their start), """ +
        "or a streaming query's offset JSON (its progress's endOffset), to read what came after it. A batch " +
        "read starts at trim_horizon when it is not set.",
      "trim_horizon"
    )(new OptionRule("position", Seq("values" -> Seq("latest", "trim_horizon", "earliest")), InitialPosition.parse))

  val EndPositionOption: OptionSpec[EndPosition] =
    spec(
      "endPosition",
      "latest",
      "Batch reads (spark.read) only: where the read ends: latest (what had arrived when the read is " +
        """planned), at_timestamp as JSON (the records that arrived before it, e.g. {"at_timestamp": """ +
        """"2020-06-25T17:23:45Z"}), or a streaming query's offset JSON (up to and including its positions).""",
      EndPosition.Example
    )(new OptionRule("position", Seq("values" -> Seq("latest")), EndPosition.parse))

  // ---- where and as whom ----

  val Region: OptionSpec[String] =
    spec(
      "region",
      null,
      "AWS region of the streams; default: from the endpoint, else the SDK's region chain.",
      "us-east-1"
    )(string)

  val Endpoint: OptionSpec[String] =
    spec(
      "endpoint",
      null,
      "Kinesis endpoint URL; default: the region's public endpoint.",
      "https://kinesis.us-east-1.amazonaws.com"
    )(OptionParsers.endpoint)

  val AwsAccessKey: OptionSpec[String] =
    spec("awsAccessKey", null, "AWS access key id; default: the SDK's default credential chain.", "AKIA...")(string)

  val AwsSecretKey: OptionSpec[Secret] =
    secretSpec("awsSecretKey", "AWS secret access key of awsAccessKey.")

  val AwsSessionToken: OptionSpec[Secret] =
    secretSpec("awsSessionToken", "Session token, when awsAccessKey and awsSecretKey are temporary credentials.")

  val RoleArn: OptionSpec[String] =
    spec(
      "roleArn",
      null,
      "An IAM role to assume, with the keys above or the default chain, for every call to AWS (cross-account).",
      "arn:aws:iam::123456789012:role/kinesis-reader"
    )(roleArn)

  val RoleExternalId: OptionSpec[String] =
    spec(
      "roleExternalId",
      null,
      "The external id the role's trust policy requires, if any.",
      "my-external-id"
    )(string)

  val RoleSessionName: OptionSpec[String] =
    spec(
      "roleSessionName",
      "spark-kinesis",
      "The name of the assumed role's sessions, as CloudTrail shows them (2 to 64 of letters, digits and " +
        "+=,.@-_).",
      "orders-to-lake"
    )(roleSessionName)

  val StsEndpoint: OptionSpec[String] =
    spec(
      "stsEndpoint",
      null,
      "STS endpoint URL used to assume roleArn (a private or another regional endpoint); default: the " +
        "region's STS endpoint.",
      "https://sts.us-east-1.amazonaws.com"
    )(OptionParsers.endpoint)

  // ---- how to read ----

  val MaxRecordsPerFetch: OptionSpec[Int] =
    spec("maxRecordsPerFetch", "10000", "Records asked for per GetRecords call (at most 10000).", "10000")(
      int(1, 10000)
    )

  val ShardFetchInterval: OptionSpec[Long] =
    spec("shardFetchInterval", "1s", "How often the shard list is refreshed to find reshards.", "1s")(
      durationMillis(min = 0, max = Long.MaxValue)
    )

  val MaxShardsPerDescribe: OptionSpec[Int] =
    spec(
      "maxShardsPerDescribe",
      "100",
      "Shards asked for per ListShards call when the shard list is refreshed (at most 10000).",
      "100"
    )(int(1, 10000))

  val FailOnDataLoss: OptionSpec[Boolean] =
    spec(
      "failOnDataLoss",
      "true",
      "Whether the query fails when records it has not read yet are gone from Kinesis (trimmed by " +
        "retention); with false it goes on from the oldest record still there and logs what it skipped.",
      "false"
    )(boolean)

  val OutageTimeout: OptionSpec[Option[Long]] =
    spec(
      "outageTimeout",
      "10m",
      "How long a query goes on while every call to Kinesis for a stream fails (Kinesis cannot be reached, " +
        "or answers with server errors), at start, reading or writing, before it fails with " +
        "KINESIS_UNAVAILABLE; inf waits forever. Meanwhile the progress shows it (secondsSinceLastSuccessfulCall) " +
        "and the log says so once a minute.",
      "30m"
    )(durationOrInfinite(min = 1000))

  // ---- enhanced fan-out ----

  val ConsumerModeOption: OptionSpec[ConsumerMode] =
    spec(
      "consumerMode",
      "polling",
      "polling (GetRecords, sharing each shard's 2 MB/s with other readers) or efo (enhanced fan-out: a " +
        "registered consumer with its own 2 MB/s per shard, records pushed by SubscribeToShard).",
      "efo"
    )(choice("polling" -> ConsumerMode.Polling, "efo" -> ConsumerMode.Efo))

  val ConsumerName: OptionSpec[Seq[String]] =
    spec(
      "consumerName",
      null,
      "efo: the consumer's name, one for all streams or a comma-separated list, one per stream; default: the " +
        "streaming query's id. An existing consumer of that name is reused.",
      "orders-to-lake"
    )(consumerNames)

  val ConsumerNamePrefix: OptionSpec[String] =
    spec(
      "consumerNamePrefix",
      DefaultConsumerNamePrefix,
      "efo: put before every consumer name; set databricks_ to reuse consumers the Databricks source " +
        "registered.",
      "databricks_"
    )(consumerNamePrefix)

  val ConsumerRefreshInterval: OptionSpec[Long] =
    spec(
      "consumerRefreshInterval",
      "300s",
      "efo: how often the consumer is checked to be registered and ACTIVE, and registered again if it is " +
        "gone (at most 3600s).",
      "300s"
    )(durationMillis(min = 1000, max = 3600L * 1000))

  val RequireConsumerDeregistration: OptionSpec[Boolean] =
    spec(
      "requireConsumerDeregistration",
      "false",
      "efo: whether the query deregisters its consumers when it stops (not after a driver crash).",
      "true"
    )(boolean)

  val RegisteredConsumerId: OptionSpec[Seq[String]] =
    spec(
      "registeredConsumerId",
      null,
      "efo: a consumer registered beforehand to read through, by name or ARN (registeredConsumerIdType), " +
        "one for all streams or a comma-separated list, one per stream; the query then never registers or " +
        "deregisters a consumer, and fails at its start if this one is missing or not ACTIVE.",
      "orders-reader"
    )(consumerIds)

  val RegisteredConsumerIdType: OptionSpec[ConsumerIdType] =
    spec(
      "registeredConsumerIdType",
      "name",
      "efo: what registeredConsumerId gives: name (consumer names) or arn (consumer ARNs).",
      "arn"
    )(choice("name" -> ConsumerIdType.Name, "arn" -> ConsumerIdType.Arn))

  // ---- prefetching ----

  val MaxFetchRate: OptionSpec[Double] =
    spec(
      "maxFetchRate",
      "1.0",
      "How fast each shard is prefetched, in MB/s (at most 2.0, Kinesis' read limit per shard).",
      "1.0"
    )(decimal(min = 0, max = 2.0, minExclusive = true, unit = "MB/s"))

  val MinFetchPeriod: OptionSpec[Long] =
    spec(
      "minFetchPeriod",
      "400ms",
      "Least time between two GetRecords calls on one shard (at least 200ms: Kinesis allows 5 calls/s).",
      "400ms"
    )(durationMillis(min = 200, max = Long.MaxValue))

  val MaxFetchDuration: OptionSpec[Long] =
    spec(
      "maxFetchDuration",
      "10s",
      "Longest time a prefetch task buffers new data before it becomes available to batches; it hands " +
        "over sooner once all its shards are caught up.",
      "200ms"
    )(durationMillis(min = 1, max = Long.MaxValue))

  val FetchBufferSize: OptionSpec[Long] =
    spec(
      "fetchBufferSize",
      "20gb",
      "Data prefetched but not yet committed above which prefetching pauses (a soft limit).",
      "2gb"
    )(bytes(min = 1, max = Long.MaxValue))

  val ShardsPerTask: OptionSpec[Int] =
    spec("shardsPerTask", "5", "Shards one prefetch task reads in parallel (at most 1000).", "10")(int(1, 1000))

  val MaxPartitions: OptionSpec[Int] =
    spec(
      "maxPartitions",
      null,
      "How many Spark tasks a read is split into: a prefetch job's tasks (the shards dealt in turn to them; " +
        "more only if a task would hold over 100,000 shards), or a batch read's; not with shardsPerTask. " +
        "Default: derived from shardsPerTask and the cores (a batch read: one task per core).",
      "16"
    )(int(1, Int.MaxValue))

  val CoalesceThresholdBlockSize: OptionSpec[Long] =
    spec(
      "coalesceThresholdBlockSize",
      "10000000",
      "When a batch's average prefetched block is smaller than this (bytes), blocks are packed into " +
        "partitions of about coalesceBinSize.",
      "10000000"
    )(long(min = 1, max = Long.MaxValue))

  val CoalesceBinSize: OptionSpec[Long] =
    spec("coalesceBinSize", "128000000", "Approximate bytes per partition after coalescing.", "128000000")(
      long(min = 1, max = Long.MaxValue)
    )

  // ---- admission control ----

  val MaxRecordsPerTrigger: OptionSpec[Long] =
    spec("maxRecordsPerTrigger", null, "At most this many records per micro-batch; default: no limit.", "100000")(
      long(min = 1, max = Long.MaxValue)
    )

  val MaxBytesPerTrigger: OptionSpec[Long] =
    spec(
      "maxBytesPerTrigger",
      null,
      "At most this much record data per micro-batch (a single larger record still goes alone); default: " +
        "no limit.",
      "256mb"
    )(bytes(min = 1, max = Long.MaxValue))

  // ---- writing (the sink) ----

  val NullData: OptionSpec[NullDataPolicy] =
    spec(
      "nullData",
      "fail",
      "What the sink does with a row whose data is null: fail (the task fails, naming the row) or skip " +
        "(the row is not written and counted in the metric nullDataRowsSkipped).",
      "skip"
    )(choice("fail" -> NullDataPolicy.Fail, "skip" -> NullDataPolicy.Skip))

  val MaxInFlightRequests: OptionSpec[Int] =
    spec(
      "maxInFlightRequests",
      "4",
      "PutRecords requests one writing task has under way at once (at most 64).",
      "4"
    )(int(1, 64))

  val WriteRetryTimeout: OptionSpec[Long] =
    spec(
      "writeRetryTimeout",
      "2m",
      "How long the sink tries again the records Kinesis turns down (throttled, internal failure) before " +
        "the task fails with how many records were not written and why.",
      "5m"
    )(durationMillis(min = 0, max = Long.MaxValue))

  val KplAggregation: OptionSpec[Boolean] =
    spec(
      "kplAggregation",
      "false",
      "Whether the sink packs rows bound for the same shard into KPL aggregated records: fewer, larger " +
        "Kinesis records, which this source and the KCL read back as the rows.",
      "true"
    )(boolean)

  val KplAggregationMaxSize: OptionSpec[Long] =
    spec(
      "kplAggregationMaxSize",
      "50kb",
      "With kplAggregation: the most bytes of one aggregated record (the KPL's default; at most 1mb).",
      "50kb"
    )(bytes(min = 1024, max = 1024L * 1024))

  /** The options only the sink reads; it also reads [[shared]]. */
  val sinkOnly: Seq[OptionSpec[_]] =
    Seq(NullData, MaxInFlightRequests, WriteRetryTimeout, KplAggregation, KplAggregationMaxSize)

  /** The options only batch reads (`spark.read`) take. */
  val batchReadOnly: Seq[OptionSpec[_]] = Seq(EndPositionOption)

  /**
   * The streaming source's options that mean nothing in a batch read, and why: a batch read that sets one
   * fails at `.load()`.
   */
  val NotInBatchRead: Seq[(OptionSpec[_], String)] = Seq(
    ShardFetchInterval -> "a batch read lists the shards once, when it is planned",
    MaxFetchDuration -> "nothing is prefetched: each task reads its ranges of the shards directly",
    FetchBufferSize -> "nothing is prefetched: each task reads its ranges of the shards directly",
    ShardsPerTask ->
      ("a batch read deals its shards' ranges in turn among as many tasks as the application has cores; " +
        "maxPartitions sets how many"),
    CoalesceThresholdBlockSize -> "nothing is prefetched, so there are no blocks to coalesce",
    CoalesceBinSize -> "nothing is prefetched, so there are no blocks to coalesce",
    MaxRecordsPerTrigger -> "a batch read has no triggers: it reads its whole range",
    MaxBytesPerTrigger -> "a batch read has no triggers: it reads its whole range",
    ConsumerName -> "a batch read polls (consumerMode efo is refused)",
    ConsumerNamePrefix -> "a batch read polls (consumerMode efo is refused)",
    ConsumerRefreshInterval -> "a batch read polls (consumerMode efo is refused)",
    RequireConsumerDeregistration -> "a batch read polls (consumerMode efo is refused)",
    RegisteredConsumerId -> "a batch read polls (consumerMode efo is refused)",
    RegisteredConsumerIdType -> "a batch read polls (consumerMode efo is refused)"
  )

  /** What `spark.read.format("kinesis")` takes. */
  def batchRead: Seq[OptionSpec[_]] = (all ++ batchReadOnly).filterNot(s => NotInBatchRead.exists(_._1 == s))

  /**
   * As whom to call AWS: keys, or a role assumed ([[AwsOptions.credentialsOf]] reads them). Kinesis' options,
   * and those of every other AWS service the connector calls (the registry functions, the CloudWatch listener).
   */
  val credentials: Seq[OptionSpec[_]] =
    Seq(AwsAccessKey, AwsSecretKey, AwsSessionToken, RoleArn, RoleExternalId, RoleSessionName, StsEndpoint)

  /** The options reading and writing share: the stream, and where and as whom to call Kinesis. */
  val shared: Seq[OptionSpec[_]] =
    Seq(StreamName, StreamArnOption, Region, Endpoint) ++ credentials :+ OutageTimeout

  val all: Seq[OptionSpec[_]] = Seq(StreamName, StreamArnOption, InitialPositionOption, Region, Endpoint) ++
    credentials ++ Seq(
      MaxRecordsPerFetch,
      ShardFetchInterval,
      MaxShardsPerDescribe,
      FailOnDataLoss,
      OutageTimeout,
      MaxFetchRate,
      MinFetchPeriod,
      MaxFetchDuration,
      FetchBufferSize,
      ShardsPerTask,
      MaxPartitions,
      CoalesceThresholdBlockSize,
      CoalesceBinSize,
      MaxRecordsPerTrigger,
      MaxBytesPerTrigger,
      ConsumerModeOption,
      ConsumerName,
      ConsumerNamePrefix,
      ConsumerRefreshInterval,
      RequireConsumerDeregistration,
      RegisteredConsumerId,
      RegisteredConsumerIdType
    )

  // ---- internal: not documented, for tests ----

  val SubscriptionLifetime: OptionSpec[Long] =
    spec(
      "internal.subscriptionLifetime",
      "5m",
      "Test hook: enhanced fan-out subscriptions older than this are renewed.",
      "5m"
    )(durationMillis(min = 1, max = Long.MaxValue))

  val RoleSessionDuration: OptionSpec[Long] =
    spec(
      "internal.roleSessionDuration",
      "1h",
      "Test hook: how long an assumed role's sessions last (AWS accepts 15m up to the role's maximum).",
      "1h"
    )(durationMillis(min = 1000, max = 12L * 3600 * 1000))

  private val internal: Seq[OptionSpec[_]] = Seq(SubscriptionLifetime, RoleSessionDuration)

  /** Every option a user may give, to the source (streaming or batch) or to the sink. */
  val documented: Seq[OptionSpec[_]] = all ++ batchReadOnly ++ sinkOnly

  private val byLowerKey: Map[String, OptionSpec[_]] =
    (all ++ batchReadOnly ++ sinkOnly ++ internal).map(s => s.lowerKey -> s).toMap

  /** The option tables of docs/reference/options.md, generated from the declarations above (a test keeps the page in step). */
  def markdownTable: String = markdownTable(all)

  def sinkMarkdownTable: String = markdownTable(sinkOnly)

  def batchReadMarkdownTable: String = markdownTable(batchReadOnly)

  private def markdownTable(specs: Seq[OptionSpec[_]]): String = {
    val rows = specs.map { s =>
      val default = s.default.map(d => s"`$d`").getOrElse(if (s == StreamName) "required" else "")
      s"| `${s.key}` | $default | ${s.doc.replace("|", "\\|")} |"
    }
    ("| option | default | meaning |" +: "| --- | --- | --- |" +: rows).mkString("\n")
  }

  def find(key: String): Option[OptionSpec[_]] = byLowerKey.get(key.toLowerCase(Locale.ROOT))

  /**
   * The source's options that mean nothing in real-time mode (`Trigger.RealTime`), and why: a query that
   * sets one fails at its start, as Spark's Kafka source refuses its own.
   */
  val NotInRealTimeMode: Seq[(OptionSpec[_], String)] = Seq(
    MaxRecordsPerTrigger -> "a real-time batch reads what arrives until it ends",
    MaxBytesPerTrigger -> "a real-time batch reads what arrives until it ends",
    FetchBufferSize -> "nothing is prefetched: the batch's tasks read their shards directly",
    MaxFetchDuration -> "nothing is prefetched: the batch's tasks read their shards for the whole batch",
    ShardsPerTask -> "a task per shard, or per group of shards when there are fewer cores than shards",
    MaxPartitions -> "a task per shard, or per group of shards when there are fewer cores than shards",
    CoalesceThresholdBlockSize -> "nothing is prefetched, so there are no blocks to coalesce",
    CoalesceBinSize -> "nothing is prefetched, so there are no blocks to coalesce"
  )
}
