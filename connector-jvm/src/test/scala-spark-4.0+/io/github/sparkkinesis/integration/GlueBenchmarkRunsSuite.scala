// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import io.github.sparkkinesis.bench.GlueBenchmark
import org.scalatest.funsuite.AnyFunSuite

/**
 * The Glue benchmark runs, on a tiny input (measured by hand with dev/bench glue, never timed here): each
 * function of each case gives the same values and bytes as Spark's on its records, and is measured.
 */
class GlueBenchmarkRunsSuite extends AnyFunSuite {

  test("the Glue benchmark decodes and encodes every case as Spark's Avro functions do, and measures each") {
    val cases = GlueBenchmark.cases(records = 200)
    val results = GlueBenchmark.run(cases, rounds = 1, warmUpSeconds = 0.1, roundSeconds = 0.1)
    assert(results.map(_.name) == Seq("small", "order", "wide"))
    results.foreach { r =>
      assert(r.readings.map(_.function) == GlueBenchmark.Functions, r)
      assert(r.readings.forall(x => x.cpuMicrosPerRecord > 0 && x.recordsPerSecond > 0), r)
    }
  }
}
