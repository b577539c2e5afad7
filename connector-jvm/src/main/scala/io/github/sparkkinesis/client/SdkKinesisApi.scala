// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.net.{ConnectException, UnknownHostException}
import java.util.concurrent.{CompletionException, ExecutionException}

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.aws.{AwsCredentialsConfig, Credentials, CredentialsDiagnosis, CredentialsFailure}
import software.amazon.awssdk.awscore.{AwsRequest, AwsRequestOverrideConfiguration}
import software.amazon.awssdk.awscore.exception.AwsServiceException
import software.amazon.awssdk.core.exception.{SdkClientException, SdkException}
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.http.SdkHttpClient
import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}
import software.amazon.awssdk.services.kinesis.model.{
  DeregisterStreamConsumerRequest,
  DescribeStreamConsumerRequest,
  DescribeStreamSummaryRequest,
  ExpiredIteratorException,
  GetRecordsRequest,
  GetShardIteratorRequest,
  InvalidArgumentException,
  KmsThrottlingException,
  LimitExceededException,
  ListShardsRequest,
  ListStreamConsumersRequest,
  ProvisionedThroughputExceededException,
  PutRecordsRequest,
  PutRecordsRequestEntry,
  Record,
  RegisterStreamConsumerRequest,
  ResourceInUseException,
  ResourceNotFoundException,
  ShardIteratorType,
  StartingPosition,
  SubscribeToShardRequest
}

/**
 * [[KinesisApi]] over the AWS SDK: its synchronous Kinesis client for calls, and, for SubscribeToShard, an
 * asynchronous client over HTTP/2, built on the first subscription. Thread-safe. Owns the clients and their
 * HTTP clients and closes them.
 *
 * A view made by [[counting]] shares the clients and counts AWS' throttling answers to its calls in the
 * caller's [[RateLimitErrors]]: each request carries it to [[RateLimitCounting]], which sees every attempt of
 * a synchronous call; SubscribeToShard, which the SDK never retries, counts the throttling it fails with.
 *
 * @param streamArns the ARN of each stream that requests name by ARN rather than by name
 */
