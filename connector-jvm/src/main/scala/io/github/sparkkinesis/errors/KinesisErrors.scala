// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import scala.jdk.CollectionConverters._

/**
 * The one place that makes the connector's errors (with [[GlueRegistryErrors]], those of the AWS Glue Schema
 * Registry): each method fills in the parameters of one condition of `error/kinesis-error-conditions.json`,
 * which words it. Values shown are never secrets (secrets arrive here already redacted).
 */
private[sparkkinesis] object KinesisErrors {

  import ErrorCondition._

  def missingOption(key: String, example: String): KinesisIllegalArgumentException =
    argument(OptionMissing, "key" -> key, "example" -> example)

  /** `missing` must be set because `present` is; `reason` says why, as a sentence. */
  def optionsIncomplete(missing: String, present: String, reason: String): KinesisIllegalArgumentException =
    argument(OptionsIncomplete, "key" -> missing, "present" -> present, "reason" -> reason)

  /** Two options that exclude each other were both set; `reason` says why, as a sentence. */
  def optionsConflict(key: String, other: String, reason: String): KinesisIllegalArgumentException =
    argument(OptionsConflict, "key" -> key, "other" -> other, "reason" -> reason)

  /** `shownValue` is the value as the user may see it again: secrets arrive here already redacted. */
  def invalidOption(
      key: String,
      shownValue: String,
      problem: String,
      example: String): KinesisIllegalArgumentException =
    argument(OptionInvalid, "key" -> key, "value" -> shownValue, "problem" -> problem, "example" -> example)

  /** A Spark setting of the connector's (`spark.kinesis....`) whose value it cannot use. */
  def settingInvalid(key: String, value: String, problem: String, example: String): KinesisIllegalArgumentException =
    argument(SettingInvalid, "key" -> key, "value" -> value, "problem" -> problem, "example" -> example)

  /**
   * A Spark setting under `prefix` that is none of the connector's; `settings` are those it has there, and
   * `documentation` the page that describes them.
   */
  def settingUnknown(
      key: String,
      prefix: String,
      settings: Seq[String],
      documentation: String): KinesisIllegalArgumentException =
    argument(
      SettingUnknown,
      "key" -> key,
      "prefix" -> prefix,
      "settings" -> settings.mkString(", "),
      "documentation" -> documentation)

  /** An option key that is no option of the connector's but close to `suggestion`, which is. */
  def unknownOption(key: String, suggestion: String): KinesisIllegalArgumentException =
    argument(OptionUnknown, "key" -> key, "suggestion" -> suggestion)

  /** A function called with arguments it does not take; `signature` shows those it does. */
  def functionArguments(function: String, signature: String, problem: String): KinesisIllegalArgumentException =
    argument(FunctionArguments, "function" -> function, "signature" -> signature, "problem" -> problem)

  /** A function's option it does not take; `options` lists those it does. */
  def functionOptionUnknown(function: String, key: String, options: Seq[String]): KinesisIllegalArgumentException =
    argument(FunctionOptionUnknown, "function" -> function, "key" -> key, "options" -> options.mkString(", "))

  /** An option of the Databricks source that names something only Databricks resolves; `what` says what. */
  def optionDatabricksOnly(key: String, what: String): KinesisIllegalArgumentException =
    argument(OptionDatabricksOnly, "key" -> key, "what" -> what)

  /** An option the user set that real-time mode has no use for; `reason` says why, as a phrase. */
  def optionNotInRealTimeMode(key: String, reason: String): KinesisIllegalArgumentException =
    argument(OptionNotInRealTimeMode, "key" -> key, "reason" -> reason)

  /** An option the user set that a batch read has no use for; `reason` says why, as a phrase. */
  def optionNotInBatchRead(key: String, reason: String): KinesisIllegalArgumentException =
    argument(OptionNotInBatchRead, "key" -> key, "reason" -> reason)

  /** An option of batch reads only, set on a streaming read; `reason` says why, as a phrase. */
  def optionBatchReadOnly(key: String, reason: String): KinesisIllegalArgumentException =
    argument(OptionBatchReadOnly, "key" -> key, "reason" -> reason)

  /** A read given a schema: the source's is fixed, `columns` lists it. */
  def schemaFixed(columns: String): KinesisIllegalArgumentException = argument(SchemaFixed, "columns" -> columns)

  /**
   * Every call for a stream has failed for longer than the option outageTimeout allows.
   *
   * @param lastSuccess when a call last succeeded, as a phrase
   * @param timeout     the option's value
   */
  def unavailable(
      stream: String,
      where: String,
      purpose: String,
      seconds: Long,
      lastSuccess: String,
      timeout: String,
      cause: Throwable): KinesisException =
    error(
      Unavailable,
      cause,
      "stream" -> stream,
      "where" -> where,
      "purpose" -> purpose,
      "seconds" -> seconds.toString,
      "lastSuccess" -> lastSuccess,
      "timeout" -> timeout,
      "cause" -> Option(cause).map(rootMessage).getOrElse("none")
    )

  def v1SourceUnsupported(): KinesisException = error(V1SourceUnsupported, null)

  def noRegion(endpoint: Option[String]): KinesisIllegalArgumentException =
    argument(RegionUnknown, "endpointNote" -> endpoint.fold("")(e => s" (endpoint $e does not name one)"))

  /** `writing` names the row a write failed at, if it was one. */
  def streamNotFound(
      stream: String,
      where: String,
      cause: Throwable,
      writing: Option[String] = None): KinesisException =
    error(StreamNotFound, writing, cause, "stream" -> stream, "where" -> where)

  /** `purpose` is what the connector was doing with the stream: "read" or "write to". */
  def endpointUnreachable(stream: String, where: String, purpose: String, cause: Throwable): KinesisException =
    error(
      EndpointUnreachable,
      cause,
      "stream" -> stream,
      "where" -> where,
      "purpose" -> purpose,
      "cause" -> rootMessage(cause))

  /**
   * @param needed what each side of the connector needs, a phrase each ("reading (the source): ...")
   * @param cause  AWS' refusal, whose message names the principal it denied, when it does
   */
  def accessDenied(
      action: String,
      stream: String,
      where: String,
      cause: Throwable,
      needed: Seq[String],
      writing: Option[String] = None): KinesisException =
    error(
      AccessDenied,
      writing,
      cause,
      "action" -> action,
      "stream" -> stream,
      "where" -> where,
      "principal" -> deniedPrincipal(cause).getOrElse("the credentials the query uses"),
      "needed" -> ("for " + needed.mkString("; for "))
    )

  /**
   * The principal AWS says it denied ("User: arn:aws:sts::...:assumed-role/... is not authorized to ..."), from
   * a refusal or a copy of it: which credentials a call was made with, as AWS saw them.
   */
  private[errors] def deniedPrincipal(cause: Throwable): Option[String] =
    Iterator
      .iterate(cause)(_.getCause)
      .takeWhile(_ != null)
      .take(10)
      .map(c => DeniedPrincipal.findFirstMatchIn(String.valueOf(c.getMessage)))
      .collectFirst { case Some(m) => m.group(1) }

  private val DeniedPrincipal = """User: (arn:[^\s]+) is not authorized""".r

  /**
   * No credentials, and trying again as it is cannot help: refused, expired, or none found.
   *
   * @param failure what failed, naming where the credentials come from ("STS at ... refused AssumeRole of
   *                role ...", "the AWS SDK's default credential chain found none")
   * @param said    what that source said
   * @param check   what to check, as sentences
   */
  def credentialsUnavailable(
      failure: String,
      said: String,
      check: String,
      cause: Throwable,
      writing: Option[String] = None): KinesisException =
    error(CredentialsUnavailable, writing, cause, "failure" -> failure, "cause" -> said, "check" -> check)

  /** No credentials for now: their source could not be reached, or failed (an outage of STS, say). */
  def credentialsUnreachable(failure: String, said: String, check: String, cause: Throwable): KinesisException =
    error(CredentialsUnreachable, cause, "failure" -> failure, "cause" -> said, "check" -> check)

  /**
   * Credentials have been out of reach for longer than the option outageTimeout allows: `failure`, `said`
   * and `check` are those of the last [[credentialsUnreachable]] error.
   */
  def credentialsOutage(
      failure: String,
      said: String,
      check: String,
      seconds: Long,
      lastSuccess: String,
      timeout: String,
      cause: Throwable): KinesisException =
    new KinesisException(
      s"${CredentialsUnavailable.name}.OUTAGE",
      Map(
        "failure" -> failure,
        "cause" -> said,
        "check" -> check,
        "seconds" -> seconds.toString,
        "lastSuccess" -> lastSuccess,
        "timeout" -> timeout).asJava,
      cause
    )

  /** Kinesis refused the request itself: sending it again cannot succeed. */
  def requestRejected(
      action: String,
      stream: String,
      where: String,
      cause: Throwable,
      writing: Option[String] = None): KinesisException =
    error(
      RequestRejected,
      writing,
      cause,
      "action" -> action,
      "stream" -> stream,
      "where" -> where,
      "cause" -> rootMessage(cause))

  def kinesisCallFailed(action: String, stream: String, where: String, cause: Throwable): KinesisException =
    error(CallFailed, cause, "action" -> action, "stream" -> stream, "where" -> where, "cause" -> rootMessage(cause))

  /**
   * `where` names the file the offset was read from, as " in ...", or is empty. An offset longer than
   * [[OffsetShownChars]] is shown by its start and its length: the offset of 10,000 shards is 300 KB.
   */
  def invalidOffset(json: String, where: String, problem: String, example: String): KinesisException = {
    val shown =
      if (json.length <= OffsetShownChars) json
      else s"${json.take(OffsetShownChars)}... (${json.length} characters)"
    error(OffsetInvalid, null, "offset" -> shown, "where" -> where, "problem" -> problem, "example" -> example)
  }

  /** The most of an invalid offset an error shows. */
  val OffsetShownChars = 1000

  /** The checkpoint has positions in streams the query no longer reads. */
  def checkpointOtherStreams(recorded: Seq[String], reads: Seq[String]): KinesisException = {
    def names(streams: Seq[String]) =
      (if (streams.size == 1) "stream " else "streams ") + streams.map(s => s"'$s'").mkString(", ")
    error(
      CheckpointOtherStreams,
      null,
      "recorded" -> names(recorded),
      "reads" -> names(reads),
      "dropped" -> names(recorded.filterNot(reads.contains)),
      "recordedOption" -> recorded.mkString(",")
    )
  }

  /** A file of Spark's logs in the checkpoint that Spark cannot read; `problem` says why. */
  def checkpointUnreadable(file: String, checkpoint: String, problem: String): KinesisException =
    error(CheckpointUnreadable, null, "file" -> file, "checkpoint" -> checkpoint, "problem" -> problem)

  def rangeIncomplete(stream: String, shardId: String, from: String, until: String, reached: String): KinesisException =
    error(
      RangeIncomplete,
      null,
      "stream" -> stream,
      "shard" -> shardId,
      "from" -> from,
      "until" -> until,
      "reached" -> reached)

  /** Records the query has not read are gone; `lost` says which, e.g. "records after sequence number 49..". */
  def dataLoss(stream: String, shardId: String, lost: String, reason: String): KinesisException =
    error(DataLoss, null, "stream" -> stream, "shard" -> shardId, "lost" -> lost, "reason" -> reason)

  /**
   * `key` (initialPosition) starts a shard at or after (`position`) a sequence number that is not in it;
   * `problem` says why not, e.g. "Kinesis lists no such shard".
   */
  def startNotInShard(
      key: String,
      stream: String,
      shardId: String,
      position: String,
      sequenceNumber: String,
      problem: String,
      cause: Throwable = null): KinesisIllegalArgumentException =
    argument(
      StartNotInShard,
      cause,
      "key" -> key,
      "stream" -> stream,
      "shard" -> shardId,
      "position" -> position,
      "sequenceNumber" -> sequenceNumber,
      "problem" -> problem)

  /** The checkpoint names a shard the stream never had; `listed` names those it has. */
  def checkpointForeign(stream: String, shardId: String, listed: String): KinesisException =
    error(CheckpointForeign, null, "stream" -> stream, "shard" -> shardId, "listed" -> listed)

  /** The stream was deleted and created again under its name since the checkpoint was written. */
  def streamRecreated(stream: String, evidence: String): KinesisException =
    error(StreamRecreated, null, "stream" -> stream, "evidence" -> evidence)

  /** An enhanced fan-out consumer did not become ACTIVE in time. */
  def consumerNotActive(stream: String, name: String, status: String, waitedMs: Long): KinesisException =
    error(
      ConsumerNotActive,
      null,
      "stream" -> stream,
      "name" -> name,
      "status" -> status,
      "waitedSeconds" -> (waitedMs / 1000).toString)

  /**
   * The consumer `registeredConsumerId` names for `stream` cannot be read through; `state` says why, as a
   * phrase: "is not registered", "is CREATING, not ACTIVE".
   */
  def registeredConsumerUnusable(stream: String, consumer: String, state: String): KinesisException =
    error(RegisteredConsumerUnusable, null, "stream" -> stream, "consumer" -> consumer, "state" -> state)

  def consumerNotFound(stream: String, name: String, cause: Throwable): KinesisIllegalArgumentException =
    argument(ConsumerNotFound, cause, "stream" -> stream, "name" -> name)

  def consumerNameInvalid(name: String): KinesisIllegalArgumentException =
    argument(ConsumerNameInvalid, "name" -> String.valueOf(name))

  /** A Spark Connect client's call of the consumer manager that this connector cannot read. */
  def connectCallUnreadable(problem: String): KinesisIllegalArgumentException =
    argument(ConnectCallUnreadable, "problem" -> problem)

  def prefetchFailed(source: String, attempts: Int, cause: Throwable): KinesisException =
    error(PrefetchFailed, cause, "source" -> source, "attempts" -> attempts.toString, "cause" -> rootMessage(cause))

  /** A prefetch failure that trying again cannot mend, such as the connector's classes clashing. */
  def prefetchBroken(source: String, cause: Throwable): KinesisException =
    error(PrefetchBroken, cause, "source" -> source, "cause" -> rootMessage(cause))

  /** `failed` of the `total` records of a request were not written; `why` counts the reasons. */
  def writeFailed(
      stream: String,
      total: Int,
      failed: Int,
      attempts: Int,
      why: String,
      cause: Throwable): KinesisException =
    error(
      WriteFailed,
      cause,
      "stream" -> stream,
      "total" -> total.toString,
      "failed" -> failed.toString,
      "attempts" -> attempts.toString,
      "why" -> why)

  def badRecord(problem: String, row: String): KinesisIllegalArgumentException =
    argument(BadRecord, "problem" -> problem, "row" -> row)

  def sinkColumns(problem: String, accepted: String, example: String): KinesisIllegalArgumentException =
    argument(SinkColumns, "problem" -> problem, "accepted" -> accepted, "example" -> example)

  def sinkStreamUnset(): KinesisIllegalArgumentException = argument(SinkStreamUnset)

  def saveModeUnsupported(mode: String, reason: String): KinesisIllegalArgumentException =
    argument(SaveModeUnsupported, "mode" -> mode, "reason" -> reason)

  private def error(condition: ErrorCondition, cause: Throwable, parameters: (String, String)*): KinesisException =
    new KinesisException(condition.name, parameters.toMap.asJava, cause)

  /** The condition, or its `WRITE` sub-condition naming the row when a write failed. */
  private def error(
      condition: ErrorCondition,
      writing: Option[String],
      cause: Throwable,
      parameters: (String, String)*): KinesisException =
    writing match {
      case None => error(condition, cause, parameters: _*)
      case Some(row) =>
        new KinesisException(s"${condition.name}.WRITE", (parameters.toMap + ("row" -> row)).asJava, cause)
    }

  private[errors] def argument(
      condition: ErrorCondition,
      parameters: (String, String)*): KinesisIllegalArgumentException =
    argument(condition, null, parameters: _*)

  private def argument(
      condition: ErrorCondition,
      cause: Throwable,
      parameters: (String, String)*): KinesisIllegalArgumentException =
    new KinesisIllegalArgumentException(condition.name, parameters.toMap.asJava, cause)

  /** The message of the innermost cause, which says what went wrong without the wrappers' words. */
  def rootMessage(t: Throwable): String = {
    var c = t
    while (c.getCause != null && c.getCause != c) c = c.getCause
    Option(c.getMessage).getOrElse(c.getClass.getSimpleName)
  }
}
