// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.consumers

import scala.annotation.tailrec

import io.github.sparkkinesis.client.{ConsumerInfo, KinesisApi, KinesisApiException}
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.util.Clock
import org.slf4j.LoggerFactory

/**
 * Makes sure an enhanced fan-out consumer of a given name is registered with a stream and ACTIVE: reuses
 * the one that exists, registers it otherwise, and waits while Kinesis creates it (or finishes deleting
 * an old one of the name). Shared by the source and the consumer manager. Stateless.
 */
private[sparkkinesis] object ConsumerRegistration {
  private val log = LoggerFactory.getLogger(getClass)

  /** How often the consumer's status is asked for while waiting. */
  val PollMs = 500L

  /** How long a consumer may take to become ACTIVE (Kinesis usually takes seconds). */
  val ActivationTimeoutMs: Long = 5L * 60 * 1000

  /** The consumer, ACTIVE. Fails if it is not ACTIVE within `timeoutMs`. */
  def activate(
      api: KinesisApi,
      stream: String,
      streamArn: String,
      name: String,
      clock: Clock,
      timeoutMs: Long = ActivationTimeoutMs): ConsumerInfo = {
    val deadline = clock.nowMillis() + timeoutMs

    @tailrec def loop(last: Option[ConsumerInfo]): ConsumerInfo = {
      val now = api.describeConsumer(streamArn, name)
      now match {
        case Some(c) if c.isActive =>
          if (last.isEmpty) log.info(s"Using the existing enhanced fan-out consumer $name of stream '$stream'")
          c
        case _ =>
          if (now.isEmpty) register(api, stream, streamArn, name)
          if (clock.nowMillis() >= deadline)
            throw KinesisErrors.consumerNotActive(stream, name, now.fold("not registered")(_.status), timeoutMs)
          clock.sleep(PollMs)
          loop(now.orElse(Some(ConsumerInfo(name, "", "REGISTERING", 0L))))
      }
    }
    loop(None)
  }

  private def register(api: KinesisApi, stream: String, streamArn: String, name: String): Unit =
    try {
      api.registerConsumer(streamArn, name)
      log.info(s"Registered the enhanced fan-out consumer $name with stream '$stream'")
    } catch {
      // Registered meanwhile by someone else, or an old consumer of the name is still being deleted.
      case _: KinesisApiException.InUse => ()
    }
}
