// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import java.net.URI
import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest
import java.util.concurrent.{ConcurrentHashMap, ExecutorService, Executors, ThreadFactory}
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.client.{ClientUse, KinesisApi, KinesisClientFactory}
import io.netty.handler.codec.http.HttpHeaders
import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient
import software.amazon.awssdk.http.Protocol
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.{KinesisAsyncClient, KinesisClient}

/**
 * A Kinesis endpoint for benchmarks, on loopback: it serves streams whose records it generates in memory
 * ([[StreamSpec]]), at memory speed, in the AWS SDK's wire formats ([[Wire]]), so that a benchmark measures its
 * reader rather than an emulator; and it lets a benchmark make what a long run meets happen on cue.
 *
 * It answers, over HTTP/1.1 and HTTP/2 on one port ([[SyntheticServer]]):
 *  - the data plane: DescribeStreamSummary, ListShards, GetShardIterator, GetRecords, PutRecords, PutRecord;
 *    with a stream's `limits`, as Kinesis does when a shard's limits are exceeded ([[ShardLimits]]), and when
 *    ListShards or DescribeStreamSummary are called more often than Kinesis allows ([[CallRate]]);
 *  - a stream's largest record: DescribeStreamSummary's `MaxRecordSizeInKiB`, UpdateMaxRecordSize, and puts
 *    of a larger record refused (PutRecords whole, as a request that fails validation);
 *  - resharding: SplitShard, MergeShards and UpdateShardCount, also as [[split]] and [[merge]] (and the
 *    stream's `updateShardCount`): the parents close (ListShards
 *    gives their ending sequence numbers, GetRecords at a closed shard's end no next iterator but its
 *    ChildShards), the children take the writes of their hash keys, each with limits of its own;
 *  - enhanced fan-out: RegisterStreamConsumer, DescribeStreamConsumer, ListStreamConsumers,
 *    DeregisterStreamConsumer (also [[deregisterConsumer]]), a consumer CREATING then ACTIVE after
 *    `consumerDelayMs`, and DELETING as long once deregistered; SubscribeToShard, whose events push records
 *    as they arrive ([[SyntheticSubscriptions]]: [[openSubscriptions]] counts them).
 * [[outage]] makes it unreachable, as a client meets an outage of Kinesis: see there.
 *
 * Not served: stream creation and deletion through the API (a benchmark calls [[create]]), tags,
 * retention, encryption. Stops with [[close]]; its threads are daemons.
 */
