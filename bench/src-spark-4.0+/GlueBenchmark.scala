// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.io.ByteArrayOutputStream
import java.lang.management.ManagementFactory

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.aws.AwsCredentialsConfig
import io.github.sparkkinesis.glue._
import io.github.sparkkinesis.glue.avro.AvroSchemas
import org.apache.avro.generic.{GenericData, GenericDatumWriter, GenericRecord}
import org.apache.avro.io.EncoderFactory
import org.apache.avro.Schema
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.sparkkinesis.bench.SparkAvroFunctions
import org.apache.spark.sql.types.StructType

/**
 * What the registry functions cost per record beside Spark's own Avro functions on the same payload without
 * the registry's header, in one JVM, each timed by the CPU of its thread:
 *  - decoding: `from_avro` (Avro's generic reader, then Spark's converter into Catalyst values) against
 *    `from_glue_registry`'s per-record path (the header read, the writer's version found in the JVM's map, the
 *    payload read straight into Catalyst values);
 *  - encoding: `to_avro` (Spark's converter, then Avro's generic writer) against `to_glue_registry`'s (the
 *    row written straight as Avro, then framed).
 * Records of three shapes, all of one schema version (as a stream's are, mostly): a small record (3 fields),
 * an order (13 fields, a nested record, an array and a map, a union with null), and a wide one (60 fields).
 * Each function is measured in rounds of a second, interleaved, after a warm-up; the median round is
 * reported. No Spark job runs: the expressions' own work per value, which a query adds its plan's to.
 * Prints a table and writes bench/results/glue-benchmark.json.
 * Usage: dev/bench glue [rounds=10] [warmUpSeconds=5]
 */
object GlueBenchmark {

  final case class Case(name: String, schema: Schema, records: Seq[GenericRecord])

  /** A function's median round: CPU microseconds of its thread a record, and records a second. */
  final case class Reading(function: String, cpuMicrosPerRecord: Double, recordsPerSecond: Double)

  final case class Result(name: String, payloadBytes: Double, readings: Seq[Reading]) {
    def of(function: String): Reading = readings.find(_.function == function).get
    def ratio(ours: String, spark: String): Double = of(ours).cpuMicrosPerRecord / of(spark).cpuMicrosPerRecord
  }

  val Functions: Seq[String] = Seq("from_avro", "from_glue_registry", "to_avro", "to_glue_registry")

  def main(args: Array[String]): Unit = {
    val rounds = args.lift(0).map(_.toInt).getOrElse(10)
    val warmUpSeconds = args.lift(1).map(_.toDouble).getOrElse(5.0)
    val results = run(cases(records = 10000), rounds, warmUpSeconds, roundSeconds = 1.0)
    report(results, s"dev/bench glue $rounds ${warmUpSeconds.toInt}")
  }

  def run(cases: Seq[Case], rounds: Int, warmUpSeconds: Double, roundSeconds: Double): Seq[Result] = {
    val registry = new FakeGlueRegistry()
    SchemaVersions.useClients(_ => registry)
    try
      cases.map { kase =>
        val version = registry.add(SchemaRef("bench", kase.schema.getName), "AVRO", kase.schema.toString)
        val dataType = AvroSchemas.sqlType(kase.schema).asInstanceOf[StructType]
        val payloads = kase.records.map(datum(kase.schema, _)).toArray
        val framed = payloads.map(GlueFraming.frame(version.id, _, compress = false))
        val options = GlueFunctionOptions(
          GlueRegistryConfig("us-east-1", None, AwsCredentialsConfig.DefaultChain),
          version.schema,
          None,
          DecodeMode.FailFast,
          None,
          registerSchema = false,
          compress = false
        )
        val spark = new SparkAvroFunctions(kase.schema, dataType)
        val decoder = GlueDecoding(options, version, PayloadFormat.of(version).toOption.get, None).newDecoder()
        val encoder = GlueEncoding(options, version).newEncoder(dataType)
        val rows = payloads.map(p => decoder.decode(GlueFraming.frame(version.id, p, compress = false))).map {
          case row: InternalRow => row.copy()
        }
        check(kase, payloads, framed, rows, spark, decoder, encoder)
        val calls: Map[String, Int => Unit] = Map(
          "from_avro" -> (i => spark.fromAvro(payloads(i))),
          "from_glue_registry" -> (i => decoder.decode(framed(i))),
          "to_avro" -> (i => spark.toAvro(rows(i))),
          "to_glue_registry" -> (i => encoder.encode(rows(i)))
        )
        Functions.foreach(f => measure(calls(f), payloads.length, warmUpSeconds))
        val byFunction =
          (1 to rounds).flatMap(_ => Functions.map(f => f -> measure(calls(f), payloads.length, roundSeconds)))
        val readings = Functions.map { f =>
          val median = byFunction.filter(_._1 == f).map(_._2).sortBy(_._1).apply(rounds / 2)
          Reading(f, median._1, median._2)
        }
        val result = Result(kase.name, payloads.map(_.length).sum.toDouble / payloads.length, readings)
        println(
          f"${kase.name}%6s (${result.payloadBytes}%.0f B): " + readings
            .map(r => f"${r.function} ${r.cpuMicrosPerRecord}%.3f µs")
            .mkString(", "))
        result
      }
    finally SchemaVersions.useClients(GlueRegistryClient.create)
  }

