// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.io.{IOException, InterruptedIOException}

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode
import io.github.sparkkinesis.aws.{CredentialsDiagnosis, CredentialsFailure}
import io.github.sparkkinesis.errors.{GlueRegistryErrors, GlueRegistryException, RemoteFailure}
import io.github.sparkkinesis.util.{Backoff, Clock}
import org.slf4j.LoggerFactory

/**
 * Glue's calls, each made until Glue answers it, a bounded number of times, and its failures turned into the
 * connector's errors ([[GlueRegistryErrors]]). What is tried again: no connection or no answer, a 5xx, a
 * throttling answer, an answer that is not Glue's, and credentials whose source is out of reach for now; at
 * most [[GlueCalls.Policy.attempts]] times, with a jittered exponential backoff between them, and no new
 * attempt once [[GlueCalls.Policy.retryWindowMs]] have passed since the first. With the transport's timeouts
 * (5 s to connect, 30 s of silence) a registry out of reach fails in well under a minute. Anything else
 * Glue refuses fails at once. Thread-safe.
 */
private[sparkkinesis] final class GlueCalls(
    transport: GlueTransport,
    clock: Clock,
    policy: GlueCalls.Policy = GlueCalls.Policy()) {
  import GlueCalls._

  /** Where calls go, for messages. */
  def target: String = transport.target

  /**
   * Glue's answer to `operation` with `request`, read by `read`, which throws [[Unreadable]] for an answer
   * without what it needs.
   *
   * @throws GlueRegistryException when the call fails, naming `subject`
   */
  def call[T](operation: String, request: ObjectNode, subject: Subject)(read: JsonNode => T): T = {
    val body = Mapper.writeValueAsString(request)
    val started = clock.nowMillis()
    var attempts = 0
    var result = Option.empty[T]
    while (result.isEmpty) {
      attempts += 1
      attempt(operation, body, subject, read) match {
        case Answered(value) => result = Some(value)
        case Failed(error) => throw error
        case Transient(last, cause, credentials) =>
          val elapsed = clock.nowMillis() - started
          if (attempts >= policy.attempts || elapsed >= policy.retryWindowMs) {
            throw (credentials match {
              case Some(f) => GlueRegistryErrors.credentials(target, subject.what, f.failure, f.said, f.check, true, f)
              case None =>
                GlueRegistryErrors.unreachable(target, operation, subject.what, attempts, elapsed, last, cause)
            })
          }
          log.debug(s"Glue $operation for ${subject.what} at $target: attempt $attempts failed ($last); trying again")
          clock.sleep(Backoff.jittered(Backoff.pauseAfter(attempts, policy.minBackoffMs, policy.maxBackoffMs)))
      }
    }
    result.get
  }

  /** One attempt, and what came of it. */
  private def attempt[T](operation: String, body: String, subject: Subject, read: JsonNode => T): Outcome[T] =
    try {
      val response = transport.send(operation, body)
      if (response.status >= 200 && response.status < 300) {
        try Answered(read(parse(response.body)))
        catch {
          case u: Unreadable =>
            Transient(s"HTTP ${response.status} with an answer that is not Glue's: ${u.getMessage}", u, None)
        }
      } else refusal(operation, subject, response)
    } catch {
      case f: CredentialsFailure if f.transient => Transient(s"${f.failure}: ${f.said}", f, Some(f))
      case f: CredentialsFailure =>
        Failed(GlueRegistryErrors.credentials(target, subject.what, f.failure, f.said, f.check, false, f))
      case e: InterruptedIOException if Thread.currentThread().isInterrupted => throw e
      case e: IOException =>
        val said = Option(e.getMessage).fold(e.getClass.getSimpleName)(m => s"${e.getClass.getSimpleName}: $m")
        Transient(said, RemoteFailure.of(e), None)
    }

  /** What an answer other than 2xx means. */
  private def refusal[T](operation: String, subject: Subject, response: GlueResponse): Outcome[T] = {
    val error = ServiceError.of(response)
    val code = error.code
    val said = error.said
    if (response.status >= 500 || response.status == 429 || code.exists(Retried))
      Transient(s"HTTP ${response.status}${code.fold("")(" " + _)}: $said", error, None)
    else
      Failed(code match {
        case Some("EntityNotFoundException") =>
          GlueRegistryErrors.notFound(target, operation, subject.what, said, subject.notFoundCheck, error)
        case Some("AccessDeniedException" | "AccessDenied") =>
          GlueRegistryErrors.accessDenied(target, operation, subject.what, error)
        case Some(c) if CredentialsDiagnosis.rejectsCredentials(c) =>
          val f = CredentialsDiagnosis.ofService("Glue", transport.credentials, target, c, said, error)
          GlueRegistryErrors.credentials(target, subject.what, f.failure, f.said, f.check, false, f)
        case Some(c @ "AlreadyExistsException") =>
          GlueRegistryErrors.alreadyExists(target, operation, subject.what, c, said, error)
        case None if response.status == 403 => GlueRegistryErrors.accessDenied(target, operation, subject.what, error)
        case other =>
          GlueRegistryErrors
            .refused(target, operation, subject.what, other.getOrElse(s"HTTP ${response.status}"), said, error)
      })
  }

  private def parse(body: String): JsonNode = {
    val json =
      try Mapper.readTree(body)
      catch { case NonFatal(_) => throw new Unreadable(excerpt(body)) }
    if (json == null || !json.isObject) throw new Unreadable(excerpt(body))
    json
  }
}