final class SyntheticKinesis private (pool: ExecutorService, consumerDelayMs: Long, subscriptionLifetimeMs: Long)
    extends AutoCloseable {
  import Requests._
  import SyntheticKinesis._

  private val streams = new ConcurrentHashMap[String, SyntheticStream]()
  private val calls = new ConcurrentHashMap[String, AtomicLong]()
  private val describeSummaryRate = new CallRate(CallRate.DescribeSummaryPerAccount)

  private val subscriptions = new SyntheticSubscriptions(subscriptionLifetimeMs, pollMs = 100)
  private val consumerCalls = new ConsumerCalls(streamOf, streamNamed, subscriptions, consumerDelayMs)
  private val server = new SyntheticServer(serve)
  server.bind()
  @volatile private var outageAnswer: Option[Outage] = None

  /** The endpoint to give the SDK and the connector (the `endpoint` option). */
  val endpoint: String = s"http://127.0.0.1:${server.port}"

  /** The connector's options to reach this endpoint (which takes any credentials). */
  val connectorOptions: Map[String, String] =
    Map("endpoint" -> endpoint, "region" -> "us-east-1", "awsAccessKey" -> "bench", "awsSecretKey" -> "bench")

  /**
   * A plain AWS SDK client of this endpoint, with the HTTP client the connector's has, and no retries:
   * its caller paces itself, and sees every refusal. The caller closes it.
   */
  def sdkClient(): KinesisClient =
    KinesisClient
      .builder()
      .httpClient(Apache5HttpClient.builder().maxConnections(1024).build())
      .region(Region.US_EAST_1)
      .endpointOverride(URI.create(endpoint))
      .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
      .overrideConfiguration(o => o.retryStrategy(s => s.maxAttempts(1)))
      .build()

  /** A client of the connector's own (as its tasks make one) for this endpoint, for `use`. The caller closes it. */
  def connectorClient(use: ClientUse = ClientUse.Writing): KinesisApi =
    KinesisClientFactory.create(
      AwsConfig("us-east-1", Some(endpoint), AwsCredentialsConfig.StaticKeys("bench", new Secret("bench"), None)),
      use)

  /**
   * A plain asynchronous AWS SDK client of this endpoint, for SubscribeToShard: HTTP/2 over Netty, as the
   * connector's, and no retries. The caller closes it.
   */
  def sdkAsyncClient(): KinesisAsyncClient =
    KinesisAsyncClient
      .builder()
      .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP2).maxConcurrency(1024))
      .region(Region.US_EAST_1)
      .endpointOverride(URI.create(endpoint))
      .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
      .overrideConfiguration(o => o.retryStrategy(s => s.maxAttempts(1)))
      .build()

  /** Adds a stream, ACTIVE at once, and returns it. */
  def create(spec: StreamSpec): SyntheticStream = {
    val stream = new SyntheticStream(spec, System.currentTimeMillis())
    require(streams.putIfAbsent(spec.name, stream) == null, s"stream ${spec.name} exists")
    stream
  }

  /**
   * How many calls of each operation were made so far, and of them (as `<operation> throttled`, `<operation>
   * refused`, or in an outage or by a failure of its own `<operation> unavailable`) how many were turned
   * down; `PutRecords records throttled` counts the records of PutRecords calls turned down one by one, and
   * `GetRecords records` the records GetRecords answers carried.
   * SubscribeToShard counts subscriptions asked for.
   */
  def callCounts: Map[String, Long] = calls.asScala.map { case (k, v) => k -> v.get }.toMap

  /** The stream of that name (to reshard it, or read what it holds). */
  def stream(name: String): SyntheticStream = streamNamed(name)

  /** Splits an open shard of a stream at the middle of its hash key range; returns the two children's ids. */
  def split(stream: String, shardId: String): Seq[String] = {
    val s = streamNamed(stream)
    s.split(shardOf(s, shardId)).map(_.id)
  }

  /** Merges two open shards of a stream whose hash key ranges are adjacent; returns the child's id. */
  def merge(stream: String, shardId: String, adjacentShardId: String): String = {
    val s = streamNamed(stream)
    s.merge(shardOf(s, shardId), shardOf(s, adjacentShardId)).id
  }

  /** Registers an enhanced fan-out consumer of a stream, as RegisterStreamConsumer does, and returns its ARN. */
  def registerConsumer(stream: String, consumerName: String): String =
    streamNamed(stream).consumers
      .register(consumerName, System.currentTimeMillis(), consumerDelayMs)
      .getOrElse(throw new IllegalArgumentException(s"consumer $consumerName of $stream exists"))
      .arn

  /**
   * Deregisters a consumer of a stream, as DeregisterStreamConsumer does: it is DELETING, its open
   * subscriptions end with ResourceNotFoundException, and new ones are refused. False if it had none of
   * that name.
   */
  def deregisterConsumer(stream: String, consumerName: String): Boolean =
    streamNamed(stream).consumers.named(consumerName, System.currentTimeMillis()).exists(consumerCalls.deregistered)

  /** How many SubscribeToShard subscriptions are open now. */
  def openSubscriptions: Int = subscriptions.count

  /**
   * Starts or ends an outage. While it lasts, by default ([[Outage.Unreachable]]) the endpoint is gone as a
   * host that died is: its port refuses connections, and the connections open when it began are closed (so
   * are the subscriptions over them, which the client sees fail). This is what the connector's outage path is
   * for (every call fails as `Unreachable`, a transient failure: `outageTimeout` runs, `KinesisHealth` reports
   * it, reads retry), and the SDK meets it at once rather than after its timeouts. [[Outage.Failing]] keeps
   * the port and answers every call 503 ServiceUnavailable (which the SDK retries before giving up), as a
   * Kinesis that fails its calls; open subscriptions are cut there too. Ending the outage listens again on the
   * same port; the streams keep what they had, and records written meanwhile are none.
   */
  def outage(on: Boolean, answer: Outage = Outage.Unreachable): Unit = synchronized {
    if (on && outageAnswer.isEmpty) {
      outageAnswer = Some(answer)
      server.unbind()
      subscriptions.cutAll()
      if (answer == Outage.Failing) server.bind()
    } else if (!on && outageAnswer.isDefined) {
      outageAnswer = None
      server.bind()
    }
  }

  /** Runs `body` during an outage ([[outage]]), which ends with it. */
  def during[T](answer: Outage = Outage.Unreachable)(body: => T): T = {
    outage(on = true, answer)
    try body
    finally outage(on = false)
  }

  override def close(): Unit = {
    server.close()
    subscriptions.close()
    pool.shutdownNow()
    ()
  }

  /** A request, on the server's event loop: answered on the pool, as building an answer may take a while. */
  private def serve(headers: HttpHeaders, body: Array[Byte], exchange: SyntheticServer.Exchange): Unit = {
    val operation = Option(headers.get("X-Amz-Target")).map(_.split('.').last)
    implicit val wire: Wire = Wire.of(Option(headers.get("Content-Type")))
    pool.execute { () =>
      try {
        val answer =
          try {
            operation.foreach(count(_))
            if (outageAnswer.contains(Outage.Failing))
              throw Refusal("ServiceUnavailableException", "Kinesis is unavailable (a synthetic outage)", status = 503)
            val request = wire.read(body)
            operation match {
              case Some("SubscribeToShard") => consumerCalls.subscribe(request, exchange)
              case Some(other) => Some(call(other, request))
              case None => throw Refusal("UnknownOperationException", "a request without X-Amz-Target")
            }
          } catch {
            case NonFatal(e) =>
              // A bug of the endpoint's shows as what Kinesis answers to one of its own: a 500.
              val r = e match {
                case refusal: Refusal => refusal
                case other => Refusal("InternalFailure", s"the synthetic Kinesis failed: $other", status = 500)
              }
              val outcome =
                if (r.code == Throttled || r.code == CallRate.LimitExceeded) "throttled"
                else if (r.status >= 500) "unavailable"
                else "refused"
              count(s"${operation.getOrElse("?")} $outcome")
              Some(
                Answer(
                  Some(r.code),
                  wire.write()(g => { field(g, "__type", r.code); field(g, "message", r.getMessage) }),
                  r.status))
          }
        answer.foreach { a =>
          exchange.answer(
            a.status,
            Seq("Content-Type" -> wire.contentType) ++ a.errorType.map("x-amzn-ErrorType" -> _),
            a.body)
        }
      } catch {
        case NonFatal(_) => () // the client went away
      }
    }
  }

  private def call(operation: String, request: Map[String, Any])(implicit wire: Wire): Answer = operation match {
    case "GetRecords" => getRecords(request)
    case "GetShardIterator" => getShardIterator(request)
    case "ListShards" => listShards(request)
    case "DescribeStreamSummary" => describeStreamSummary(request)
    case "PutRecords" => putRecords(request)
    case "PutRecord" => putRecord(request)
    case "SplitShard" => splitShard(request)
    case "MergeShards" => mergeShards(request)
    case "UpdateShardCount" => updateShardCount(request)
    case "UpdateMaxRecordSize" => updateMaxRecordSize(request)
    case "RegisterStreamConsumer" => consumerCalls.register(request)
    case "DescribeStreamConsumer" => consumerCalls.describe(request)
    case "ListStreamConsumers" => consumerCalls.list(request)
    case "DeregisterStreamConsumer" => consumerCalls.deregister(request)
    case other => throw Refusal("UnknownOperationException", s"the synthetic Kinesis does not serve $other")
  }

  private def count(what: String, n: Long = 1): Unit = calls.computeIfAbsent(what, _ => new AtomicLong()).addAndGet(n)

  // ---- operations ----

  private def describeStreamSummary(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    if (stream.spec.limits && !describeSummaryRate.admit())
      throw Refusal(CallRate.LimitExceeded, "Rate exceeded for DescribeStreamSummary in account 000000000000")
    ok(wire.write() { g =>
      g.writeFieldName("StreamDescriptionSummary")
      g.writeStartObject()
      field(g, "StreamName", stream.spec.name)
      field(g, "StreamARN", stream.arn)
      field(g, "StreamStatus", "ACTIVE")
      g.writeFieldName("StreamModeDetails")
      g.writeStartObject()
      field(g, "StreamMode", "PROVISIONED")
      g.writeEndObject()
      g.writeNumberField("RetentionPeriodHours", 24)
      wire.timestamp(g, "StreamCreationTimestamp", stream.createdAtMs)
      g.writeFieldName("EnhancedMonitoring")
      g.writeStartArray()
      g.writeEndArray()
      field(g, "EncryptionType", "NONE")
      g.writeNumberField("OpenShardCount", stream.openShards.size)
      g.writeNumberField("ConsumerCount", stream.consumers.list(System.currentTimeMillis()).size)
      g.writeNumberField("MaxRecordSizeInKiB", stream.maxRecordKiB)
      field(g, "RecordDistributionStrategy", if (stream.spec.keyless) "AUTO" else "USER_PARTITION_KEY")
      g.writeEndObject()
    })
  }

  private def listShards(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val (stream, from) = request.get("NextToken") match {
      case Some(token: String) =>
        token.split('|') match {
          case Array(name, index) => (streamNamed(name), index.toInt)
          case _ => throw Refusal("InvalidArgumentException", s"NextToken $token is not one this endpoint gave")
        }
      case _ => (streamOf(request), 0)
    }
    if (stream.spec.limits && !stream.listShardsRate.admit())
      throw Refusal(CallRate.LimitExceeded, s"Rate exceeded for ListShards of stream ${stream.spec.name}")
    val page = request.get("MaxResults").map(_.asInstanceOf[Long].toInt).getOrElse(1000).min(10000)
    val shards = stream.shards.slice(from, from + page)
    ok(wire.write(shards.size * 200) { g =>
      g.writeFieldName("Shards")
      g.writeStartArray()
      shards.foreach { shard =>
        g.writeStartObject()
        field(g, "ShardId", shard.id)
        shard.parents.headOption.foreach(p => field(g, "ParentShardId", p.id))
        shard.parents.drop(1).foreach(p => field(g, "AdjacentParentShardId", p.id))
        ShardAnswers.writeHashKeyRange(g, shard)
        g.writeFieldName("SequenceNumberRange")
        g.writeStartObject()
        field(g, "StartingSequenceNumber", shard.startingSequenceNumber)
        shard.endingSequenceNumber.foreach(field(g, "EndingSequenceNumber", _))
        g.writeEndObject()
        g.writeEndObject()
      }
      g.writeEndArray()
      if (from + page < stream.shards.size) field(g, "NextToken", s"${stream.spec.name}|${from + page}")
    })
  }

  private def getShardIterator(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    val shard = shardOf(stream, text(request, "ShardId"))
    if (!shard.limits.forall(_.admitGetShardIterator()))
      throw Refusal(Throttled, s"Rate exceeded for shard ${shard.id} in stream ${stream.spec.name}")
    val position = text(request, "ShardIteratorType") match {
      case "AT_SEQUENCE_NUMBER" => recordNamed(shard, text(request, "StartingSequenceNumber"))
      case "AFTER_SEQUENCE_NUMBER" => recordNamed(shard, text(request, "StartingSequenceNumber")) + 1
      case _ => startOf(shard, request)
    }
    ok(wire.write()(g => field(g, "ShardIterator", iterator(shard, position))))
  }

  private def getRecords(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val (shard, from) = text(request, "ShardIterator").split('|') match {
      case Array("synthetic", name, shardIndex, position) =>
        (streamNamed(name).shards(shardIndex.toInt), position.toLong)
      case _ => throw Refusal("InvalidArgumentException", "ShardIterator is not one this endpoint gave")
    }
    if (!shard.limits.forall(_.admitGetRecords()))
      throw Refusal(Throttled, s"Rate exceeded for shard ${shard.id} in stream ${shard.stream.spec.name}")
    val limit = request.get("Limit").map(_.asInstanceOf[Long]).getOrElse(10000L).min(10000L)
    val closed = shard.isClosed // read before the end: a closed shard's end is final
    val end = shard.end
    val (until, bytes) = ShardAnswers.until(shard, from, end, limit, MaxGetRecordsBytes)
    shard.limits.foreach(_.chargeRead(bytes))
    count("GetRecords records", until - from)
    val now = System.currentTimeMillis()
    ok(wire.write((bytes + (until - from) * 120 + 200).toInt) { g =>
      ShardAnswers.writeRecords(g, wire, shard, from, until)
      // A closed shard read to its end has no next iterator, but the shards that follow it.
      if (closed && until == end) ShardAnswers.writeChildShards(g, shard)
      else field(g, "NextShardIterator", iterator(shard, until))
      g.writeNumberField("MillisBehindLatest", ShardAnswers.millisBehind(shard, until, end, now))
    })
  }

  private def putRecords(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    val entries = request.get("Records") match {
      case Some(records: Seq[Any] @unchecked) => records.map(_.asInstanceOf[Map[String, Any]])
      case _ => throw Refusal("InvalidArgumentException", "PutRecords needs Records")
    }
    val now = System.currentTimeMillis()
    entries.foreach(entry => checkSize(stream, entry)) // as a request's validation: refused whole
    val results = entries.map(entry => put(stream, entry, now))
    val throttled = results.count(_.isLeft)
    if (throttled > 0) count("PutRecords records throttled", throttled.toLong)
    ok(wire.write(entries.size * 100) { g =>
      g.writeNumberField("FailedRecordCount", results.count(_.isLeft))
      g.writeFieldName("Records")
      g.writeStartArray()
      results.foreach { result =>
        g.writeStartObject()
        result match {
          case Right((shardId, sequenceNumber)) =>
            field(g, "SequenceNumber", sequenceNumber)
            field(g, "ShardId", shardId)
          case Left(refusal) =>
            field(g, "ErrorCode", refusal.code)
            field(g, "ErrorMessage", refusal.getMessage)
        }
        g.writeEndObject()
      }
      g.writeEndArray()
      field(g, "EncryptionType", "NONE")
    })
  }

  private def putRecord(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    checkSize(stream, request)
    put(stream, request, System.currentTimeMillis()) match {
      case Right((shardId, sequenceNumber)) =>
        ok(wire.write() { g =>
          field(g, "ShardId", shardId)
          field(g, "SequenceNumber", sequenceNumber)
          field(g, "EncryptionType", "NONE")
        })
      case Left(refusal) => throw refusal
    }
  }

  /** Refuses a record larger than the stream takes now, naming both sizes. */
  private def checkSize(stream: SyntheticStream, entry: Map[String, Any]): Unit = {
    val size = dataOf(entry).length.toLong + text(entry, "PartitionKey").getBytes(UTF_8).length
    val limit = stream.maxRecordKiB * 1024L
    if (size > limit)
      throw Refusal(
        "ValidationException",
        s"Record size $size bytes exceeds the maximum record size of stream ${stream.spec.name}: " +
          s"${stream.maxRecordKiB} KiB")
  }

  private def dataOf(entry: Map[String, Any]): Array[Byte] = entry.get("Data") match {
    case Some(bytes: Array[Byte]) => bytes
    case Some(base64: String) => java.util.Base64.getDecoder.decode(base64) // JSON's blobs
    case _ => throw Refusal("InvalidArgumentException", "a record needs Data")
  }

  /** One record written: its shard and sequence number, or why Kinesis turned it down. */
  private def put(stream: SyntheticStream, entry: Map[String, Any], nowMs: Long): Either[Refusal, (String, String)] = {
    val data = dataOf(entry)
    val partitionKey = text(entry, "PartitionKey")
    val hashKey = entry.get("ExplicitHashKey") match {
      case Some(key: String) => BigInt(key)
      case _ => BigInt(1, MessageDigest.getInstance("MD5").digest(partitionKey.getBytes(UTF_8)))
    }
    val size = data.length.toLong + partitionKey.getBytes(UTF_8).length
    var written: Option[Either[Refusal, (String, String)]] = None
    while (written.isEmpty) { // a shard closed by a split or merge meanwhile: its child owns the key now
      val shard = stream.shardFor(hashKey)
      if (!shard.limits.forall(_.admitWrite(size)))
        written = Some(Left(Refusal(Throttled, s"Rate exceeded for shard ${shard.id} in stream ${stream.spec.name}")))
      else written = shard.append(data, partitionKey, nowMs).map(seq => Right((shard.id, seq)))
    }
    written.get
  }

  private def splitShard(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    val shard = openShardOf(stream, text(request, "ShardToSplit"))
    val at = BigInt(text(request, "NewStartingHashKey"))
    if (at <= shard.hashKeys._1 || at > shard.hashKeys._2)
      throw Refusal("InvalidArgumentException", s"NewStartingHashKey $at is not inside ${shard.id}'s hash key range")
    stream.split(shard, Some(at))
    ok(wire.write()(_ => ()))
  }

  private def mergeShards(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    val shard = openShardOf(stream, text(request, "ShardToMerge"))
    val adjacent = openShardOf(stream, text(request, "AdjacentShardToMerge"))
    if (shard.hashKeys._2 + 1 != adjacent.hashKeys._1 && adjacent.hashKeys._2 + 1 != shard.hashKeys._1)
      throw Refusal("InvalidArgumentException", s"Shards ${shard.id} and ${adjacent.id} are not adjacent")
    stream.merge(shard, adjacent)
    ok(wire.write()(_ => ()))
  }
  private def updateShardCount(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    val current = stream.openShards.size
    val target = request.get("TargetShardCount") match {
      case Some(n: Long) if n >= (current + 1) / 2 && n <= current * 2 => n.toInt
      case other =>
        throw Refusal("InvalidArgumentException", s"TargetShardCount $other: from half to double $current")
    }
    stream.updateShardCount(target)
    ok(wire.write() { g =>
      field(g, "StreamName", stream.spec.name)
      field(g, "StreamARN", stream.arn)
      g.writeNumberField("CurrentShardCount", current)
      g.writeNumberField("TargetShardCount", target)
    })
  }

  private def updateMaxRecordSize(request: Map[String, Any])(implicit wire: Wire): Answer = {
    val stream = streamOf(request)
    stream.maxRecordKiB = request.get("MaxRecordSizeInKiB") match {
      case Some(n: Long) if StreamSpec.MaxRecordKiB.contains(n) => n.toInt
      case other => throw Refusal("ValidationException", s"MaxRecordSizeInKiB $other: from 1024 to 10240")
    }
    ok(wire.write()(_ => ()))
  }

  // ---- helpers ----

  private def streamNamed(name: String): SyntheticStream =
    Option(streams.get(name)).getOrElse(throw Refusal("ResourceNotFoundException", s"Stream $name not found"))

  /** The stream a request names, by its name or its ARN. */
  private def streamOf(request: Map[String, Any]): SyntheticStream = request.get("StreamName") match {
    case Some(name: String) => streamNamed(name)
    case _ =>
      request.get("StreamARN") match {
        case Some(arn: String) => streamNamed(arn.split('/').last)
        case _ => throw Refusal("InvalidArgumentException", "StreamName or StreamARN is required")
      }
  }

  private def iterator(shard: SyntheticShard, position: Long): String =
    s"synthetic|${shard.stream.spec.name}|${shard.index}|$position"

}