  /** Both sides give the same values and bytes: the comparison is of the same work. */
  private def check(
      kase: Case,
      payloads: Array[Array[Byte]],
      framed: Array[Array[Byte]],
      rows: Array[InternalRow],
      spark: SparkAvroFunctions,
      decoder: RecordDecoder,
      encoder: RowEncoder): Unit = {
    val toScala = CatalystTypeConverters.createToScalaConverter(AvroSchemas.sqlType(kase.schema))
    payloads.indices.take(100).foreach { i =>
      val theirs = toScala(spark.fromAvro(payloads(i)))
      require(toScala(decoder.decode(framed(i))) == theirs, s"${kase.name}: record $i decodes differently")
      require(encoder.encode(rows(i)).sameElements(framed(i)), s"${kase.name}: record $i encodes differently")
      require(spark.toAvro(rows(i)).sameElements(payloads(i)), s"${kase.name}: to_avro writes record $i differently")
    }
  }

  /** Calls `call` over the records, round after round, for `seconds`: CPU µs a record, and records a second. */
  private def measure(call: Int => Unit, records: Int, seconds: Double): (Double, Double) = {
    val threads = ManagementFactory.getThreadMXBean
    val start = System.nanoTime()
    val cpu0 = threads.getCurrentThreadCpuTime
    var done = 0L
    while (System.nanoTime() - start < seconds * 1e9) {
      var i = 0
      while (i < records) { call(i); i += 1 }
      done += records
    }
    val cpu = threads.getCurrentThreadCpuTime - cpu0
    (cpu / 1e3 / done, done / ((System.nanoTime() - start) / 1e9))
  }