private[sparkkinesis] object GlueCalls {

  private val log = LoggerFactory.getLogger(classOf[GlueCalls])

  private[glue] val Mapper = new ObjectMapper()

  /**
   * How calls are tried again. The defaults: 4 attempts, 200 ms doubled to 2 s between them (jittered), none
   * begun after 20 s.
   */
  final case class Policy(
      attempts: Int = 4,
      minBackoffMs: Long = 200,
      maxBackoffMs: Long = 2000,
      retryWindowMs: Long = 20000)

  /**
   * What a call is for, as its errors name it.
   *
   * @param what          "schema 'orders' of registry 'payments'", "schema version 3f2a..."
   * @param notFoundCheck what to check when Glue says it does not exist, as sentences
   */
  final case class Subject(what: String, notFoundCheck: String)

  /** An answer without what the call needs: not Glue's, or not of this operation. */
  final class Unreadable(message: String) extends RuntimeException(message)

  /** Glue's error codes that a call is tried again after. */
  private val Retried = Set(
    "ThrottlingException",
    "Throttling",
    "TooManyRequestsException",
    "RequestLimitExceeded",
    "ConcurrentModificationException",
    "InternalServiceException",
    "ServiceUnavailableException"
  )

  private sealed trait Outcome[+T]
  private final case class Answered[T](value: T) extends Outcome[T]
  private final case class Failed(error: GlueRegistryException) extends Outcome[Nothing]

  /** No answer, or one that may differ next time; `credentials` when their source failed for now. */
  private final case class Transient(last: String, cause: Throwable, credentials: Option[CredentialsFailure])
      extends Outcome[Nothing]

  /**
   * An error Glue answered, as the cause of the connector's error: its code (`__type` of the awsJson1.1
   * protocol, or the X-Amzn-ErrorType header) and its message. Serializable.
   */
  final class ServiceError(val status: Int, val code: Option[String], val said: String)
      extends RuntimeException(s"${code.getOrElse("HTTP " + status)}: $said (HTTP $status)")

  object ServiceError {

    /**
     * The error of an answer: in awsJson1.1's form (`{"__type": ..., "message": ...}`), or in the XML of AWS'
     * query protocol, which AWS' front (and moto, for IAM's refusals) answers some refusals with.
     */
    def of(response: GlueResponse): ServiceError = {
      val body = String.valueOf(response.body).trim
      val json = Option(body).filter(_.startsWith("{")).flatMap { b =>
        try Option(Mapper.readTree(b))
        catch { case NonFatal(_) => None }
      }
      def field(names: String*) =
        json.flatMap(j => names.map(j.path).find(_.isTextual).map(_.asText)).map(_.trim).filter(_.nonEmpty)
      def element(name: String) =
        if (!body.startsWith("<")) None
        else s"<$name>([^<]*)</$name>".r.findFirstMatchIn(body).map(m => unescape(m.group(1)).trim).filter(_.nonEmpty)
      // "com.amazonaws.glue#EntityNotFoundException", "EntityNotFoundException:http://...": the name alone.
      val code = response.errorType
        .orElse(field("__type", "code"))
        .orElse(element("Code"))
        .map(t => t.substring(t.lastIndexOf('#') + 1).takeWhile(_ != ':').trim)
        .filter(_.nonEmpty)
      val said = field("message", "Message")
        .orElse(element("Message"))
        .getOrElse(if (json.isDefined) "no message" else excerpt(body))
      new ServiceError(response.status, code, said)
    }

    private def unescape(xml: String): String =
      xml.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&")
  }

  /** The start of a text on one line, for messages. */
  private[glue] def excerpt(text: String): String = {
    val line = String.valueOf(text).replaceAll("\\s+", " ").trim
    if (line.isEmpty) "an empty body" else if (line.length <= 200) line else line.take(200) + "..."
  }
}
