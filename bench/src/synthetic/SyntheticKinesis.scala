// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import java.net.{InetAddress, InetSocketAddress, URI}
import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest
import java.util.concurrent.{ConcurrentHashMap, ExecutorService, Executors, ThreadFactory}
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.sun.net.httpserver.{HttpExchange, HttpServer}
import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.thirdparty.jackson.dataformat.cbor.CBORGenerator

/**
 * A Kinesis endpoint for benchmarks, on loopback: it serves the data plane of streams whose records it
 * generates in memory ([[StreamSpec]]), at memory speed, in the AWS SDK's wire format ([[Cbor]]), so that a
 * benchmark measures its reader rather than an emulator. It answers DescribeStreamSummary, ListShards,
 * GetShardIterator, GetRecords, PutRecords and PutRecord; with a stream's `limits`, as Kinesis does when a
 * shard's limits are exceeded ([[ShardLimits]]). Nothing else (no resharding, consumers or SubscribeToShard):
 * the emulator tests cover behaviour, this measures.
 *
 * Stops with [[close]]; its threads are daemons.
 */
final class SyntheticKinesis private (server: HttpServer, pool: ExecutorService) extends AutoCloseable {
  import SyntheticKinesis._

  private val streams = new ConcurrentHashMap[String, SyntheticStream]()
  private val calls = new ConcurrentHashMap[String, AtomicLong]()

  /** The endpoint to give the SDK and the connector (the `endpoint` option). */
  val endpoint: String = s"http://127.0.0.1:${server.getAddress.getPort}"

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

  /** Adds a stream, ACTIVE at once, and returns it. */
  def create(spec: StreamSpec): SyntheticStream = {
    val stream = new SyntheticStream(spec, System.currentTimeMillis())
    require(streams.putIfAbsent(spec.name, stream) == null, s"stream ${spec.name} exists")
    stream
  }

  /**
   * How many calls of each operation were made so far, and of them (as `<operation> throttled` or `<operation>
   * refused`) how many were turned down; `PutRecords records throttled` counts the records of PutRecords
   * calls turned down one by one.
   */
  def callCounts: Map[String, Long] = calls.asScala.map { case (k, v) => k -> v.get }.toMap

  override def close(): Unit = {
    server.stop(0)
    pool.shutdownNow()
  }

  private[synthetic] def handle(exchange: HttpExchange): Unit =
    try {
      val body = exchange.getRequestBody.readAllBytes()
      val operation = Option(exchange.getRequestHeaders.getFirst("X-Amz-Target")).map(_.split('.').last)
      val answer =
        try {
          val request = Cbor.read(body)
          operation match {
            case Some("GetRecords") => getRecords(request)
            case Some("GetShardIterator") => getShardIterator(request)
            case Some("ListShards") => listShards(request)
            case Some("DescribeStreamSummary") => describeStreamSummary(request)
            case Some("PutRecords") => putRecords(request)
            case Some("PutRecord") => putRecord(request)
            case other => throw Refusal("UnknownOperationException", s"the synthetic Kinesis does not serve $other")
          }
        } catch {
          case r: Refusal =>
            count(s"${operation.getOrElse("?")} ${if (r.code == Throttled) "throttled" else "refused"}")
            Answer(Some(r.code), Cbor.write()(g => { field(g, "__type", r.code); field(g, "message", r.getMessage) }))
        }
      operation.foreach(count(_))
      val headers = exchange.getResponseHeaders
      headers.set("Content-Type", Cbor.ContentType)
      answer.errorType.foreach(headers.set("x-amzn-ErrorType", _))
      exchange.sendResponseHeaders(answer.status, answer.body.length.toLong)
      exchange.getResponseBody.write(answer.body)
    } catch {
      case NonFatal(_) => () // the client went away
    } finally exchange.close()

  private def count(what: String, n: Long = 1): Unit = calls.computeIfAbsent(what, _ => new AtomicLong()).addAndGet(n)

  // ---- operations ----

  private def describeStreamSummary(request: Map[String, Any]): Answer = {
    val stream = streamOf(request)
    ok(Cbor.write() { g =>
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
      g.writeNumberField("StreamCreationTimestamp", stream.createdAtMs)
      g.writeFieldName("EnhancedMonitoring")
      g.writeStartArray()
      g.writeEndArray()
      field(g, "EncryptionType", "NONE")
      g.writeNumberField("OpenShardCount", stream.shards.size)
      g.writeNumberField("ConsumerCount", 0)
      g.writeEndObject()
    })
  }

