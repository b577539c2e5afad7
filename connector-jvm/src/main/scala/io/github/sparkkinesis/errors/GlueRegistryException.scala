// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

/**
 * An error of a call to the AWS Glue Schema Registry (`glue/GlueRegistryApi`): one of the connector's error
 * conditions (`KINESIS_GLUE_...`), like every other error, with a [[GlueRegistryException.Kind]] that a caller
 * matches on to decide what to do (register a schema that is not found, fail a record, give up). Made by
 * [[KinesisErrors]] only. Serializable, so an executor's error reaches the driver whole.
 */
private[sparkkinesis] final class GlueRegistryException(
    val kind: GlueRegistryException.Kind,
    condition: ErrorCondition,
    parameters: java.util.Map[String, String],
    cause: Throwable)
    extends KinesisException(condition.name, parameters, cause)

private[sparkkinesis] object GlueRegistryException {

  sealed abstract class Kind(val name: String) extends Serializable {
    override def toString: String = name
  }

  /** The registry, the schema or the version does not exist (Glue's EntityNotFoundException). */
  case object NotFound extends Kind("not found")

  /** Glue denied the call, or refused the credentials it was signed with, or there were none to sign with. */
  case object AccessDenied extends Kind("access denied")

  /**
   * No answer after the bounded attempts: no connection, timeouts, 5xx or throttling answers, an answer that
   * is not Glue's, or the source of the credentials out of reach. A later call may succeed.
   */
  case object Unreachable extends Kind("unreachable")

  /** Glue refused the request itself (InvalidInputException, ...): sending it again cannot succeed. */
  case object Refused extends Kind("refused")

  /** CreateSchema of a schema that exists already (AlreadyExistsException): another writer may have made it. */
  case object AlreadyExists extends Kind("already exists")

  /** A version registered is not AVAILABLE: the registry failed it, or it was still pending after the wait. */
  case object NotAvailable extends Kind("not available")
}