private[sparkkinesis] final class SdkKinesisApi private (
    clients: SdkKinesisApi.Clients,
    val target: String,
    errors: Option[RateLimitErrors],
    streamArns: Map[String, String])
    extends KinesisApi {
  import SdkKinesisApi._

  /**
   * @param client     every synchronous call but GetRecords
   * @param getRecords GetRecords, whose throttling answers its SDK does not retry (see [[KinesisClientFactory]])
   */
  def this(
      client: KinesisClient,
      getRecords: KinesisClient,
      http: SdkHttpClient,
      newAsyncClient: () => KinesisAsyncClient,
      target: String,
      streamArns: Map[String, String]) =
    this(new SdkKinesisApi.Clients(client, getRecords, http, newAsyncClient), target, None, streamArns)

  private def client: KinesisClient = clients.sync
  private def asyncClient: KinesisAsyncClient = clients.async

  override def counting(errors: RateLimitErrors): KinesisApi =
    new SdkKinesisApi(clients, target, Some(errors), streamArns)

  /** What each request of this client carries: the caller's count, if it keeps one. */
  private val requestOverrides = errors.map { e =>
    AwsRequestOverrideConfiguration.builder().putExecutionAttribute(RateLimitCounting.Errors, e).build()
  }

  private def counted[B <: AwsRequest.Builder](request: B): B = {
    requestOverrides.foreach(o => request.overrideConfiguration(o))
    request
  }

  /** Names `stream` in a request, by its ARN if it has one here, else by its name. */
  private def naming(stream: String)(byName: String => Any, byArn: String => Any): Unit =
    streamArns.get(stream) match {
      case Some(arn) => byArn(arn)
      case None => byName(stream)
    }

  override def describeStream(stream: String): StreamSummary = call("DescribeStreamSummary") {
    val request = counted(DescribeStreamSummaryRequest.builder())
    naming(stream)(request.streamName(_), request.streamARN(_))
    val summary = client.describeStreamSummary(request.build()).streamDescriptionSummary()
    StreamSummary(
      summary.streamName(),
      summary.streamARN(),
      summary.streamStatusAsString(),
      Option(summary.streamCreationTimestamp()).map(_.toEpochMilli).getOrElse(0L),
      Option(summary.openShardCount()).map(_.intValue).getOrElse(0),
      maxRecordBytes = Option(summary.maxRecordSizeInKiB()).map(_.longValue * 1024),
      keysIgnored = summary.recordDistributionStrategyAsString() == "AUTO"
    )
  }

  override def listShards(stream: String, pageSize: Int): Seq[ShardInfo] = call("ListShards") {
    val shards = Seq.newBuilder[ShardInfo]
    val first = counted(ListShardsRequest.builder().maxResults(pageSize))
    naming(stream)(first.streamName(_), first.streamARN(_))
    var request = first.build()
    var more = true
    while (more) {
      val response = client.listShards(request)
      response.shards().asScala.foreach { s =>
        val range = s.sequenceNumberRange()
        shards += ShardInfo(
          s.shardId(),
          Option(s.parentShardId()),
          Option(s.adjacentParentShardId()),
          range.startingSequenceNumber(),
          Option(range.endingSequenceNumber()),
          (BigInt(s.hashKeyRange().startingHashKey()), BigInt(s.hashKeyRange().endingHashKey()))
        )
      }
      Option(response.nextToken()) match {
        case Some(token) => request = counted(ListShardsRequest.builder().nextToken(token).maxResults(pageSize)).build()
        case None => more = false
      }
    }
    shards.result()
  }

  override def getShardIterator(stream: String, shardId: String, start: IteratorStart): String =
    call("GetShardIterator") {
      val request = counted(GetShardIteratorRequest.builder().shardId(shardId))
      naming(stream)(request.streamName(_), request.streamARN(_))
      start match {
        case IteratorStart.TrimHorizon => request.shardIteratorType(ShardIteratorType.TRIM_HORIZON)
        case IteratorStart.Latest => request.shardIteratorType(ShardIteratorType.LATEST)
        case IteratorStart.AtTimestamp(ms) =>
          request.shardIteratorType(ShardIteratorType.AT_TIMESTAMP).timestamp(java.time.Instant.ofEpochMilli(ms))
        case IteratorStart.AtSequenceNumber(seq) =>
          request.shardIteratorType(ShardIteratorType.AT_SEQUENCE_NUMBER).startingSequenceNumber(seq)
        case IteratorStart.AfterSequenceNumber(seq) =>
          request.shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER).startingSequenceNumber(seq)
      }
      try client.getShardIterator(request.build()).shardIterator()
      catch {
        // Kinesis refuses a sequence number that retention has trimmed.
        case e: InvalidArgumentException if isSequenceStart(start) =>
          throw new KinesisApiException.TrimmedSequence(e.getMessage, e)
      }
    }

  /**
   * The records are read from the answer's body by [[GetRecordsParsing]] on the `reads` client
   * ([[KinesisClientFactory]] adds it); without it (a client built otherwise, an answer without a body) the
   * SDK's records are returned.
   */
  override def getRecords(stream: String, shardId: String, iterator: String, limit: Int): RecordBatch =
    call("GetRecords") {
      val answer = new GetRecordsParsing.Answer
      val overrides = AwsRequestOverrideConfiguration.builder().putExecutionAttribute(GetRecordsParsing.Parsed, answer)
      errors.foreach(overrides.putExecutionAttribute(RateLimitCounting.Errors, _))
      val request =
        GetRecordsRequest.builder().shardIterator(iterator).limit(limit).overrideConfiguration(overrides.build())
      // The iterator names the stream; a stream read by ARN is named by it here too, as its policy may require.
      streamArns.get(stream).foreach(request.streamARN(_))
      clients.reads.getRecords(request.build())
      // The SDK's own response is empty by design (GetRecordsParsing gave it no fields): read as records, it
      // would say the shard ended. A client without the interceptor is a wiring mistake, not an answer.
      answer.batch.getOrElse(
        throw new IllegalStateException(
          "GetRecords succeeded but its answer was not read: the client lacks GetRecordsParsing's interceptor"))
    }

  override def putRecords(stream: String, records: Seq[PutRecord]): Seq[PutResult] = call("PutRecords") {
    val entries = records.map { r =>
      val entry =
        PutRecordsRequestEntry.builder().partitionKey(r.partitionKey).data(SdkBytes.fromByteArrayUnsafe(r.data))
      r.explicitHashKey.foreach(entry.explicitHashKey)
      entry.build()
    }
    val request = counted(PutRecordsRequest.builder().records(entries.asJava))
    naming(stream)(request.streamName(_), request.streamARN(_))
    val response = client.putRecords(request.build())
    response.records().asScala.toSeq.map { e =>
      PutResult(Option(e.shardId()), Option(e.sequenceNumber()), Option(e.errorCode()))
    }
  }

  override def describeConsumer(streamArn: String, consumerName: String): Option[ConsumerInfo] =
    describing(_.streamARN(streamArn).consumerName(consumerName))

  override def describeConsumerByArn(consumerArn: String): Option[ConsumerInfo] = describing(_.consumerARN(consumerArn))

  /** The consumer `identify` names in a DescribeStreamConsumer request, or None if there is none. */
  private def describing(
      identify: DescribeStreamConsumerRequest.Builder => DescribeStreamConsumerRequest.Builder): Option[ConsumerInfo] =
    try
      call("DescribeStreamConsumer") {
        val c = client
          .describeStreamConsumer(counted(identify(DescribeStreamConsumerRequest.builder())).build())
          .consumerDescription()
        Some(
          ConsumerInfo(
            c.consumerName(),
            c.consumerARN(),
            c.consumerStatusAsString(),
            millisOf(c.consumerCreationTimestamp())))
      }
    catch { case _: KinesisApiException.ResourceNotFound => None }

  override def registerConsumer(streamArn: String, consumerName: String): ConsumerInfo =
    call("RegisterStreamConsumer") {
      val c = client
        .registerStreamConsumer(
          counted(RegisterStreamConsumerRequest.builder().streamARN(streamArn).consumerName(consumerName)).build()
        )
        .consumer()
      ConsumerInfo(
        c.consumerName(),
        c.consumerARN(),
        c.consumerStatusAsString(),
        millisOf(c.consumerCreationTimestamp()))
    }

  override def listConsumers(streamArn: String): Seq[ConsumerInfo] = call("ListStreamConsumers") {
    val consumers = Seq.newBuilder[ConsumerInfo]
    var token = Option.empty[String]
    do {
      val request = counted(ListStreamConsumersRequest.builder().streamARN(streamArn))
      token.foreach(request.nextToken)
      val response = client.listStreamConsumers(request.build())
      response.consumers().asScala.foreach { c =>
        consumers += ConsumerInfo(
          c.consumerName(),
          c.consumerARN(),
          c.consumerStatusAsString(),
          millisOf(c.consumerCreationTimestamp()))
      }
      token = Option(response.nextToken())
    } while (token.isDefined)
    consumers.result()
  }

  override def deregisterConsumer(streamArn: String, consumerName: String): Unit =
    call("DeregisterStreamConsumer") {
      client.deregisterStreamConsumer(
        counted(DeregisterStreamConsumerRequest.builder().streamARN(streamArn).consumerName(consumerName)).build()
      )
    }

  override def subscribeToShard(consumerArn: String, shardId: String, start: IteratorStart): ShardSubscription =
    call("SubscribeToShard") {
      val position = StartingPosition.builder()
      start match {
        case IteratorStart.TrimHorizon => position.`type`(ShardIteratorType.TRIM_HORIZON)
        case IteratorStart.Latest => position.`type`(ShardIteratorType.LATEST)
        case IteratorStart.AtTimestamp(ms) =>
          position.`type`(ShardIteratorType.AT_TIMESTAMP).timestamp(java.time.Instant.ofEpochMilli(ms))
        case IteratorStart.AtSequenceNumber(seq) =>
          position.`type`(ShardIteratorType.AT_SEQUENCE_NUMBER).sequenceNumber(seq)
        case IteratorStart.AfterSequenceNumber(seq) =>
          position.`type`(ShardIteratorType.AFTER_SEQUENCE_NUMBER).sequenceNumber(seq)
      }
      val request =
        SubscribeToShardRequest.builder().consumerARN(consumerArn).shardId(shardId).startingPosition(position.build())
      val subscription = new SdkShardSubscription(
        failure =>
          countedIfThrottled(translate("SubscribeToShard", unwrap(failure), sequenceStart = isSequenceStart(start))),
        recordOf
      )
      subscription.start(handler => asyncClient.subscribeToShard(request.build(), handler))
      subscription
    }

  /** Closes the clients, those of every view of them too. */
  override def close(): Unit = clients.close()

  /** A subscription's failure: throttling counts as an attempt answered so (the SDK does not retry these). */
  private def countedIfThrottled(failure: Throwable): Throwable = {
    if (failure.isInstanceOf[KinesisApiException.Throttled]) errors.foreach(_.add(1))
    failure
  }

  /** Runs one SDK call and turns the failures the connector reacts to into [[KinesisApiException]]s. */
  private def call[T](action: String)(body: => T): T =
    try body
    catch {
      case e: SdkException => throw translate(action, e, sequenceStart = false)
      case e: CredentialsFailure => throw translate(action, e, sequenceStart = false)
    }

  /** The [[KinesisApiException]] for a failure of an SDK call; anything but an SdkException is rethrown. */
  private def translate(action: String, failure: Throwable, sequenceStart: Boolean): Throwable = failure match {
    case e: ResourceNotFoundException => new KinesisApiException.ResourceNotFound(e.getMessage, e)
    case e: ResourceInUseException => new KinesisApiException.InUse(e.getMessage, e)
    case e: ExpiredIteratorException => new KinesisApiException.ExpiredIterator(e.getMessage, e)
    case e: ProvisionedThroughputExceededException => new KinesisApiException.Throttled(e.getMessage, e)
    case e: LimitExceededException => new KinesisApiException.Throttled(e.getMessage, e)
    case e: KmsThrottlingException => new KinesisApiException.Throttled(e.getMessage, e)
    case e: InvalidArgumentException if sequenceStart => new KinesisApiException.TrimmedSequence(e.getMessage, e)
    case e if CredentialsFailure.in(e).isDefined =>
      new KinesisApiException.CredentialsUnavailable(CredentialsFailure.in(e).get)
    case e: AwsServiceException if CredentialsDiagnosis.rejectsCredentials(e) =>
      new KinesisApiException.CredentialsUnavailable(CredentialsDiagnosis.ofKinesis(signedWith, target, e))
    case e if fromCredentials(e) =>
      new KinesisApiException.CredentialsUnavailable(CredentialsDiagnosis.resolving(signedWith, e))
    case e: AwsServiceException if e.statusCode() == 403 || isAccessDenied(e) =>
      new KinesisApiException.AccessDenied(action, e.getMessage, e)
    case e: AwsServiceException if e.statusCode() == 429 => new KinesisApiException.Throttled(e.getMessage, e)
    // Validation errors, KMS keys disabled, missing or denied, and every other refusal of the request itself.
    case e: AwsServiceException if e.statusCode() >= 400 && e.statusCode() < 500 =>
      new KinesisApiException.Rejected(e.getMessage, e)
    case e: KinesisApiException => e
    // A connection refused or a host unknown, whichever client saw it: the SDK's synchronous client wraps it in
    // an SdkClientException, a subscription's asynchronous one may not.
    case e if causedByUnreachable(e) => new KinesisApiException.Unreachable(String.valueOf(e.getMessage), e)
    case e: SdkException => new KinesisApiException.Failed(e.getMessage, e)
    case e => new KinesisApiException.Failed(String.valueOf(e.getMessage), e)
  }

  /** The connector's credentials the client signs with, for a refusal of them (the SDK's default chain if unknown). */
  private lazy val signedWith: AwsCredentialsConfig =
    Credentials
      .configOf(client.serviceClientConfiguration().credentialsProvider())
      .getOrElse(AwsCredentialsConfig.DefaultChain)

  /**
   * A failure to get credentials that no provider of the connector's said (each of those throws a
   * [[CredentialsFailure]]): from STS assuming a role, or no provider of the chain had any.
   */
  private def fromCredentials(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(10).exists {
      case _: software.amazon.awssdk.services.sts.model.StsException => true
      case c: SdkClientException => String.valueOf(c.getMessage).startsWith("Unable to load credentials")
      case _ => false
    }

  private def isAccessDenied(e: AwsServiceException): Boolean =
    Option(e.awsErrorDetails()).flatMap(d => Option(d.errorCode())).exists(_.startsWith("AccessDenied"))

  private def causedByUnreachable(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(10).exists {
      case _: ConnectException | _: UnknownHostException => true
      case _ => false
    }
}

private object SdkKinesisApi {

  /**
   * The SDK clients a client and its views share: `reads` for GetRecords, `sync` for the other synchronous
   * calls, both over `http`; the asynchronous one built on first use. Thread-safe.
   */
  final class Clients(
      val sync: KinesisClient,
      val reads: KinesisClient,
      http: SdkHttpClient,
      newAsyncClient: () => KinesisAsyncClient) {
    @volatile private var asyncBuilt = false
    lazy val async: KinesisAsyncClient = {
      val built = newAsyncClient()
      asyncBuilt = true
      built
    }

    def close(): Unit = {
      sync.close()
      reads.close()
      http.close()
      if (asyncBuilt) async.close()
    }
  }

  def recordOf(r: Record): KinesisRecord =
    KinesisRecord(
      r.partitionKey(),
      r.data().asByteArrayUnsafe(),
      r.sequenceNumber(),
      Option(r.approximateArrivalTimestamp()).map(_.toEpochMilli).getOrElse(0L)
    )

  def millisOf(instant: java.time.Instant): Long = Option(instant).map(_.toEpochMilli).getOrElse(0L)

  def isSequenceStart(start: IteratorStart): Boolean = start match {
    case _: IteratorStart.AtSequenceNumber | _: IteratorStart.AfterSequenceNumber => true
    case _ => false
  }

  /** The failure inside the wrappers of asynchronous calls. */
  def unwrap(failure: Throwable): Throwable = failure match {
    case e @ (_: CompletionException | _: ExecutionException) if e.getCause != null => unwrap(e.getCause)
    case e => e
  }
}
