// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.bench.{
  CeilingBenchmark,
  GetRecordsBenchmark,
  MemoryBenchmark,
  ScaleBenchmark,
  SteadyBenchmark,
  WriteBenchmark
}
import io.github.sparkkinesis.bench.soak.SoakBenchmark
import io.github.sparkkinesis.bench.synthetic.SyntheticKinesis
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.scalatest.funsuite.AnyFunSuite

/**
 * The benchmark programs run, on a tiny input: they are measured by hand (dev/bench), never timed here, but
 * a change that breaks them is seen. Each run checks that every reader read every record.
 */
class BenchmarkRunsSuite extends AnyFunSuite with SparkStreamingSuite {

  test("the ceiling benchmark reads every case through the SDK and the connector on the synthetic Kinesis") {
    val kinesis = SyntheticKinesis.start(threads = 4)
    try {
      Seq(false, true).foreach { limits =>
        val results = CeilingBenchmark.run(kinesis, spark, shards = 3, megabytes = 1, limits, CeilingBenchmark.Cases)
        assert(results.map(_.c) == CeilingBenchmark.Cases)
        results.foreach(r => assert(r.connector.records == r.sdk.records && r.ratio > 0, r))
      }
    } finally kinesis.close()
  }

  test("the write benchmark's writers, throttled by the synthetic Kinesis' limits, lose nothing") {
    val kinesis = SyntheticKinesis.start(threads = 4)
    val target = new WriteBenchmark.Synthetic(kinesis, shards = 2, limits = true)
    try {
      // 1,250 records a shard against 1,000 a second: the plain writers are turned down and send again.
      val results = WriteBenchmark.run(target, spark, count = 2500, payload = 100)
      assert(results.map(_.rows) == Seq(2500L, 2500L, 2500L))
      assert(results(2).kinesisRecords < 2500, "aggregated records are fewer than the rows")
      assert(kinesis.callCounts.getOrElse("PutRecords records throttled", 0L) > 0, kinesis.callCounts)
    } finally {
      target.close()
      kinesis.close()
    }
  }

  test("the scale benchmark, at 300 shards, reads every record put once across a split and a merge") {
    val kinesis = SyntheticKinesis.start(threads = 4)
    try {
      val result = ScaleBenchmark.run(kinesis, spark, shards = 300, seconds = 3, idleSeconds = 1)
      assert(result.firstBatchMillis.isDefined && result.backlogMillis.isDefined, result)
      assert(result.resharding.put == 7 && result.resharding.exactlyOnce, result.resharding)
      assert(result.latencies.size == 7 && result.latencies.forall(_ >= 0), result)
      assert(result.offsetFileBytes > 0 && result.heapUsedBytes > 0 && result.idleCpuShare >= 0, result)
      val listShards = result.controlPlane.find(_.operation == "ListShards").get
      assert(listShards.calls >= 3 && listShards.throttled == 0, result.controlPlane)
    } finally kinesis.close()
  }

  test("the steady benchmark reads a stream as it arrives, through the connector and the SDK, and times the CPU") {
    val kinesis = SyntheticKinesis.start(threads = 4)
    try {
      val result =
        SteadyBenchmark.run(kinesis, spark, shards = 2, seconds = 3, recordBytes = 1000, share = 0.1, warmUpSeconds = 3)
      Seq(result.connector, result.sdk).foreach { run =>
        assert(run.records > 0 && run.cpuSeconds > 0 && run.lagMillis.nonEmpty, run)
        assert(run.calls("GetRecords") > 0 && run.calls("GetRecords records") > 0, run)
        assert(run.cpuByThreads.nonEmpty, run)
      }
    } finally kinesis.close()
  }

  test("the GetRecords benchmark calls a local endpoint through the SDK and the connector's client") {
    val cases = Seq(GetRecordsBenchmark.Case("1 KB", 1000, 100), GetRecordsBenchmark.Case("empty", 0, 3))
    val results = GetRecordsBenchmark.run(cases, rounds = 1, warmUpSeconds = 0.2, roundSeconds = 0.2)
    assert(results.map(_.kase) == cases)
    results.foreach { r =>
      assert(r.readings.map(_.reader) == GetRecordsBenchmark.Readers, r)
      assert(r.readings.forall(x => x.recordsPerSecond > 0 && x.cpuMicrosPerRecord > 0), r)
    }
  }

  test("the memory benchmark reads a burst of five buffers, every record once, and samples the heap") {
    val Seq(result) =
      MemoryBenchmark.run(spark, bufferBytes = 1024 * 1024, shards = 2, recordBytes = 1000, bursts = Seq(5))
    assert(result.records == 5 * 1024 * 1024 / 1000 / 2 * 2, result.records)
    assert(result.samples.nonEmpty && result.baseline > 0 && result.bound > result.baseline, result.bound)
  }

  test("the soak benchmark, a short run of every fault on executor JVMs, loses and repeats nothing") {
    val settings =
      SoakBenchmark.Settings(minutes = 2.5, perSecond = 100, executors = 2, sampleSeconds = 5, catchUpSeconds = 120)
    val result = SoakBenchmark.run(settings)
    assert(result.ok, s"${result.failure}; ${result.verdicts}")
    val events = result.events.map(_.what)
    Seq(
      "executor",
      "Kinesis outage begins",
      "Kinesis outage ends",
      "shard split",
      "shards merged",
      "driver killed",
      "consumer deregistered").foreach(fault => assert(events.exists(_.startsWith(fault)), s"$fault: $events"))
    assert(events.count(_.startsWith("executor")) >= 2, events)
    assert(result.verdicts.keySet == Set("polling", "efo"))
    assert(result.verdicts.values.forall(v => v.rows == result.recordsWritten), result.verdicts)
    // Killed executors were replaced: the application had all of them again at the end.
    assert(result.samples.last.executors == settings.executors, result.samples.last)
    assert(result.samples.exists(_.driverHeapAfterGc.isDefined), "the driver's collections were read")
    assert(result.samples.exists(_.executorHeapAfterGc.isDefined), "the executors' collections were read")
    assert(result.samples.exists(_.openSubscriptions.exists(_ > 0)), "the efo query's subscriptions were counted")
  }
}
