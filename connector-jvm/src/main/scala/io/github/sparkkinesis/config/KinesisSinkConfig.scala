// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.errors.KinesisErrors
import org.slf4j.LoggerFactory

/** What the sink does with a row whose `data` is null: the option `nullData`. */
private[sparkkinesis] sealed trait NullDataPolicy extends Serializable

private[sparkkinesis] object NullDataPolicy {

  /** The task fails, naming the row, before anything of it is sent. */
  case object Fail extends NullDataPolicy

  /** The row is not written, and counted. */
  case object Skip extends NullDataPolicy

}

/**
 * Everything the sink needs, parsed and validated on the driver when the write is planned. Immutable and
 * serializable: it travels to the writing tasks.
 *
 * @param stream              `streamName` (or the name in `streamARN`): where rows without a `stream` column
 *                            (or with a null one) go
 * @param maxInFlightRequests PutRecords requests of one task under way at once
 * @param retryTimeoutMs      how long records Kinesis turns down are tried again before the task fails
 * @param aggregateMaxBytes   with `kplAggregation`: the most bytes of one aggregated record; None: rows are
 *                            written one Kinesis record each
 */
private[sparkkinesis] final case class KinesisSinkConfig(
    stream: Option[String],
    aws: AwsConfig,
    nullData: NullDataPolicy,
    maxInFlightRequests: Int,
    retryTimeoutMs: Long,
    aggregateMaxBytes: Option[Long],
    outageTimeoutMs: Option[Long]) {

  /** How plans and the Spark UI name the sink. */
  def description: String = s"KinesisV2[${stream.getOrElse("stream column")}]"
}

private[sparkkinesis] object KinesisSinkConfig {
  private val log = LoggerFactory.getLogger(classOf[KinesisSinkConfig])

  /** Parses the sink's options; throws a `KinesisIllegalArgumentException` naming the first bad one. */
  def apply(raw: Map[String, String], resolveDefaultRegion: () => Option[String]): KinesisSinkConfig = {
    val options = new ParsedOptions(raw)
    val readOnly = raw.keys.filter(k => KinesisOptions.find(k).exists(readOptions.contains)).toSeq.sorted
    if (readOnly.nonEmpty) log.warn(s"Ignoring options that apply only to reading: ${readOnly.mkString(", ")}")
    val byArn = options.givenKeys.contains(KinesisOptions.StreamArnOption.key)
    val stream = StreamOptions.names(options).map {
      case Seq(one) => one
      case many =>
        throw KinesisErrors.invalidOption(
          (if (byArn) KinesisOptions.StreamArnOption else KinesisOptions.StreamName).key,
          s"'${many.mkString(",")}'",
          "the sink writes to one stream; to write to several, give each row its stream in a column named stream",
          many.head
        )
    }
    KinesisSinkConfig(
      stream = stream,
      aws = AwsOptions.parse(options, resolveDefaultRegion),
      nullData = options.required(KinesisOptions.NullData),
      maxInFlightRequests = options.required(KinesisOptions.MaxInFlightRequests),
      retryTimeoutMs = options.required(KinesisOptions.WriteRetryTimeout),
      aggregateMaxBytes =
        if (options.required(KinesisOptions.KplAggregation))
          Some(options.required(KinesisOptions.KplAggregationMaxSize))
        else None,
      outageTimeoutMs = options.required(KinesisOptions.OutageTimeout)
    )
  }

  /** Options of the source that mean nothing to the sink. */
  private lazy val readOptions: Set[OptionSpec[_]] = KinesisOptions.all.toSet -- KinesisOptions.shared
}
