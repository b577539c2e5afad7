// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import scala.collection.mutable

/**
 * A condition of `error/kinesis-error-conditions.json`, as a value the code names and matches on:
 * `case ErrorCondition(ErrorCondition.StreamNotFound) =>`. Sub-conditions (`CONDITION.SUB`, a variant of
 * the message) match as their condition. Its wording and SQLSTATE live in the JSON;
 * [[KinesisErrors]] makes the errors.
 */
private[sparkkinesis] final class ErrorCondition private (val name: String) {
  override def toString: String = name
}

private[sparkkinesis] object ErrorCondition {

  private val declared = mutable.ArrayBuffer.empty[ErrorCondition]

  private def declare(name: String): ErrorCondition = {
    val condition = new ErrorCondition(name)
    declared += condition
    condition
  }

  val AccessDenied: ErrorCondition = declare("KINESIS_ACCESS_DENIED")
  val BadRecord: ErrorCondition = declare("KINESIS_BAD_RECORD")
  val CallFailed: ErrorCondition = declare("KINESIS_CALL_FAILED")
  val CheckpointForeign: ErrorCondition = declare("KINESIS_CHECKPOINT_FOREIGN")
  val CheckpointOtherStreams: ErrorCondition = declare("KINESIS_CHECKPOINT_OTHER_STREAMS")
  val CheckpointUnreadable: ErrorCondition = declare("KINESIS_CHECKPOINT_UNREADABLE")
  val ConnectCallUnreadable: ErrorCondition = declare("KINESIS_CONNECT_CALL_UNREADABLE")
  val ConsumerNameInvalid: ErrorCondition = declare("KINESIS_CONSUMER_NAME_INVALID")
  val ConsumerNotActive: ErrorCondition = declare("KINESIS_CONSUMER_NOT_ACTIVE")
  val ConsumerNotFound: ErrorCondition = declare("KINESIS_CONSUMER_NOT_FOUND")
  val CredentialsUnavailable: ErrorCondition = declare("KINESIS_CREDENTIALS_UNAVAILABLE")
  val CredentialsUnreachable: ErrorCondition = declare("KINESIS_CREDENTIALS_UNREACHABLE")
  val DataLoss: ErrorCondition = declare("KINESIS_DATA_LOSS")
  val EndpointUnreachable: ErrorCondition = declare("KINESIS_ENDPOINT_UNREACHABLE")
  val OffsetInvalid: ErrorCondition = declare("KINESIS_OFFSET_INVALID")
  val OptionsConflict: ErrorCondition = declare("KINESIS_OPTIONS_CONFLICT")
  val OptionsIncomplete: ErrorCondition = declare("KINESIS_OPTIONS_INCOMPLETE")
  val OptionInvalid: ErrorCondition = declare("KINESIS_OPTION_INVALID")
  val OptionMissing: ErrorCondition = declare("KINESIS_OPTION_MISSING")
  val OptionUnknown: ErrorCondition = declare("KINESIS_OPTION_UNKNOWN")
  val OptionNotInRealTimeMode: ErrorCondition = declare("KINESIS_OPTION_NOT_IN_REAL_TIME_MODE")
  val OptionNotInBatchRead: ErrorCondition = declare("KINESIS_OPTION_NOT_IN_BATCH_READ")
  val OptionBatchReadOnly: ErrorCondition = declare("KINESIS_OPTION_BATCH_READ_ONLY")
  val PrefetchBroken: ErrorCondition = declare("KINESIS_PREFETCH_BROKEN")
  val PrefetchFailed: ErrorCondition = declare("KINESIS_PREFETCH_FAILED")
  val RangeIncomplete: ErrorCondition = declare("KINESIS_RANGE_INCOMPLETE")
  val RegionUnknown: ErrorCondition = declare("KINESIS_REGION_UNKNOWN")
  val RegisteredConsumerUnusable: ErrorCondition = declare("KINESIS_REGISTERED_CONSUMER_UNUSABLE")
  val RequestRejected: ErrorCondition = declare("KINESIS_REQUEST_REJECTED")
  val SaveModeUnsupported: ErrorCondition = declare("KINESIS_SAVE_MODE_UNSUPPORTED")
  val SchemaFixed: ErrorCondition = declare("KINESIS_SCHEMA_FIXED")
  val SinkColumns: ErrorCondition = declare("KINESIS_SINK_COLUMNS")
  val SinkStreamUnset: ErrorCondition = declare("KINESIS_SINK_STREAM_UNSET")
  val StartNotInShard: ErrorCondition = declare("KINESIS_START_NOT_IN_SHARD")
  val StreamNotFound: ErrorCondition = declare("KINESIS_STREAM_NOT_FOUND")
  val StreamRecreated: ErrorCondition = declare("KINESIS_STREAM_RECREATED")
  val Unavailable: ErrorCondition = declare("KINESIS_UNAVAILABLE")
  val V1SourceUnsupported: ErrorCondition = declare("KINESIS_V1_SOURCE_UNSUPPORTED")
  val WriteFailed: ErrorCondition = declare("KINESIS_WRITE_FAILED")

  /** Raised by the Java front (`SparkLineCheck`) before any Scala class loads; named here for completeness. */
  val WrongSparkLine: ErrorCondition = declare("KINESIS_WRONG_SPARK_LINE")

  /** Every condition, as the JSON declares them (a test checks that they are the same). */
  val all: Seq[ErrorCondition] = declared.toList

  private val byName = all.map(c => c.name -> c).toMap

  /** The connector's condition of an error (for a sub-condition, its condition), if it is the connector's. */
  def unapply(t: Throwable): Option[ErrorCondition] = t match {
    case k: KinesisThrowable => byName.get(k.getCondition.takeWhile(_ != '.'))
    case _ => None
  }
}