object SyntheticKinesis {
  val Throttled = "ProvisionedThroughputExceededException"

  /** The most record data one GetRecords answer carries, as Kinesis'. */
  val MaxGetRecordsBytes: Long = 10L * 1024 * 1024

  /**
   * A synthetic Kinesis on a free port of 127.0.0.1, answering on `threads` threads.
   *
   * @param consumerDelayMs        how long a consumer is CREATING after its registration, and DELETING after
   *                               its deregistration (Kinesis: some seconds)
   * @param subscriptionLifetimeMs how long a SubscribeToShard subscription lasts (Kinesis: five minutes)
   */
  def start(
      threads: Int = 32,
      consumerDelayMs: Long = 500,
      subscriptionLifetimeMs: Long = 5L * 60 * 1000): SyntheticKinesis = {
    val counter = new AtomicInteger()
    val pool = Executors.newFixedThreadPool(
      threads,
      new ThreadFactory {
        def newThread(r: Runnable): Thread = {
          val thread = new Thread(r, s"synthetic-kinesis-${counter.incrementAndGet()}")
          thread.setDaemon(true)
          thread
        }
      }
    )
    new SyntheticKinesis(pool, consumerDelayMs, subscriptionLifetimeMs)
  }

  /** What an [[SyntheticKinesis.outage]] answers. */
  sealed trait Outage

  object Outage {

    /** Connections refused, and those open closed. */
    case object Unreachable extends Outage

    /** Every call answered 503 ServiceUnavailable; open subscriptions cut. */
    case object Failing extends Outage
  }
}
