// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.io.File
import java.nio.file.Files

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.Random
import scala.util.Try

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.testing.ExecutorProcesses

/**
 * A long run with faults: a stream of the synthetic Kinesis with Kinesis' limits on, written at a steady
 * rate with bursts ([[SoakWriter]]), read from TRIM_HORIZON by the soak's queries in a Spark application of
 * its own ([[SoakDriver]] on a `local-cluster` of executor JVMs, [[DriverProcess]]), while the faults of
 * [[SoakSchedule]] happen. Every `sampleSeconds` it records what a user running it for months would watch
 * ([[SoakSample]]): the heap each JVM kept after its collections, threads, Spark's storage memory (the
 * prefetched blocks), each query's checkpoint size, put-to-row latency and records not yet read. At the end
 * the writer stops, the queries catch up, and [[SoakCheck]] checks every record was read exactly once by each
 * query, in order.
 *
 * `dev/bench soak [minutes=60]` prints a summary and writes bench/results/soak-benchmark.json and
 * soak-benchmark.svg; a short form runs in the tests (`integration/BenchmarkRunsSuite`).
 */
object SoakBenchmark {

  final case class Settings(
      minutes: Double,
      shards: Int = 4,
      perSecond: Int = 200,
      recordBytes: Int = 200,
      burstTimes: Int = 5,
      executors: Int = 3,
      sampleSeconds: Int = 10,
      queries: Seq[SoakQuery] = Seq(SoakQuery.Polling, SoakQuery.Efo),
      catchUpSeconds: Int = 300) {
    def seconds: Int = (minutes * 60).toInt

    /** Bursts of `burstTimes` the rate: 10 s every 10 minutes (a twentieth of a short run every sixth). */
    def burst(atMillis: Long): Boolean = {
      val every = math.min(600000L, seconds * 1000L / 6)
      val length = math.min(10000L, every / 20)
      atMillis % every >= every - length
    }
  }

  /** Something that happened, at ms from the start. */
  final case class Event(atMillis: Long, what: String)

  final case class Result(
      settings: Settings,
      samples: Seq[SoakSample],
      events: Seq[Event],
      verdicts: Map[String, SoakCheck.Verdict],
      recordsWritten: Long,
      writerRefusals: (Long, Long),
      callCounts: Map[String, Long],
      failure: Option[String]) {
    def ok: Boolean = failure.isEmpty && verdicts.values.forall(_.ok)
  }

  def main(args: Array[String]): Unit = {
    val minutes = args.headOption.map(_.toDouble).getOrElse(60.0)
    val result = run(Settings(minutes))
    SoakReport.print(result)
    SoakReport.save(result, s"dev/bench soak ${args.mkString(" ")}".trim)
    if (!result.ok) sys.exit(1)
  }

