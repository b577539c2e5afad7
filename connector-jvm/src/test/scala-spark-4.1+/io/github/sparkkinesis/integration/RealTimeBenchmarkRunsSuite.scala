// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.bench.{BenchKinesis, RealTimeBenchmark}
import io.github.sparkkinesis.testing.SparkStreamingSuite
import org.scalatest.funsuite.AnyFunSuite

/** The real-time benchmark runs, on a tiny input (its figures come from dev/bench realtime, never from here). */
class RealTimeBenchmarkRunsSuite extends AnyFunSuite with SparkStreamingSuite {

  test("the real-time benchmark sees every record through each reader", Integration) {
    val kinesis = new BenchKinesis(shards = 1)
    try {
      val (polling, subscribed) = RealTimeBenchmark.run(spark, kinesis, records = 10, batchSeconds = 5)
      (polling ++ subscribed).foreach(l => assert(l.millis.size >= 10 && l.millis.forall(_ >= 0), l))
      assert(polling.size == 3 && subscribed.size == 2)
    } finally kinesis.close()
  }
}
