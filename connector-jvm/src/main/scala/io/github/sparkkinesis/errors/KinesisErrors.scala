package io.github.sparkkinesis.errors

/**
 * An error raised by the connector. Its message starts with a stable id in brackets, says what happened and
 * what the user can do. Never carries a secret value. Raised on the driver and on executors.
 */
class KinesisConnectorException(val errorId: String, message: String, cause: Throwable = null)
    extends RuntimeException(s"[$errorId] $message", cause)

/** A bad option, raised at `.load()`. An IllegalArgumentException, so PySpark shows it as one. */
class KinesisOptionException(val errorId: String, message: String)
    extends IllegalArgumentException(s"[$errorId] $message")

/** A DataFrame the sink cannot write, raised when the write is planned, before any row is read. */
class KinesisSchemaException(message: String) extends IllegalArgumentException(s"[KINESIS_SINK_COLUMNS] $message")

/** The one place that words the connector's errors. */
object KinesisErrors {

  def missingOption(key: String, example: String): KinesisOptionException =
    new KinesisOptionException(
      "KINESIS_OPTION_MISSING",
      s"""Option '$key' is required. For example: .option("$key", "$example")."""
    )

  /** `shownValue` is the value as the user may see it again: secrets arrive here already redacted. */
  def invalidOption(key: String, shownValue: String, problem: String, example: String): KinesisOptionException =
    new KinesisOptionException(
      "KINESIS_OPTION_INVALID",
      s"""Option '$key' has an invalid value $shownValue: $problem. For example: .option("$key", "$example")."""
    )

  def noRegion(endpoint: Option[String]): KinesisOptionException =
    new KinesisOptionException(
      "KINESIS_REGION_UNKNOWN",
      "Could not tell which AWS region the streams are in" +
        endpoint.fold("")(e => s" (endpoint $e does not name one)") +
        ". Set the option 'region', for example .option(\"region\", \"us-east-1\"), or the AWS_REGION " +
        "environment variable."
    )

  private val StreamNotFound = "KINESIS_STREAM_NOT_FOUND"

  def isStreamNotFound(e: Throwable): Boolean = e match {
    case c: KinesisConnectorException => c.errorId == StreamNotFound
    case _ => false
  }

  def streamNotFound(stream: String, where: String, cause: Throwable): KinesisConnectorException =
    new KinesisConnectorException(
      StreamNotFound,
      s"Stream '$stream' was not found at $where. Check the options 'streamName', 'region' and 'endpoint', " +
        "and that the stream exists.",
      cause
    )

