// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.health

import java.time.Instant

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.aws.CredentialsFailure
import io.github.sparkkinesis.config.Durations
import io.github.sparkkinesis.errors.{ErrorCondition, KinesisErrors, KinesisException, KinesisThrowable}
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Whether Kinesis answers the calls a source, or a writing task, makes for each of its streams: when a call
 * last succeeded and, while every call fails (Kinesis cannot be reached, or answers with 5xx errors), since
 * when and why. An outage is tolerated for `timeoutMs` (the option `outageTimeout`; None waits forever):
 * the query keeps trying and reports it, then [[check]] fails it with `KINESIS_UNAVAILABLE`, naming the
 * endpoint, the stream, how long and the last cause. The log says so once when an outage has lasted
 * [[KinesisHealth.GraceMs]] (a single failed call is no outage), at most once a minute while it lasts, and
 * once when it ends. An outage of the credentials' source (STS could not be reached to assume the role, say:
 * `aws.CredentialsFailure`) is one too, and the log and the error name that source and what to check rather
 * than Kinesis: `KINESIS_CREDENTIALS_UNAVAILABLE.OUTAGE`. Thread-safe.
 *
 * @param target   endpoint and region, for messages
 * @param owner    who calls, for the log: "KinesisV2[orders]", "partition 3 of epoch 7"
 * @param purpose  what the calls are for: "read" or "write to"
 */
private[sparkkinesis] final class KinesisHealth(
    target: String,
    owner: String,
    purpose: String,
    timeoutMs: Option[Long],
    clock: Clock,
    log: String => Unit = KinesisHealth.warn) {
  import KinesisHealth._

  private val startedAt = clock.nowMillis()
  private val states = mutable.Map.empty[String, State]

  private final class State {
    var lastSuccessMs: Long = startedAt
    var everSucceeded = false
    var failingSinceMs: Option[Long] = None
    var lastFailure: Option[Throwable] = None
    var reported = false
    var lastReportMs = 0L
  }

  private def state(stream: String): State = states.getOrElseUpdate(stream, new State)

  /**
   * A call for `stream` made at `madeAtMs` succeeded (a prefetch task reports its calls when it ends): an
   * outage of it that began no later, if any, has ended; one that began after goes on.
   */
  def succeeded(stream: String, madeAtMs: Long = clock.nowMillis()): Unit = synchronized {
    val s = state(stream)
    val now = clock.nowMillis()
    s.lastSuccessMs = math.max(s.lastSuccessMs, madeAtMs)
    s.everSucceeded = true
    if (s.failingSinceMs.forall(_ <= madeAtMs)) {
      (s.failingSinceMs, s.reported) match {
        case (Some(since), true) if s.lastFailure.flatMap(credentialsOutage).isDefined =>
          log(
            s"$owner: the connector has AWS credentials again and Kinesis at $target answers for stream " +
              s"'$stream', after ${seconds(now - since)} s of failed calls")
        case (Some(since), true) =>
          log(
            s"$owner: Kinesis at $target answers again for stream '$stream', after ${seconds(now - since)} s of " +
              "failed calls")
        case _ => ()
      }
      s.failingSinceMs = None
      s.lastFailure = None
      s.reported = false
    }
  }

  /**
   * A call for `stream` failed as part of an outage (see `ApiFailures.outage`): Kinesis', or its credentials'
   * source's (a [[CredentialsFailure]] in `cause`, or the `KINESIS_CREDENTIALS_UNREACHABLE` error of one).
   */
  def failed(stream: String, cause: Throwable): Unit = synchronized {
    val s = state(stream)
    val now = clock.nowMillis()
    val since = s.failingSinceMs.getOrElse(now)
    s.failingSinceMs = Some(since)
    s.lastFailure = Some(cause)
    val due =
      if (!s.reported) now - since >= GraceMs
      else now - s.lastReportMs >= ReportEveryMs
    if (due) {
      val keepsTrying = timeoutMs.fold("The query keeps trying (outageTimeout is inf).")(t =>
        s"The query keeps trying until ${Durations.format(t)} have passed (the option outageTimeout).")
      val lasting = s"since ${Instant.ofEpochMilli(since)} (${seconds(now - since)} s)"
      credentialsOutage(cause) match {
        case Some(c) =>
          val still = if (s.reported) "still " else ""
          log(
            s"$owner: ${still}no AWS credentials for the calls for stream '$stream' $lasting: ${c.failure}: " +
              s"${c.said}. ${c.check} $keepsTrying")
        case None =>
          val verb = if (s.reported) "still fail" else "fail"
          log(
            s"$owner: calls to Kinesis at $target for stream '$stream' $verb $lasting: " +
              s"${KinesisErrors.rootMessage(cause)}. $keepsTrying")
      }
      s.reported = true
      s.lastReportMs = now
    }
  }

  /** A call for every stream known here (reported on before) failed, such as one that serves them all. */
  def failedAll(cause: Throwable): Unit = synchronized(states.keys.toList.foreach(failed(_, cause)))

  /** Fails with `KINESIS_UNAVAILABLE` if an outage of some stream has lasted `timeoutMs`. */
  def check(): Unit = synchronized {
    val now = clock.nowMillis()
    for (limit <- timeoutMs; (stream, s) <- states.toSeq.sortBy(_._1); since <- s.failingSinceMs) {
      if (now - since >= limit) throw unavailable(stream, s, now)
    }
  }

  /**
   * The error [[check]] throws for `stream`, if it is failing now: `KINESIS_UNAVAILABLE`, or, if the last
   * failure was the credentials' source's, `KINESIS_CREDENTIALS_UNAVAILABLE.OUTAGE` naming it.
   */
  private def unavailable(stream: String, s: State, now: Long): KinesisException = {
    val lasted = seconds(now - s.failingSinceMs.get)
    val lastSuccess =
      if (s.everSucceeded) s"the last call that succeeded was at ${Instant.ofEpochMilli(s.lastSuccessMs)}"
      else s"no call has succeeded since ${Instant.ofEpochMilli(startedAt)}"
    val timeout = timeoutMs.map(Durations.format).getOrElse("inf")
    s.lastFailure.flatMap(credentialsOutage) match {
      case Some(c) =>
        KinesisErrors.credentialsOutage(c.failure, c.said, c.check, lasted, lastSuccess, timeout, s.lastFailure.orNull)
      case None =>
        KinesisErrors.unavailable(stream, target, purpose, lasted, lastSuccess, timeout, s.lastFailure.orNull)
    }
  }

  /** Seconds since a call for `stream` last succeeded (or since the source started, if none has yet). */
  def secondsSinceLastSuccess(stream: String): Long = synchronized(
    seconds(clock.nowMillis() - state(stream).lastSuccessMs))

  /** Whether every call for `stream` fails at the moment. */
  def failing(stream: String): Boolean = synchronized(state(stream).failingSinceMs.isDefined)
}