  private def listShards(request: Map[String, Any]): Answer = {
    val (stream, from) = request.get("NextToken") match {
      case Some(token: String) =>
        token.split('|') match {
          case Array(name, index) => (streamNamed(name), index.toInt)
          case _ => throw Refusal("InvalidArgumentException", s"NextToken $token is not one this endpoint gave")
        }
      case _ => (streamOf(request), 0)
    }
    val page = request.get("MaxResults").map(_.asInstanceOf[Long].toInt).getOrElse(1000).min(10000)
    val shards = stream.shards.slice(from, from + page)
    ok(Cbor.write(shards.size * 200) { g =>
      g.writeFieldName("Shards")
      g.writeStartArray()
      shards.foreach { shard =>
        g.writeStartObject()
        field(g, "ShardId", shard.id)
        g.writeFieldName("HashKeyRange")
        g.writeStartObject()
        field(g, "StartingHashKey", shard.hashKeys._1.toString)
        field(g, "EndingHashKey", shard.hashKeys._2.toString)
        g.writeEndObject()
        g.writeFieldName("SequenceNumberRange")
        g.writeStartObject()
        field(g, "StartingSequenceNumber", shard.startingSequenceNumber)
        g.writeEndObject()
        g.writeEndObject()
      }
      g.writeEndArray()
      if (from + page < stream.shards.size) field(g, "NextToken", s"${stream.spec.name}|${from + page}")
    })
  }

  private def getShardIterator(request: Map[String, Any]): Answer = {
    val stream = streamOf(request)
    val shard = shardOf(stream, text(request, "ShardId"))
    if (!shard.limits.forall(_.admitGetShardIterator()))
      throw Refusal(Throttled, s"Rate exceeded for shard ${shard.id} in stream ${stream.spec.name}")
    def sequenceNumber = {
      val named = text(request, "StartingSequenceNumber")
      shard.recordOf(named).filter(_ <= shard.end).getOrElse {
        throw Refusal("InvalidArgumentException", s"StartingSequenceNumber $named is not of shard ${shard.id}")
      }
    }
    val position = text(request, "ShardIteratorType") match {
      case "TRIM_HORIZON" => 0L
      case "LATEST" => shard.end
      case "AT_SEQUENCE_NUMBER" => sequenceNumber
      case "AFTER_SEQUENCE_NUMBER" => sequenceNumber + 1
      case "AT_TIMESTAMP" =>
        request.get("Timestamp") match {
          case Some(ms: Long) => shard.firstArrivedAtOrAfter(ms)
          case Some(seconds: Double) => shard.firstArrivedAtOrAfter((seconds * 1000).toLong)
          case _ => throw Refusal("InvalidArgumentException", "AT_TIMESTAMP needs a Timestamp")
        }
      case other => throw Refusal("InvalidArgumentException", s"ShardIteratorType $other")
    }
    ok(Cbor.write()(g => field(g, "ShardIterator", iterator(shard, position))))
  }

  private def getRecords(request: Map[String, Any]): Answer = {
    val (shard, from) = text(request, "ShardIterator").split('|') match {
      case Array("synthetic", name, shardIndex, position) =>
        (streamNamed(name).shards(shardIndex.toInt), position.toLong)
      case _ => throw Refusal("InvalidArgumentException", "ShardIterator is not one this endpoint gave")
    }
    if (!shard.limits.forall(_.admitGetRecords()))
      throw Refusal(Throttled, s"Rate exceeded for shard ${shard.id} in stream ${shard.stream.spec.name}")
    val limit = request.get("Limit").map(_.asInstanceOf[Long]).getOrElse(10000L).min(10000L)
    val end = shard.end
    var until = from
    var bytes = 0L
    while (until < end && until - from < limit && bytes < MaxGetRecordsBytes) {
      bytes += shard.dataBytes(until)
      until += 1
    }
    if (bytes > MaxGetRecordsBytes) { until -= 1; bytes -= shard.dataBytes(until) }
    shard.limits.foreach(_.chargeRead(bytes))
    val now = System.currentTimeMillis()
    ok(Cbor.write((bytes + (until - from) * 120 + 200).toInt) { g =>
      g.writeFieldName("Records")
      g.writeStartArray()
      var n = from
      shard.foreachRecord(from, until) { (data, partitionKey, arrivalMs) =>
        g.writeStartObject()
        field(g, "SequenceNumber", shard.sequenceNumber(n))
        g.writeNumberField("ApproximateArrivalTimestamp", arrivalMs)
        g.writeFieldName("Data")
        g.writeBinary(data)
        field(g, "PartitionKey", partitionKey)
        g.writeEndObject()
        n += 1
      }
      g.writeEndArray()
      field(g, "NextShardIterator", iterator(shard, until))
      g.writeNumberField("MillisBehindLatest", if (until >= end) 0L else math.max(0L, now - shard.arrivalMs(until)))
    })
  }

