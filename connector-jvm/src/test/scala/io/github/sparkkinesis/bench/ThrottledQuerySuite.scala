// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.util.concurrent.atomic.AtomicLong

import io.github.sparkkinesis.bench.synthetic.{StreamSpec, SyntheticKinesis}
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.scalatest.funsuite.AnyFunSuite
import software.amazon.awssdk.services.kinesis.model.{GetRecordsRequest, ProvisionedThroughputExceededException}

/**
 * AWS' throttling answers reach a query's progress: the benchmarks' synthetic Kinesis enforces a shard's
 * limits (5 GetRecords calls a second) as Kinesis does, and another reader of the shard takes most of them.
 */
class ThrottledQuerySuite extends AnyFunSuite with SparkStreamingSuite {

  test("the throttling answers to a query's calls reach its progress; another client's do not") {
    val kinesis = SyntheticKinesis.start(threads = 4)
    val stream = s"throttled-${java.util.UUID.randomUUID().toString.take(8)}"
    kinesis.create(StreamSpec(stream, shards = 1, backlogPerShard = 200, recordBytes = 100, limits = true))
    val other = kinesis.sdkClient()
    val otherThrottled = new AtomicLong()
    @volatile var reading = true
    val otherReader = new Thread(() => {
      val shard = "shardId-000000000000"
      val iterator = BenchKinesis.trimHorizon(other, stream, shard)
      while (reading) {
        try other.getRecords(GetRecordsRequest.builder().shardIterator(iterator).limit(1).build())
        catch { case _: ProvisionedThroughputExceededException => otherThrottled.incrementAndGet() }
        // Ten calls a second: past the shard's five on its own, so that the query's calls meet throttling
        // whatever its own pace (once it has read the backlog it polls a quiet shard less often).
        Thread.sleep(100)
      }
    })
    otherReader.setDaemon(true)
    otherReader.start()
    val query = spark.readStream
      .format("kinesis")
      .options(kinesis.connectorOptions ++ Map("streamName" -> stream, "initialPosition" -> "trim_horizon"))
      .load()
      .writeStream
      .format("noop")
      .option("checkpointLocation", newCheckpoint())
      .start()
    def counted = Option(query.lastProgress).map(_.sources.head.metrics.get("numAwsRateLimitErrors").toLong)
    try {
      eventually("throttling answers in the query's progress", 60, Some(query))(counted.exists(_ > 0))
      query.stop()
      reading = false
      otherReader.join(5000)
      val metrics = query.lastProgress.sources.head.metrics
      val ours = metrics.get("numAwsRateLimitErrors").toLong
      val byKinesis = kinesis.callCounts.filter(_._1.endsWith("throttled")).values.sum
      assert(ours >= metrics.get("numThrottledFetches").toLong, metrics)
      assert(ours <= byKinesis - otherThrottled.get, s"only the query's own: $metrics, ${kinesis.callCounts}")
    } finally {
      query.stop()
      reading = false
      other.close()
      kinesis.close()
    }
  }
}