private[sparkkinesis] object KinesisHealth {

  /** A failure streak shorter than this is no outage, and is not logged. */
  val GraceMs = 5000L

  /** How often the log says an outage goes on. */
  val ReportEveryMs = 60000L

  private val logger = LoggerFactory.getLogger(classOf[KinesisHealth])

  private def warn(message: String): Unit = logger.warn(message)

  private def seconds(ms: Long): Long = math.max(0L, ms / 1000)

  /** What an outage of the credentials' source says: what failed, what it said, what to check. */
  private final case class CredentialsOutage(failure: String, said: String, check: String)

  /**
   * The credentials' source's outage `cause` is part of, if it is one: a transient [[CredentialsFailure]]
   * among its causes (on the side that met it), or the `KINESIS_CREDENTIALS_UNREACHABLE` error made of one
   * (which is what crosses from an executor).
   */
  private def credentialsOutage(cause: Throwable): Option[CredentialsOutage] =
    Iterator.iterate(cause)(_.getCause).takeWhile(_ != null).take(20).collectFirst {
      case f: CredentialsFailure if f.transient => CredentialsOutage(f.failure, f.said, f.check)
      case t if ErrorCondition.unapply(t).contains(ErrorCondition.CredentialsUnreachable) =>
        val p = t.asInstanceOf[KinesisThrowable].getMessageParameters.asScala
        CredentialsOutage(p.getOrElse("failure", "unknown"), p.getOrElse("cause", "unknown"), p.getOrElse("check", ""))
    }
}
