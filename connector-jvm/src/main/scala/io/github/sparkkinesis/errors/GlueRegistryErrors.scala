// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.errors.ErrorCondition._

/**
 * The errors of calls to the AWS Glue Schema Registry (`glue/GlueRegistryClient`), beside [[KinesisErrors]]:
 * each method fills in the parameters of one `KINESIS_GLUE_...` condition and gives the error its
 * [[GlueRegistryException.Kind]]. In each, `where` names the registry's endpoint and region, `what` the schema
 * ("schema 'orders' of registry 'payments'") or the version ("schema version 3f2a...") the call was for.
 * Values shown are never secrets: AWS' messages and the connector's own descriptions of its credentials.
 */
private[sparkkinesis] object GlueRegistryErrors {

  /** `check` says what to check, as sentences: what names the missing entity differs by how it was asked. */
  def notFound(
      where: String,
      action: String,
      what: String,
      said: String,
      check: String,
      cause: Throwable): GlueRegistryException =
    glue(
      GlueRegistryException.NotFound,
      GlueRegistryNotFound,
      cause,
      "where" -> where,
      "what" -> what,
      "action" -> action,
      "cause" -> said,
      "check" -> check)

  /** `cause` is Glue's refusal, whose message names the principal it denied, when it does. */
  def accessDenied(where: String, action: String, what: String, cause: Throwable): GlueRegistryException =
    glue(
      GlueRegistryException.AccessDenied,
      GlueRegistryAccessDenied,
      cause,
      "where" -> where,
      "action" -> action,
      "what" -> what,
      "principal" -> KinesisErrors.deniedPrincipal(cause).getOrElse("the credentials the query uses")
    )

  /**
   * No credentials to sign with, or Glue refused them; `failure`, `said` and `check` are those of the
   * connector's credentials failure (`aws.CredentialsFailure`). `transient` when their source could not be
   * reached for now (an outage of STS): of kind Unreachable, else AccessDenied.
   */
  def credentials(
      where: String,
      what: String,
      failure: String,
      said: String,
      check: String,
      transient: Boolean,
      cause: Throwable): GlueRegistryException =
    glue(
      if (transient) GlueRegistryException.Unreachable else GlueRegistryException.AccessDenied,
      GlueRegistryCredentials,
      cause,
      "where" -> where,
      "what" -> what,
      "failure" -> failure,
      "cause" -> said,
      "check" -> check
    )

  /** `attempts` calls over `millis` got no answer; `last` says how the last one failed. */
  def unreachable(
      where: String,
      action: String,
      what: String,
      attempts: Int,
      millis: Long,
      last: String,
      cause: Throwable): GlueRegistryException =
    glue(
      GlueRegistryException.Unreachable,
      GlueRegistryUnreachable,
      cause,
      "where" -> where,
      "action" -> action,
      "what" -> what,
      "attempts" -> (if (attempts == 1) "1 attempt" else s"$attempts attempts"),
      "duration" -> f"${millis / 1000.0}%.1f s",
      "cause" -> last
    )

  /** Glue refused the request itself; `code` is its error code (InvalidInputException, ...), `said` its message. */
  def refused(
      where: String,
      action: String,
      what: String,
      code: String,
      said: String,
      cause: Throwable): GlueRegistryException =
    refusal(GlueRegistryException.Refused, where, action, what, code, said, cause)

  /** CreateSchema of a schema that exists (AlreadyExistsException): a refusal the caller may get past. */
  def alreadyExists(
      where: String,
      action: String,
      what: String,
      code: String,
      said: String,
      cause: Throwable): GlueRegistryException =
    refusal(GlueRegistryException.AlreadyExists, where, action, what, code, said, cause)

  private def refusal(
      kind: GlueRegistryException.Kind,
      where: String,
      action: String,
      what: String,
      code: String,
      said: String,
      cause: Throwable): GlueRegistryException =
    glue(
      kind,
      GlueRegistryRefused,
      cause,
      "where" -> where,
      "action" -> action,
      "what" -> what,
      "code" -> code,
      "cause" -> said)

  /** A version registered is `status`, not AVAILABLE; `detail` says what that means and what to do, as sentences. */
  def versionNotAvailable(
      where: String,
      what: String,
      version: Long,
      status: String,
      detail: String): GlueRegistryException =
    glue(
      GlueRegistryException.NotAvailable,
      GlueSchemaVersionNotAvailable,
      null,
      "version" -> version.toString,
      "what" -> what,
      "where" -> where,
      "status" -> status,
      "detail" -> detail
    )

  /**
   * A record `from_glue_registry` cannot decode, in FAILFAST mode.
   *
   * @param kind   the sub-condition: NOT_FRAMED, OTHER_SCHEMA or INVALID
   * @param record the record, as a phrase: where it was read, when known, else its size
   */
  def recordUndecodable(
      kind: String,
      record: String,
      problem: String,
      cause: Throwable,
      parameters: (String, String)*): KinesisException =
    new KinesisException(
      s"${GlueRecordUndecodable.name}.$kind",
      (Map("record" -> record, "problem" -> problem) ++ parameters).asJava,
      cause)

  /** A schema version a registry function cannot work with; `version` is its number, or "latest". */
  def schemaUnusable(
      function: String,
      schema: String,
      registry: String,
      version: String,
      format: String,
      problem: String): KinesisIllegalArgumentException =
    KinesisErrors.argument(
      GlueSchemaUnusable,
      "function" -> function,
      "schema" -> schema,
      "registry" -> registry,
      "version" -> version,
      "format" -> format,
      "problem" -> problem.stripSuffix("."))

  /** A struct `to_glue_registry` cannot write as a version; `problem` names the column and what is wrong. */
  def structMismatch(
      schema: String,
      registry: String,
      version: Long,
      format: String,
      problem: String): KinesisIllegalArgumentException =
    KinesisErrors.argument(
      GlueStructMismatch,
      "schema" -> schema,
      "registry" -> registry,
      "version" -> version.toString,
      "format" -> format,
      "problem" -> problem.stripSuffix(".")
    )

  /** A row `to_glue_registry` cannot encode; `problem` names the column and what is wrong, never the data. */
  def rowUnencodable(
      schema: String,
      registry: String,
      version: Long,
      problem: String,
      cause: Throwable): KinesisException =
    new KinesisException(
      GlueRowUnencodable.name,
      Map(
        "schema" -> schema,
        "registry" -> registry,
        "version" -> version.toString,
        "problem" -> problem.stripSuffix(".")).asJava,
      cause
    )

  private def glue(
      kind: GlueRegistryException.Kind,
      condition: ErrorCondition,
      cause: Throwable,
      parameters: (String, String)*): GlueRegistryException =
    new GlueRegistryException(kind, condition, parameters.toMap.asJava, cause)
}
