// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.util.concurrent.{CompletableFuture, LinkedBlockingQueue, TimeUnit}

import scala.jdk.CollectionConverters._

import org.reactivestreams.{Subscriber, Subscription}
import software.amazon.awssdk.services.kinesis.model.{
  Record,
  SubscribeToShardEvent,
  SubscribeToShardEventStream,
  SubscribeToShardResponseHandler
}

/**
 * A SubscribeToShard call of the SDK's asynchronous client, pulled one event at a time: the next event is
 * requested from Kinesis only when the previous one has been taken, so at most one event waits here and a
 * slow reader slows the push down instead of filling memory (reactive streams' back pressure).
 *
 * @param failed   turns a failure of the call into the exception [[next]] throws
 * @param recordOf turns an SDK record into the connector's
 */
private[client] final class SdkShardSubscription(failed: Throwable => Throwable, recordOf: Record => KinesisRecord)
    extends ShardSubscription {
  import SdkShardSubscription._

  /** Pushed events, the end and failures, in the order they happened. */
  private val arrived = new LinkedBlockingQueue[Arrival]()
  @volatile private var upstream = Option.empty[Subscription]
  @volatile private var closed = false
  private var call = Option.empty[CompletableFuture[Void]]
  private var terminal = Option.empty[Arrival]

  private val subscriber = new Subscriber[SubscribeToShardEventStream] {
    override def onSubscribe(s: Subscription): Unit =
      if (closed) s.cancel()
      else {
        upstream = Some(s)
        s.request(1)
      }

    override def onNext(event: SubscribeToShardEventStream): Unit = event match {
      case e: SubscribeToShardEvent => arrived.put(Pushed(e))
      case _ => upstream.foreach(_.request(1)) // other event kinds carry nothing to read
    }

    override def onError(t: Throwable): Unit = arrived.put(Failed(t))

    override def onComplete(): Unit = arrived.put(Completed)
  }

  /** Makes the call; `subscribe` hands the response handler to the SDK. */
  def start(subscribe: SubscribeToShardResponseHandler => CompletableFuture[Void]): Unit = {
    val handler = SubscribeToShardResponseHandler
      .builder()
      .onEventStream(publisher => publisher.subscribe(subscriber))
      .onError(t => arrived.put(Failed(t)))
      .build()
    val future = subscribe(handler)
    future.whenComplete((_: Void, t: Throwable) => arrived.put(if (t == null) Completed else Failed(t)))
    call = Some(future)
  }

  override def next(timeoutMs: Long): Option[SubscriptionEvent] = terminal match {
    case Some(Failed(t)) => throw failed(t)
    case Some(_) => Some(SubscriptionEvent.Ended)
    case None =>
      Option(arrived.poll(timeoutMs, TimeUnit.MILLISECONDS)).map {
        case Pushed(e) =>
          upstream.foreach(_.request(1))
          SubscriptionEvent.Records(
            e.records().asScala.iterator.map(recordOf).toVector,
            Option(e.continuationSequenceNumber()),
            Option(e.millisBehindLatest()).map(_.longValue).getOrElse(0L),
            Option(e.childShards()).map(_.asScala.toSeq.map(_.shardId())).getOrElse(Nil)
          )
        case end =>
          terminal = Some(end)
          end match {
            case Failed(t) => throw failed(t)
            case _ => SubscriptionEvent.Ended
          }
      }
  }

  override def close(): Unit = if (!closed) {
    closed = true
    upstream.foreach(_.cancel())
    call.foreach(_.cancel(false))
  }
}

private object SdkShardSubscription {
  private sealed trait Arrival
  private final case class Pushed(event: SubscribeToShardEvent) extends Arrival
  private case object Completed extends Arrival
  private final case class Failed(failure: Throwable) extends Arrival
}
