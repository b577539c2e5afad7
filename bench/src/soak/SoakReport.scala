// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import io.github.sparkkinesis.bench.{BenchKinesis, SvgChart}
import io.github.sparkkinesis.bench.soak.SoakBenchmark.Result

/** The soak's summary, its results file (bench/results/soak-benchmark.json) and its chart (soak-benchmark.svg). */
private[soak] object SoakReport {
  private val MiB = 1024.0 * 1024

  /** A figure at the start and at the end of the run: the median of its samples in the second and last tenth. */
  final case class Trend(name: String, start: Option[Double], end: Option[Double]) {
    def text: String = s"$name: ${start.map(fmt).getOrElse("-")} → ${end.map(fmt).getOrElse("-")}"
    private def fmt(v: Double) = f"$v%.1f"
  }

  def trends(r: Result): Seq[Trend] = {
    val samples = r.samples.filter(_.atMillis <= r.settings.seconds * 1000L)
    def trend(name: String)(value: SoakSample => Option[Double]): Trend = {
      val n = samples.size
      def median(part: Seq[SoakSample]) = {
        val values = part.flatMap(x => value(x).toSeq).sorted
        if (values.isEmpty) None else Some(values(values.size / 2))
      }
      Trend(name, median(samples.slice(n / 10, n / 5)), median(samples.slice(n - n / 10 - 1, n)))
    }
    Seq(
      trend("driver heap after GC, MiB")(_.driverHeapAfterGc.map(_ / MiB)),
      trend("executor heap after GC (largest), MiB")(_.executorHeapAfterGc.map(_ / MiB)),
      trend("driver threads")(_.driverThreads.map(_.toDouble)),
      trend("executor threads (most)")(_.executorThreads.map(_.toDouble)),
      trend("storage memory used, MiB")(_.storageUsed.map(_ / MiB))
    ) ++ r.settings.queries.flatMap { q =>
      Seq(
        trend(s"${q.name}: checkpoint, MiB")(_.queries.get(q.name).map(_.checkpointBytes / MiB)),
        trend(s"${q.name}: put to row p50, s")(_.queries.get(q.name).flatMap(_.latencyP50Millis).map(_ / 1000.0)),
        trend(s"${q.name}: records not yet read")(_.queries.get(q.name).map(_.notYetRead.toDouble))
      )
    }
  }

  def print(r: Result): Unit = {
    println(
      s"Soak of ${r.settings.minutes} minutes: ${r.recordsWritten} records written to ${r.settings.shards} shards " +
        s"(${r.writerRefusals._1} turned down and sent again, ${r.writerRefusals._2} calls failed whole)")
    r.events.foreach(e => println(f"  ${e.atMillis / 1000.0}%8.1f s  ${e.what}"))
    r.verdicts.toSeq.sortBy(_._1).foreach { case (query, v) =>
      val verdict = if (v.ok) "every record exactly once, in order" else s"${v.problems.size} problems"
      println(s"  $query: ${v.rows} rows in ${v.batches} batches (${v.batchesRunAgain} run again): $verdict")
      v.problems.foreach(p => println(s"    $p"))
    }
    trends(r).foreach(t => println(s"  ${t.text}"))
    r.failure.foreach(f => println(s"  FAILED: $f"))
  }

  def save(r: Result, command: String): Unit = {
    def opt[A](o: Option[A]): String = o.map(_.toString).getOrElse("null")
    def quote(s: String) = "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""
    val s = r.settings
    val queryColumns = Seq(
      "checkpointBytes",
      "recordsRead",
      "notYetRead",
      "latencyP50Millis",
      "latencyP99Millis",
      "maxMsBehindLatest",
      "rateLimitErrors")
    val columns = Seq(
      "atMillis",
      "driverHeapAfterGc",
      "executorHeapAfterGc",
      "driverThreads",
      "executorThreads",
      "executors",
      "storageUsed",
      "openSubscriptions") ++ s.queries.flatMap(q => queryColumns.map(c => s"${q.name}.$c"))
    val rows = r.samples.map { x =>
      val base = Seq(
        x.atMillis.toString,
        opt(x.driverHeapAfterGc),
        opt(x.executorHeapAfterGc),
        opt(x.driverThreads),
        opt(x.executorThreads),
        x.executors.toString,
        opt(x.storageUsed),
        opt(x.openSubscriptions)
      )
      val perQuery = s.queries.flatMap { q =>
        x.queries
          .get(q.name)
          .map { y =>
            Seq(
              y.checkpointBytes.toString,
              y.recordsRead.toString,
              y.notYetRead.toString,
              opt(y.latencyP50Millis),
              opt(y.latencyP99Millis),
              opt(y.maxMsBehindLatest),
              opt(y.rateLimitErrors)
            )
          }
          .getOrElse(Seq.fill(queryColumns.size)("null"))
      }
      (base ++ perQuery).mkString("[", ", ", "]")
    }
    val verdicts = r.verdicts.toSeq.sortBy(_._1).map { case (q, v) =>
      s"""${quote(q)}: {"rows": ${v.rows}, "batches": ${v.batches}, "batchesRunAgain": ${v.batchesRunAgain}, """ +
        s""""problems": [${v.problems.map(quote).mkString(", ")}]}"""
    }
    BenchKinesis.saveResults(
      "soak-benchmark.json",
      command,
      "synthetic Kinesis in the benchmark's JVM, Kinesis' limits on; Spark local-cluster in a JVM of its own",
      Seq(
        s""""settings": {"minutes": ${s.minutes}, "shards": ${s.shards}, "recordsPerSecond": ${s.perSecond}, """ +
          s""""recordBytes": ${s.recordBytes}, "burstTimes": ${s.burstTimes}, "executors": ${s.executors}, """ +
          s""""queries": [${s.queries.map(q => quote(q.name)).mkString(", ")}]}""",
        s""""ok": ${r.ok}, "failure": ${r.failure.map(quote).getOrElse("null")}""",
        s""""recordsWritten": ${r.recordsWritten}, "writesTurnedDown": ${r.writerRefusals._1}, """ +
          s""""writeCallsFailed": ${r.writerRefusals._2}""",
        s""""verdicts": {${verdicts.mkString(", ")}}""",
        s""""trends": {${trends(r).map(t => s"${quote(t.name)}: [${opt(t.start)}, ${opt(t.end)}]").mkString(", ")}}""",
        s""""events": [${r.events.map(e => s"[${e.atMillis}, ${quote(e.what)}]").mkString(",\n    ")}]""",
        s""""kinesisCalls": {${r.callCounts.toSeq.sorted.map { case (k, v) => s"${quote(k)}: $v" }.mkString(", ")}}""",
        s""""sampleColumns": [${columns.map(quote).mkString(", ")}]""",
        s""""samples": [\n    ${rows.mkString(",\n    ")}]"""
      )
    )
    SvgChart.save("soak-benchmark.svg", chart(r))
  }

  private val Colors = Seq("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")

  def chart(r: Result): String = {
    def minutes(ms: Long) = ms / 60000.0
    def series(name: String, color: Int, dashed: Boolean = false)(value: SoakSample => Option[Double]) =
      SvgChart.Series(name, r.samples.flatMap(x => value(x).map(minutes(x.atMillis) -> _)), Colors(color), dashed)
    val queries = r.settings.queries.zipWithIndex
    def perQuery(label: String, dashed: Boolean = false)(value: QuerySample => Option[Double]) =
      queries.map { case (q, i) =>
        series(s"${q.name}$label", i, dashed)(_.queries.get(q.name).flatMap(value))
      }
    val marks = r.events
      .filter(e =>
        e.what.contains("killed") || e.what.contains("outage") ||
          e.what.contains("split") || e.what.contains("merged") || e.what.contains("deregistered"))
      .map { e =>
        SvgChart.Mark(minutes(e.atMillis), e.what.takeWhile(_ != '(').trim)
      }
    SvgChart.stacked(
      "minutes",
      Seq(
        (
          "Heap after garbage collections, and Spark's storage memory in use",
          "MiB",
          Seq(
            series("driver", 0)(_.driverHeapAfterGc.map(_ / MiB)),
            series("executor (largest)", 1)(_.executorHeapAfterGc.map(_ / MiB)),
            series("storage memory", 2)(_.storageUsed.map(_ / MiB))
          )),
        (
          "Threads, and open subscriptions",
          "count",
          Seq(
            series("driver", 0)(_.driverThreads.map(_.toDouble)),
            series("executor (most)", 1)(_.executorThreads.map(_.toDouble)),
            series("subscriptions", 2)(_.openSubscriptions.map(_.toDouble))
          )),
        (
          "Put to row, p50 (p99 dashed)",
          "seconds",
          perQuery(" p50")(_.latencyP50Millis.map(_ / 1000.0)) ++
            perQuery(" p99", dashed = true)(_.latencyP99Millis.map(_ / 1000.0))),
        ("Records in Kinesis not yet read", "records", perQuery("")(q => Some(q.notYetRead.toDouble))),
        ("Checkpoint size", "MiB", perQuery("")(q => Some(q.checkpointBytes / MiB)))
      ),
      marks
    )
  }
}
