// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.io.File

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/**
 * What a record costs, before and after a change: CPU microseconds per record of each case of two
 * `dev/bench synthetic` results (`ceiling-benchmark.json`), the SDK and the batch read of the later run
 * beside the streaming reads of both, as a bar chart for the README.
 * Usage: `CostChart <before.json> <after.json> <chart name under bench/results>`
 */
object CostChart {

  def main(args: Array[String]): Unit = {
    require(args.length == 3, "usage: CostChart <before.json> <after.json> <chart name under bench/results>")
    val Seq(before, after) = args.take(2).toSeq.map(path => casesOf(new ObjectMapper().readTree(new File(path))))
    val earlier = before.toMap
    val groups = after.map { case (name, now) =>
      def cost(run: JsonNode): Double = run.path("cpuMillis").asDouble * 1000.0 / run.path("records").asDouble
      val then = earlier(name)
      name.replace(" records", "").replace("KPL-aggregated by", "KPL x") -> Seq(
        SvgChart.Bar("AWS SDK", cost(now.path("sdk")), "#888888"),
        SvgChart.Bar("batch read", cost(now.path("batch")), "#4c9a2a"),
        SvgChart.Bar("AvailableNow, before", cost(then.path("connector")), "#f2b6a0"),
        SvgChart.Bar("AvailableNow, after", cost(now.path("connector")), "#d9531e"),
        SvgChart.Bar("running query, before", cost(then.path("running")), "#a9c4eb"),
        SvgChart.Bar("running query, after", cost(now.path("running")), "#1f5fb4")
      )
    }
    SvgChart.save(
      args(2),
      SvgChart.bars("CPU per record, whole JVM (synthetic Kinesis included)", "CPU microseconds per record", groups))
  }

  /** The cases of a result file, in its order, by name. */
  private def casesOf(root: JsonNode): Seq[(String, JsonNode)] =
    root.path("cases").elements().asScala.map(c => c.path("case").asText -> c).toSeq
}
