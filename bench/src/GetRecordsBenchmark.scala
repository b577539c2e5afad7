// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.lang.management.ManagementFactory
import java.net.URI

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.bench.synthetic.Wire
import io.github.sparkkinesis.client.{ClientUse, KinesisClientFactory, KinesisRecord}
import io.github.sparkkinesis.testing.AwsStub
import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.model.GetRecordsRequest
import software.amazon.awssdk.services.kinesis.KinesisClient

/**
 * What a GetRecords call costs its caller between the bytes on the wire and the connector's records, per
 * record: a local endpoint answers every call with the same answer (CBOR, as Kinesis writes it for the SDK),
 * and three readers call it in turn, each timed by the CPU of its own thread (the endpoint's is not counted):
 *  - `sdk`: the plain AWS SDK's GetRecords, its records left as the SDK's objects (the SDK's own cost);
 *  - `sdk + records`: the same, each record then made into the connector's record (the connector's reading
 *    before it read answers itself: data as the SDK's array, key and sequence number its Strings);
 *  - `connector`: the connector's client, which reads the answer's body itself (GetRecordsParsing).
 * The HTTP exchange, signing and the SDK's pipeline are in all three. Cases: records of 100 B (10,000 an
 * answer), 1 KB (5,000), 50 KB (200) and 1 MiB (9), answers of 1 to 10 MB as Kinesis gives them. Each
 * reader is measured in rounds of a second, interleaved, after a warm-up; the median round is reported.
 * Prints a table and writes bench/results/getrecords-benchmark.json.
 * Usage: dev/bench getrecords [rounds=10] [warmUpSeconds=5]
 */
object GetRecordsBenchmark {

  final case class Case(name: String, recordBytes: Int, records: Int)

  val Cases: Seq[Case] = Seq(
    Case("100 B", 100, 10000),
    Case("1 KB", 1000, 5000),
    Case("50 KB", 50 * 1000, 200),
    Case("1 MiB", 1024 * 1024, 9))

  /** A reader's median round: CPU microseconds of its thread a record, and records a second. */
  final case class Reading(reader: String, cpuMicrosPerRecord: Double, recordsPerSecond: Double)

  final case class Result(kase: Case, readings: Seq[Reading]) {
    def of(reader: String): Reading = readings.find(_.reader == reader).get
  }

  val Readers: Seq[String] = Seq("sdk", "sdk + records", "connector")

  def main(args: Array[String]): Unit = {
    val rounds = args.lift(0).map(_.toInt).getOrElse(10)
    val warmUpSeconds = args.lift(1).map(_.toDouble).getOrElse(5.0)
    val results = run(Cases, rounds, warmUpSeconds, roundSeconds = 1.0)
    report(results, s"dev/bench getrecords $rounds ${warmUpSeconds.toInt}")
  }

  def run(cases: Seq[Case], rounds: Int, warmUpSeconds: Double, roundSeconds: Double): Seq[Result] = {
    @volatile var body: Array[Byte] = Array.emptyByteArray
    val server = new AwsStub(_ => AwsStub.Answer(200, body, Map("Content-Type" -> Wire.Cbor.contentType)))
    val endpoint = server.endpoint
    val sdk = KinesisClient
      .builder()
      .httpClient(Apache5HttpClient.builder().build())
      .region(Region.US_EAST_1)
      .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
      .endpointOverride(URI.create(endpoint))
      .build()
    val connector = KinesisClientFactory.create(
      AwsConfig("us-east-1", Some(endpoint), AwsCredentialsConfig.StaticKeys("bench", new Secret("bench"), None)),
      ClientUse.Reading)
    try
      cases.map { kase =>
        body = answer(kase)
        val calls: Map[String, () => Int] = Map(
          "sdk" -> (() => sdk.getRecords(request).records().size),
          "sdk + records" -> (() => recordsOf(sdk).size),
          "connector" -> (() => connector.getRecords("bench", "shardId-000000000000", "iterator", 10000).records.size)
        )
        Readers.foreach(r => measure(calls(r), warmUpSeconds))
        val byReader = (1 to rounds).flatMap(_ => Readers.map(r => r -> measure(calls(r), roundSeconds))).groupBy(_._1)
        val readings = Readers.map { r =>
          val median = byReader(r).map(_._2).sortBy(_._1).apply(rounds / 2)
          Reading(r, median._1, median._2)
        }
        println(
          f"${kase.name}%6s: " + readings
            .map(r => f"${r.reader} ${r.cpuMicrosPerRecord}%.3f µs/record (${r.recordsPerSecond}%.0f/s)")
            .mkString(", "))
        Result(kase, readings)
      }
    finally {
      connector.close()
      sdk.close()
      server.close()
    }
  }