  private def putRecords(request: Map[String, Any]): Answer = {
    val stream = streamOf(request)
    val entries = request.get("Records") match {
      case Some(records: Seq[Any] @unchecked) => records.map(_.asInstanceOf[Map[String, Any]])
      case _ => throw Refusal("InvalidArgumentException", "PutRecords needs Records")
    }
    val now = System.currentTimeMillis()
    val results = entries.map(entry => put(stream, entry, now))
    val throttled = results.count(_.isLeft)
    if (throttled > 0) count("PutRecords records throttled", throttled.toLong)
    ok(Cbor.write(entries.size * 100) { g =>
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

  private def putRecord(request: Map[String, Any]): Answer =
    put(streamOf(request), request, System.currentTimeMillis()) match {
      case Right((shardId, sequenceNumber)) =>
        ok(Cbor.write() { g =>
          field(g, "ShardId", shardId)
          field(g, "SequenceNumber", sequenceNumber)
          field(g, "EncryptionType", "NONE")
        })
      case Left(refusal) => throw refusal
    }

  /** One record written: its shard and sequence number, or why Kinesis turned it down. */
  private def put(stream: SyntheticStream, entry: Map[String, Any], nowMs: Long): Either[Refusal, (String, String)] = {
    val data = entry.get("Data") match {
      case Some(bytes: Array[Byte]) => bytes
      case _ => throw Refusal("InvalidArgumentException", "a record needs Data")
    }
    val partitionKey = text(entry, "PartitionKey")
    val hashKey = entry.get("ExplicitHashKey") match {
      case Some(key: String) => BigInt(key)
      case _ => BigInt(1, MessageDigest.getInstance("MD5").digest(partitionKey.getBytes(UTF_8)))
    }
    val shard = stream.shardFor(hashKey)
    val size = data.length.toLong + partitionKey.getBytes(UTF_8).length
    if (!shard.limits.forall(_.admitWrite(size)))
      Left(Refusal(Throttled, s"Rate exceeded for shard ${shard.id} in stream ${stream.spec.name}"))
    else Right((shard.id, shard.append(data, partitionKey, nowMs)))
  }

  // ---- helpers ----

  private def streamNamed(name: String): SyntheticStream =
    Option(streams.get(name)).getOrElse(throw Refusal("ResourceNotFoundException", s"Stream $name not found"))

  private def streamOf(request: Map[String, Any]): SyntheticStream = request.get("StreamName") match {
    case Some(name: String) => streamNamed(name)
    case _ =>
      request.get("StreamARN") match {
        case Some(arn: String) => streamNamed(arn.split('/').last)
        case _ => throw Refusal("InvalidArgumentException", "StreamName or StreamARN is required")
      }
  }

  private def shardOf(stream: SyntheticStream, shardId: String): SyntheticShard =
    stream.shards
      .find(_.id == shardId)
      .getOrElse(throw Refusal("ResourceNotFoundException", s"Shard $shardId in stream ${stream.spec.name} not found"))

  private def text(request: Map[String, Any], name: String): String = request.get(name) match {
    case Some(value: String) => value
    case _ => throw Refusal("InvalidArgumentException", s"$name is required")
  }

  private def iterator(shard: SyntheticShard, position: Long): String =
    s"synthetic|${shard.stream.spec.name}|${shard.index}|$position"

  private def field(g: CBORGenerator, name: String, value: String): Unit = g.writeStringField(name, value)

  private def ok(body: Array[Byte]): Answer = Answer(None, body)
}

object SyntheticKinesis {
  val Throttled = "ProvisionedThroughputExceededException"

  /** The most record data one GetRecords answer carries, as Kinesis'. */
  val MaxGetRecordsBytes: Long = 10L * 1024 * 1024

  /** A synthetic Kinesis on a free port of 127.0.0.1, serving on `threads` threads. */
  def start(threads: Int = 32): SyntheticKinesis = {
    // The JDK's server writes an answer's head and body apart: with Nagle's algorithm on, the body waits for
    // the client's delayed acknowledgement of the head, 40 ms on Linux, and every call took that long.
    System.setProperty("sun.net.httpserver.nodelay", "true")
    val server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress, 0), 256)
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
    server.setExecutor(pool)
    val kinesis = new SyntheticKinesis(server, pool)
    server.createContext("/", exchange => kinesis.handle(exchange))
    server.start()
    kinesis
  }

  /** What the endpoint answers: a body, and an error's type, with which it is a 400 as Kinesis' refusals are. */
  private final case class Answer(errorType: Option[String], body: Array[Byte]) {
    def status: Int = if (errorType.isDefined) 400 else 200
  }

  /** A call Kinesis turns down, as it names the error. */
  private final case class Refusal(code: String, message: String) extends RuntimeException(message)
}