  def run(settings: Settings): Result = {
    val work = Files.createTempDirectory("kinesis-soak").toFile
    println(s"Soak of ${settings.minutes} minutes; its files (driver log, GC logs, output) in $work")
    val kinesis = SyntheticKinesis.start(threads = 16)
    val name = s"soak-${java.util.UUID.randomUUID().toString.take(8)}"
    val stream = kinesis.create(StreamSpec(name, settings.shards, recordBytes = settings.recordBytes, limits = true))
    val writerClient = kinesis.sdkClient()
    val writer =
      new SoakWriter(writerClient, name, settings.perSecond, settings.recordBytes, settings.burst, settings.burstTimes)
    val driverSettings = SoakDriver.Settings(
      s"local-cluster[${settings.executors},1,1024]",
      kinesis.endpoint,
      name,
      work,
      settings.queries,
      "-Daws.ec2MetadataDisabled=true")
    val gcLogs = new File(work, "gc")
    def startDriver() = new DriverProcess(driverSettings, gcLogs, new File(work, "driver.log"))
    var startedAt = System.currentTimeMillis() // the run's clock, from when the driver's queries run
    def elapsed = System.currentTimeMillis() - startedAt
    val events = Vector.newBuilder[Event]
    def event(what: String): Unit = {
      println(f"${elapsed / 1000.0}%8.1f s  $what")
      events += Event(elapsed, what)
    }
    val random = new Random(35)
    var driver = startDriver()
    val sampler = new SoakSampler(
      work,
      gcLogs,
      settings.queries,
      () => stream.shards.map(_.end).sum,
      () => Some(kinesis.openSubscriptions))
    val samples = Vector.newBuilder[SoakSample]
    var failure = Option.empty[String]
    val schedule = mutable.Queue(SoakSchedule.of(settings.seconds, runs(settings)): _*)
    // What is due later: the end of an outage, a kill that waits for an executor to be up.
    val later = mutable.ArrayBuffer.empty[(Long, () => Unit)]
    def runDue(): Unit = later.filter(_._1 <= elapsed).foreach { due =>
      later -= due
      due._2()
    }

    def apply(fault: Fault): Unit = fault match {
      case Fault.KillExecutor =>
        val alive = driver.executors.keys.toSeq.sorted
        if (alive.isEmpty) {
          event("no executor up to kill yet: again in 5 s")
          later += (elapsed + 5000) -> (() => apply(Fault.KillExecutor))
        } else {
          val id = alive(random.nextInt(alive.size))
          event(s"executor $id killed (pid ${ExecutorProcesses.kill(id, driver.handle)})")
        }
      case Fault.RestartDriver =>
        driver.kill()
        event(s"driver killed (pid ${driver.pid}) with its executors")
        Thread.sleep(5000)
        driver = startDriver()
        event(s"driver started again on the checkpoints (pid ${driver.pid})")
      case Fault.Outage(seconds) =>
        kinesis.outage(on = true)
        event(s"Kinesis outage begins: connections refused for ${seconds}s")
        later += (elapsed + seconds * 1000L) -> (() => {
          kinesis.outage(on = false)
          event("Kinesis outage ends")
        })
      case Fault.Split =>
        val parent = stream.openShards.head
        event(s"shard split: ${parent.id} into ${kinesis.split(name, parent.id).mkString(" and ")}")
      case Fault.Merge =>
        val open = stream.openShards.sortBy(_.hashKeys._1)
        open.zip(open.tail).find { case (a, b) => a.hashKeys._2 + 1 == b.hashKeys._1 } match {
          case Some((a, b)) => event(s"shards merged: ${a.id} and ${b.id} into ${kinesis.merge(name, a.id, b.id)}")
          case None => event("no adjacent open shards to merge")
        }
      case Fault.DeregisterConsumer =>
        val gone = SoakQuery.Efo.options("consumerName")
        kinesis.deregisterConsumer(name, gone)
        event(s"consumer deregistered: $gone, under the enhanced fan-out query")
    }

    try {
      // The faults' clock starts once the application's queries run: a cluster's start is no part of the soak.
      while (!driverSettings.metrics.exists() && driver.isAlive && elapsed < 300000) Thread.sleep(200)
      val startup = elapsed
      startedAt = System.currentTimeMillis()
      event(
        s"driver started (pid ${driver.pid}), its queries running after ${startup / 1000} s; writing " +
          s"${settings.perSecond} records a second")
      var nextSample = 0L
      while (elapsed < settings.seconds * 1000L && failure.isEmpty) {
        while (schedule.nonEmpty && elapsed >= schedule.head._1 * 1000L) apply(schedule.dequeue()._2)
        runDue()
        if (elapsed >= nextSample) {
          samples += sampler.sample(elapsed, driver)
          nextSample += settings.sampleSeconds * 1000L
        }
        driver.exitCode.foreach(code => failure = Some(s"the driver exited with code $code: see $work/driver.log"))
        Thread.sleep(200)
      }
      later.foreach(_._2())
      later.clear()
      writer.stop()
      event(s"writing stopped: ${writer.records} records in Kinesis; the queries catch up")
      val catchUpUntil = elapsed + settings.catchUpSeconds * 1000L
      while (failure.isEmpty && !sampler.caughtUp && elapsed < catchUpUntil) {
        if (elapsed >= nextSample) {
          samples += sampler.sample(elapsed, driver)
          nextSample += settings.sampleSeconds * 1000L
        }
        driver.exitCode.foreach(code => failure = Some(s"the driver exited with code $code: see $work/driver.log"))
        Thread.sleep(200)
      }
      samples += sampler.sample(elapsed, driver)
      if (failure.isEmpty && !sampler.caughtUp)
        failure = Some(s"the queries did not read every record within ${settings.catchUpSeconds}s of the last write")
      event(if (sampler.caughtUp) "every query has read every record" else "stopped before the queries caught up")
      driver.stop()
      event("driver stopped")
      val truth = stream.shards.map(s => ShardTruth(s.id, s.end, s.recordOf, s.parents.map(_.id)))
      val verdicts =
        settings.queries.map(q => q.name -> SoakCheck.check(driverSettings.output(q), truth)).toMap
      Result(
        settings,
        samples.result(),
        events.result(),
        verdicts,
        stream.shards.map(_.end).sum,
        writer.refusals,
        kinesis.callCounts,
        failure)
    } finally {
      writer.stop()
      if (driver.isAlive) driver.kill()
      // What the cluster's workers kept of each application the driver ran (a copy of the jars, the logs).
      Try(Files.readAllLines(driverSettings.applications.toPath).asScala).toOption.toSeq.flatten
        .foreach(ExecutorProcesses.removeWorkFolder)
      writerClient.close()
      kinesis.close()
    }
  }

  /** The faults this soak makes happen: every one, but a consumer deregistered only under an efo query. */
  private def runs(settings: Settings)(fault: Fault): Boolean = fault match {
    case Fault.DeregisterConsumer => settings.queries.contains(SoakQuery.Efo)
    case _ => true
  }
}