  private val request = GetRecordsRequest.builder().shardIterator("iterator").limit(10000).build()

  private def recordsOf(sdk: KinesisClient): Vector[KinesisRecord] = {
    val out = Vector.newBuilder[KinesisRecord]
    sdk.getRecords(request).records().forEach { r =>
      out += KinesisRecord(
        r.partitionKey(),
        r.data().asByteArrayUnsafe(),
        r.sequenceNumber(),
        r.approximateArrivalTimestamp().toEpochMilli)
    }
    out.result()
  }

  /** Calls `call` for `seconds`: its thread's CPU microseconds a record, and records a second. */
  private def measure(call: () => Int, seconds: Double): (Double, Double) = {
    val threads = ManagementFactory.getThreadMXBean
    val start = System.nanoTime()
    val cpu0 = threads.getCurrentThreadCpuTime
    var records = 0L
    while (System.nanoTime() - start < seconds * 1e9) records += call()
    val cpu = threads.getCurrentThreadCpuTime - cpu0
    val wall = (System.nanoTime() - start) / 1e9
    (cpu / 1e3 / math.max(1L, records), records / wall)
  }

  /** A GetRecords answer of `kase`, as Kinesis writes it in CBOR. */
  def answer(kase: Case): Array[Byte] = {
    val random = new scala.util.Random(7)
    val data = Array.fill(kase.recordBytes)((random.nextInt(26) + 'a').toByte)
    Wire.Cbor.write(kase.records * (kase.recordBytes + 120)) { g =>
      g.writeFieldName("Records")
      g.writeStartArray()
      (0 until kase.records).foreach { i =>
        g.writeStartObject()
        g.writeStringField("SequenceNumber", f"4959033827149025660855969253836157109592157598913$i%07d")
        Wire.Cbor.timestamp(g, "ApproximateArrivalTimestamp", 1700000000000L + i)
        g.writeBinaryField("Data", data)
        g.writeStringField("PartitionKey", s"key-${i % 1000}")
        g.writeEndObject()
      }
      g.writeEndArray()
      g.writeStringField("NextShardIterator", "next-iterator")
      g.writeNumberField("MillisBehindLatest", 0L)
    }
  }

  private def report(results: Seq[Result], command: String): Unit = {
    println()
    println("CPU of the calling thread a record, µs (median of the rounds); connector / SDK")
    results.foreach { r =>
      val sdk = r.of("sdk").cpuMicrosPerRecord
      println(
        f"${r.kase.name}%6s  sdk $sdk%.3f  sdk + records ${r.of("sdk + records").cpuMicrosPerRecord}%.3f  " +
          f"connector ${r.of("connector").cpuMicrosPerRecord}%.3f  (${r.of("connector").cpuMicrosPerRecord / sdk}%.2f)")
    }
    def json(r: Result): String = {
      val readings = r.readings
        .map(x =>
          f""""${x.reader}": {"cpuMicrosPerRecord": ${x.cpuMicrosPerRecord}%.4f, "recordsPerSecond": ${x.recordsPerSecond}%.0f}""")
        .mkString(", ")
      s"""{"case": "${r.kase.name}", "recordBytes": ${r.kase.recordBytes}, "recordsPerAnswer": ${r.kase.records}, $readings}"""
    }
    BenchKinesis.saveResults(
      "getrecords-benchmark.json",
      command,
      "a local endpoint in the benchmark's JVM answering every GetRecords call with the same CBOR answer",
      Seq(s""""cases": [\n    ${results.map(json).mkString(",\n    ")}\n  ]""")
    )
  }
}
