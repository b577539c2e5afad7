// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.io.File

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/**
 * What a record costs, before and after a change: the CPU time per record of each reader of two
 * `dev/bench synthetic` results (`ceiling-benchmark.json`), as a multiple of the SDK's in the same run (the
 * cases differ a hundredfold in cost, and the SDK's rate from run to run), the batch read of the later
 * run beside the streaming reads of both, as a bar chart for the performance lab notes (docs/performance/).
 * Usage: `CostChart <before.json> <after.json> <chart name under bench/results>`, the files from the repository's root
 */
object CostChart {

  def main(args: Array[String]): Unit = {
    require(args.length == 3, "usage: CostChart <before.json> <after.json> <chart name under bench/results>")
    // Paths from the repository's root, where dev/bench runs; the forked JVM runs elsewhere.
    val root = new File(sys.props.getOrElse("kinesis.test.root", "."))
    val Seq(before, after) =
      args.take(2).toSeq.map(path => casesOf(new ObjectMapper().readTree(root.toPath.resolve(path).toFile)))
    val earlier = before.toMap
    val groups = after.map { case (name, now) =>
      val then = earlier(name)
      def cost(result: JsonNode, reader: String): Double = {
        def perRecord(run: JsonNode) = run.path("cpuMillis").asDouble / run.path("records").asDouble
        perRecord(result.path(reader)) / perRecord(result.path("sdk"))
      }
      name.replace(" records", "").replace("KPL-aggregated by", "KPL x") -> Seq(
        SvgChart.Bar("AWS SDK", 1.0, "#888888"),
        SvgChart.Bar("batch read", cost(now, "batch"), "#4c9a2a"),
        SvgChart.Bar("AvailableNow, before", cost(then, "connector"), "#f2b6a0"),
        SvgChart.Bar("AvailableNow, after", cost(now, "connector"), "#d9531e"),
        SvgChart.Bar("running query, before", cost(then, "running"), "#a9c4eb"),
        SvgChart.Bar("running query, after", cost(now, "running"), "#1f5fb4")
      )
    }
    SvgChart.save(
      args(2),
      SvgChart.bars(
        "CPU per record, as a multiple of the AWS SDK's in the same run",
        "CPU time per record / the SDK's",
        groups))
  }

  /** The cases of a result file, in its order, by name. */
  private def casesOf(root: JsonNode): Seq[(String, JsonNode)] =
    root.path("cases").elements().asScala.map(c => c.path("case").asText -> c).toSeq
}