  def endpointUnreachable(stream: String, where: String, cause: Throwable): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_ENDPOINT_UNREACHABLE",
      s"Could not reach Kinesis at $where to read stream '$stream': ${rootMessage(cause)}. Check the options " +
        "'endpoint' and 'region', " +
        "and the network path to the endpoint.",
      cause
    )

  /** The IAM actions the connector needs, by what it does; the README's policy grants the same. */
  val RequiredActions: Seq[(String, Seq[String])] = Seq(
    "reading" -> Seq("ListShards", "GetShardIterator", "GetRecords", "DescribeStreamSummary"),
    "reading with consumerMode efo, also" -> Seq(
      "RegisterStreamConsumer",
      "DescribeStreamConsumer",
      "ListStreamConsumers",
      "SubscribeToShard",
      "DeregisterStreamConsumer"),
    "writing" -> Seq("PutRecords", "ListShards (with kplAggregation)")
  )

  def accessDenied(action: String, stream: String, where: String, cause: Throwable): KinesisConnectorException = {
    val needed = RequiredActions.map { case (use, actions) => s"$use: ${actions.map("kinesis:" + _).mkString(", ")}" }
    new KinesisConnectorException(
      "KINESIS_ACCESS_DENIED",
      s"Kinesis denied kinesis:$action on stream '$stream' at $where. The connector needs, on the stream, for " +
        needed.mkString("; for ") + ". Grant kinesis:" + action + " to the credentials the query uses " +
        "(the role roleArn names, else awsAccessKey/awsSecretKey, else the default credential chain).",
      cause
    )
  }

  def credentialsUnavailable(where: String, cause: Throwable): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_CREDENTIALS_UNAVAILABLE",
      s"Could not get credentials to call Kinesis at $where: ${rootMessage(cause)}. With roleArn, the " +
        "connector's own credentials (awsAccessKey and awsSecretKey, or the default chain) need sts:AssumeRole " +
        "on the role, whose trust policy must trust them and, if roleExternalId is set, require that external " +
        "id; check stsEndpoint too. Without roleArn, set awsAccessKey and awsSecretKey, or give the default " +
        "chain credentials (environment variables, a profile, an instance or container role).",
      cause
    )

  def kinesisCallFailed(action: String, stream: String, where: String, cause: Throwable): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_CALL_FAILED",
      s"Kinesis $action on stream '$stream' at $where failed: ${rootMessage(cause)}",
      cause
    )

  def invalidOffset(json: String, problem: String, example: String): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_OFFSET_INVALID",
      s"Cannot read the Kinesis offset $json: $problem. Offsets look like $example. If the checkpoint was " +
        "written by another connector, start the query with a new checkpoint location."
    )

  def rangeIncomplete(
      stream: String,
      shardId: String,
      from: String,
      until: String,
      reached: String
  ): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_RANGE_INCOMPLETE",
      s"Could not read shard $shardId of stream '$stream' from $from up to $until: the shard " +
        s"yielded nothing after $reached. The records of this batch are no longer readable (for example, the " +
        "stream was deleted and recreated, or its retention trimmed them)."
    )

  /** Records the query has not read are gone; `lost` says which, e.g. "records after sequence number 49..". */
  def dataLoss(stream: String, shardId: String, lost: String, reason: String): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_DATA_LOSS",
      s"The $lost of shard $shardId of stream '$stream' are no longer in Kinesis ($reason); this query never " +
        "read them. If you can do without them, set .option(\"failOnDataLoss\", \"false\"): the query then " +
        "goes on from the oldest record still there, skips the lost records for good and logs what it skipped."
    )

  /** The stream was deleted and created again under its name since the checkpoint was written. */
  def streamRecreated(stream: String, evidence: String): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_STREAM_RECREATED",
      s"Stream '$stream' was deleted and created again since this query's checkpoint was written ($evidence). " +
        "Its shards and sequence numbers start over, so this checkpoint cannot go on: start the query with a " +
        "new checkpoint location (initialPosition then says where it begins)."
    )

  def isAccessDenied(e: Throwable): Boolean = e match {
    case c: KinesisConnectorException => c.errorId == "KINESIS_ACCESS_DENIED"
    case _ => false
  }

  val ConsumerNotActive = "KINESIS_CONSUMER_NOT_ACTIVE"

  /** An enhanced fan-out consumer did not become ACTIVE in time. */
  def consumerNotActive(stream: String, name: String, status: String, waitedMs: Long): KinesisConnectorException =
    new KinesisConnectorException(
      ConsumerNotActive,
      s"The enhanced fan-out consumer '$name' of stream '$stream' is not ACTIVE after ${waitedMs / 1000} s " +
        s"(it is $status). Check it with the AWS console or `aws kinesis describe-stream-consumer`; a stream " +
        "has at most 20 consumers, and a consumer being deleted must be gone before one of its name is " +
        "registered again."
    )

  def prefetchFailed(source: String, attempts: Int, cause: Throwable): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_PREFETCH_FAILED",
      s"Prefetching for $source failed $attempts times in a row; the last failure: ${rootMessage(cause)}. " +
        "Check the executors' logs for the cause.",
      cause
    )

  /** A prefetch failure that trying again cannot mend, such as the connector's classes clashing. */
  def prefetchBroken(source: String, cause: Throwable): KinesisConnectorException =
    new KinesisConnectorException(
      "KINESIS_PREFETCH_FAILED",
      s"Prefetching for $source failed in a way that trying again cannot mend: ${rootMessage(cause)}. Check " +
        "that the connector jar is on the classpath once, and is the one built for this Spark.",
      cause
    )

  private def rootMessage(t: Throwable): String = {
    var c = t
    while (c.getCause != null && c.getCause != c) c = c.getCause
    Option(c.getMessage).getOrElse(c.getClass.getSimpleName)
  }
}