  private def datum(schema: Schema, record: GenericRecord): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val encoder = EncoderFactory.get().binaryEncoder(out, null)
    new GenericDatumWriter[GenericRecord](schema).write(record, encoder)
    encoder.flush()
    out.toByteArray
  }

  // ---- the cases ----

  def cases(records: Int): Seq[Case] = {
    val random = new scala.util.Random(11)
    def words(n: Int) = (1 to n).map(_ => random.alphanumeric.take(3 + random.nextInt(8)).mkString).mkString(" ")
    val small = parse("""{"type": "record", "name": "Click", "fields": [
      {"name": "id", "type": "long"}, {"name": "page", "type": "string"}, {"name": "ms", "type": "int"}]}""")
    val order = parse("""{"type": "record", "name": "Order", "namespace": "shop", "fields": [
      {"name": "id", "type": "long"}, {"name": "customer", "type": "string"},
      {"name": "item", "type": "string"}, {"name": "quantity", "type": "int"},
      {"name": "price", "type": "double"}, {"name": "paid", "type": "boolean"},
      {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
      {"name": "note", "type": ["null", "string"], "default": null},
      {"name": "tags", "type": {"type": "array", "items": "string"}},
      {"name": "attributes", "type": {"type": "map", "values": "string"}},
      {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
        {"name": "street", "type": "string"}, {"name": "city", "type": "string"},
        {"name": "zip", "type": "string"}]}},
      {"name": "discount", "type": "float"}, {"name": "channel", "type": "string"}]}""")
    val wide = parse(s"""{"type": "record", "name": "Wide", "fields": [${(0 until 60)
        .map(i => s"""{"name": "f$i", "type": "${Seq("long", "double", "string")(i % 3)}"}""")
        .mkString(", ")}]}""")
    def of(schema: Schema)(fill: GenericData.Record => Unit): Seq[GenericRecord] =
      (0 until records).map { _ =>
        val r = new GenericData.Record(schema)
        fill(r)
        r
      }
    Seq(
      Case(
        "small",
        small,
        of(small) { r =>
          r.put("id", random.nextLong()); r.put("page", s"/p/${random.nextInt(1000)}");
          r.put("ms", random.nextInt(5000))
        }),
      Case(
        "order",
        order,
        of(order) { r =>
          r.put("id", random.nextLong()); r.put("customer", s"customer-${random.nextInt(10000)}")
          r.put("item", words(2)); r.put("quantity", random.nextInt(10)); r.put("price", random.nextDouble() * 100)
          r.put("paid", random.nextBoolean()); r.put("at", 1764288000000000L + random.nextInt(1000000))
          r.put("note", if (random.nextBoolean()) words(4) else null)
          r.put("tags", (0 until random.nextInt(4)).map(_ => words(1)).asJava)
          r.put("attributes", (0 until random.nextInt(3)).map(i => s"k$i" -> words(1)).toMap.asJava)
          val address = new GenericData.Record(order.getField("address").schema())
          address.put("street", words(3)); address.put("city", words(1));
          address.put("zip", f"${random.nextInt(99999)}%05d")
          r.put("address", address); r.put("discount", random.nextFloat()); r.put("channel", "web")
        }
      ),
      Case(
        "wide",
        wide,
        of(wide) { r =>
          (0 until 60).foreach { i =>
            r.put(
              s"f$i",
              i % 3 match { case 0 => random.nextLong(); case 1 => random.nextDouble(); case _ => words(1) })
          }
        })
    )
  }

  private def parse(text: String): Schema = new Schema.Parser().parse(text)

  private def report(results: Seq[Result], command: String): Unit = {
    println()
    println("CPU of the calling thread a record, µs (median of the rounds); the registry's function / Spark's")
    results.foreach { r =>
      println(
        f"${r.name}%6s  decode: from_avro ${r.of("from_avro").cpuMicrosPerRecord}%.3f  from_glue_registry " +
          f"${r.of("from_glue_registry").cpuMicrosPerRecord}%.3f (${r.ratio("from_glue_registry", "from_avro")}%.2f)" +
          f"   encode: to_avro ${r.of("to_avro").cpuMicrosPerRecord}%.3f  to_glue_registry " +
          f"${r.of("to_glue_registry").cpuMicrosPerRecord}%.3f (${r.ratio("to_glue_registry", "to_avro")}%.2f)")
    }
    def json(r: Result): String = {
      val readings = r.readings
        .map(x =>
          f""""${x.function}": {"cpuMicrosPerRecord": ${x.cpuMicrosPerRecord}%.4f, "recordsPerSecond": ${x.recordsPerSecond}%.0f}""")
        .mkString(", ")
      f"""{"case": "${r.name}", "payloadBytes": ${r.payloadBytes}%.1f, $readings, """ +
        f""""decodeRatio": ${r.ratio("from_glue_registry", "from_avro")}%.3f, """ +
        f""""encodeRatio": ${r.ratio("to_glue_registry", "to_avro")}%.3f}"""
    }
    BenchKinesis.saveResults(
      "glue-benchmark.json",
      command,
      "none: the functions' work per value in one JVM, the registry in memory",
      Seq(s""""cases": [\n    ${results.map(json).mkString(",\n    ")}\n  ]""")
    )
  }
}
