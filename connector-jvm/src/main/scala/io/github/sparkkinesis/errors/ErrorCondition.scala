// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import scala.collection.mutable

/**
 * A condition of `error/kinesis-error-conditions.json`, as a value the code names and matches on:
 * `case ErrorCondition(ErrorCondition.StreamNotFound) =>`. Sub-conditions (`CONDITION.SUB`, a variant of
 * the message) match as their condition. Its wording and SQLSTATE live in the JSON;
 * [[KinesisErrors]] makes the errors.
 */
private[sparkkinesis] final class ErrorCondition private (val name: String, val family: ErrorCondition.Family) {
  override def toString: String = name
}

private[sparkkinesis] object ErrorCondition {

  /**
   * What kind of trouble a condition is, for code that handles errors by kind rather than one by one: each
   * family is one Python exception class of the PySpark package (`pyspark_kinesis.errors`), which reads it
   * from the table generated from these declarations (`_error_conditions.json`).
   */
  final class Family private[ErrorCondition] (val pythonClass: String)

  object Family {

    /** An option, argument or DataFrame the connector refuses before it calls Kinesis. */
    val Option = new Family("KinesisOptionError")
    val AccessDenied = new Family("KinesisAccessDeniedError")
    val Credentials = new Family("KinesisCredentialsError")
    val StreamNotFound = new Family("KinesisStreamNotFoundError")
    val ConsumerNotFound = new Family("KinesisConsumerNotFoundError")

    /** Kinesis out of reach, or failing, for longer than the query waits. */
    val Unavailable = new Family("KinesisUnavailableError")
    val DataLoss = new Family("KinesisDataLossError")

    /** A checkpoint or offset the query cannot go on from. */
    val Checkpoint = new Family("KinesisCheckpointError")
    val Write = new Family("KinesisWriteError")

    /** Anything else: the connector's base class. */
    val Other = new Family("KinesisError")
  }

  private val declared = mutable.ArrayBuffer.empty[ErrorCondition]

  private def declare(name: String, family: Family): ErrorCondition = {
    val condition = new ErrorCondition(name, family)
    declared += condition
    condition
  }

  val AccessDenied: ErrorCondition = declare("KINESIS_ACCESS_DENIED", Family.AccessDenied)
  val BadRecord: ErrorCondition = declare("KINESIS_BAD_RECORD", Family.Write)
  val CallFailed: ErrorCondition = declare("KINESIS_CALL_FAILED", Family.Unavailable)
  val CheckpointForeign: ErrorCondition = declare("KINESIS_CHECKPOINT_FOREIGN", Family.Checkpoint)
  val CheckpointOtherStreams: ErrorCondition = declare("KINESIS_CHECKPOINT_OTHER_STREAMS", Family.Checkpoint)
  val CheckpointUnreadable: ErrorCondition = declare("KINESIS_CHECKPOINT_UNREADABLE", Family.Checkpoint)
  val ConnectCallUnreadable: ErrorCondition = declare("KINESIS_CONNECT_CALL_UNREADABLE", Family.Other)
  val ConsumerNameInvalid: ErrorCondition = declare("KINESIS_CONSUMER_NAME_INVALID", Family.Option)
  val ConsumerNotActive: ErrorCondition = declare("KINESIS_CONSUMER_NOT_ACTIVE", Family.Other)
  val ConsumerNotFound: ErrorCondition = declare("KINESIS_CONSUMER_NOT_FOUND", Family.ConsumerNotFound)
  val CredentialsUnavailable: ErrorCondition = declare("KINESIS_CREDENTIALS_UNAVAILABLE", Family.Credentials)
  val CredentialsUnreachable: ErrorCondition = declare("KINESIS_CREDENTIALS_UNREACHABLE", Family.Credentials)
  val DataLoss: ErrorCondition = declare("KINESIS_DATA_LOSS", Family.DataLoss)
  val EndpointUnreachable: ErrorCondition = declare("KINESIS_ENDPOINT_UNREACHABLE", Family.Unavailable)
  val FunctionArguments: ErrorCondition = declare("KINESIS_FUNCTION_ARGUMENTS", Family.Option)
  val FunctionOptionUnknown: ErrorCondition = declare("KINESIS_FUNCTION_OPTION_UNKNOWN", Family.Option)
  val GlueRecordUndecodable: ErrorCondition = declare("KINESIS_GLUE_RECORD_UNDECODABLE", Family.Other)
  val GlueRegistryAccessDenied: ErrorCondition = declare("KINESIS_GLUE_REGISTRY_ACCESS_DENIED", Family.AccessDenied)
  val GlueRegistryCredentials: ErrorCondition = declare("KINESIS_GLUE_REGISTRY_CREDENTIALS", Family.Credentials)
  val GlueRegistryNotFound: ErrorCondition = declare("KINESIS_GLUE_REGISTRY_NOT_FOUND", Family.Other)
  val GlueRegistryRefused: ErrorCondition = declare("KINESIS_GLUE_REGISTRY_REFUSED", Family.Other)
  val GlueRegistryUnreachable: ErrorCondition = declare("KINESIS_GLUE_REGISTRY_UNREACHABLE", Family.Unavailable)
  val GlueSchemaUnusable: ErrorCondition = declare("KINESIS_GLUE_SCHEMA_UNUSABLE", Family.Option)
  val GlueRowUnencodable: ErrorCondition = declare("KINESIS_GLUE_ROW_UNENCODABLE", Family.Other)
  val GlueStructMismatch: ErrorCondition = declare("KINESIS_GLUE_STRUCT_MISMATCH", Family.Option)
  val GlueSchemaVersionNotAvailable: ErrorCondition =
    declare("KINESIS_GLUE_SCHEMA_VERSION_NOT_AVAILABLE", Family.Other)
  val OffsetInvalid: ErrorCondition = declare("KINESIS_OFFSET_INVALID", Family.Checkpoint)
  val OptionsConflict: ErrorCondition = declare("KINESIS_OPTIONS_CONFLICT", Family.Option)
  val OptionsIncomplete: ErrorCondition = declare("KINESIS_OPTIONS_INCOMPLETE", Family.Option)
  val OptionDatabricksOnly: ErrorCondition = declare("KINESIS_OPTION_DATABRICKS_ONLY", Family.Option)
  val OptionInvalid: ErrorCondition = declare("KINESIS_OPTION_INVALID", Family.Option)
  val OptionMissing: ErrorCondition = declare("KINESIS_OPTION_MISSING", Family.Option)
  val OptionUnknown: ErrorCondition = declare("KINESIS_OPTION_UNKNOWN", Family.Option)
  val OptionNotInRealTimeMode: ErrorCondition = declare("KINESIS_OPTION_NOT_IN_REAL_TIME_MODE", Family.Option)
  val OptionNotInBatchRead: ErrorCondition = declare("KINESIS_OPTION_NOT_IN_BATCH_READ", Family.Option)
  val OptionBatchReadOnly: ErrorCondition = declare("KINESIS_OPTION_BATCH_READ_ONLY", Family.Option)
  val PrefetchBroken: ErrorCondition = declare("KINESIS_PREFETCH_BROKEN", Family.Other)
  val PrefetchFailed: ErrorCondition = declare("KINESIS_PREFETCH_FAILED", Family.Unavailable)
  val RangeIncomplete: ErrorCondition = declare("KINESIS_RANGE_INCOMPLETE", Family.DataLoss)
  val RegionUnknown: ErrorCondition = declare("KINESIS_REGION_UNKNOWN", Family.Option)
  val RegisteredConsumerUnusable: ErrorCondition =
    declare("KINESIS_REGISTERED_CONSUMER_UNUSABLE", Family.ConsumerNotFound)
  val RequestRejected: ErrorCondition = declare("KINESIS_REQUEST_REJECTED", Family.Other)
  val SaveModeUnsupported: ErrorCondition = declare("KINESIS_SAVE_MODE_UNSUPPORTED", Family.Option)
  val SchemaFixed: ErrorCondition = declare("KINESIS_SCHEMA_FIXED", Family.Option)
  val SettingInvalid: ErrorCondition = declare("KINESIS_SETTING_INVALID", Family.Option)
  val SettingUnknown: ErrorCondition = declare("KINESIS_SETTING_UNKNOWN", Family.Option)
  val SinkColumns: ErrorCondition = declare("KINESIS_SINK_COLUMNS", Family.Option)
  val SinkStreamUnset: ErrorCondition = declare("KINESIS_SINK_STREAM_UNSET", Family.Option)
  val StartNotInShard: ErrorCondition = declare("KINESIS_START_NOT_IN_SHARD", Family.Option)
  val StreamNotFound: ErrorCondition = declare("KINESIS_STREAM_NOT_FOUND", Family.StreamNotFound)
  val StreamRecreated: ErrorCondition = declare("KINESIS_STREAM_RECREATED", Family.Checkpoint)
  val Unavailable: ErrorCondition = declare("KINESIS_UNAVAILABLE", Family.Unavailable)
  val V1SourceUnsupported: ErrorCondition = declare("KINESIS_V1_SOURCE_UNSUPPORTED", Family.Other)
  val WriteFailed: ErrorCondition = declare("KINESIS_WRITE_FAILED", Family.Write)

  /** Raised by the Java front (`SparkLineCheck`) before any Scala class loads; named here for completeness. */
  val WrongSparkLine: ErrorCondition = declare("KINESIS_WRONG_SPARK_LINE", Family.Other)

  /** Every condition, as the JSON declares them (a test checks that they are the same). */
  val all: Seq[ErrorCondition] = declared.toList

  private val byName = all.map(c => c.name -> c).toMap

  /** The connector's condition of an error (for a sub-condition, its condition), if it is the connector's. */
  def unapply(t: Throwable): Option[ErrorCondition] = t match {
    case k: KinesisThrowable => byName.get(k.getCondition.takeWhile(_ != '.'))
    case _ => None
  }
}
