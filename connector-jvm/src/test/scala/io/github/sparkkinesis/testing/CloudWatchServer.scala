// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.File

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.node.JsonNodeFactory
import com.fasterxml.jackson.databind.ObjectMapper

/**
 * CloudWatch for the metrics listener's tests: moto's server ([[MotoServer]]), from the test virtual
 * environment, on a free port of loopback; asked what it holds in CloudWatch's JSON protocol, as the fixture's
 * own calls. Its output goes to connector-jvm/target/cloudwatch-server-<port>.log.
 */
final class CloudWatchServer(root: File, val region: String = "us-east-1") {
  import CloudWatchServer._

  private val server = new MotoServer(root, "cloudwatch-server")
  private val mapper = new ObjectMapper()

  /** Starts the server and returns its endpoint once it listens. */
  def start(): String = server.start()

  def endpoint: String = server.endpoint

  /** Stops the server, by PID: CloudWatch out of reach from then on. */
  def stop(): Unit = server.stop()

  /** The metrics moto holds in `namespace`: each one's name and dimensions. */
  def metrics(namespace: String): Set[(String, Map[String, String])] = {
    val answer = call("ListMetrics", json("Namespace" -> namespace))
    answer
      .path("Metrics")
      .elements()
      .asScala
      .map { m =>
        m.get("MetricName").asText -> m
          .path("Dimensions")
          .elements()
          .asScala
          .map { d =>
            d.get("Name").asText -> d.get("Value").asText
          }
          .toMap
      }
      .toSet
  }

  /**
   * The data points of one metric from one instant to another (in milliseconds since the epoch, both
   * included), summed over periods.
   */
  def statistics(
      namespace: String,
      metric: String,
      dimensions: Seq[(String, String)],
      fromMillis: Long,
      toMillis: Long): Statistics = {
    val dims = JsonNodeFactory.instance.arrayNode()
    dimensions.foreach { case (k, v) => dims.addObject().put("Name", k).put("Value", v) }
    val statistics = JsonNodeFactory.instance.arrayNode().add("SampleCount").add("Maximum").add("Minimum")
    val request = json("Namespace" -> namespace, "MetricName" -> metric, "Period" -> 60)
    request.set("Dimensions", dims)
    request.set("Statistics", statistics)
    request.put("StartTime", BigDecimal(fromMillis).bigDecimal.movePointLeft(3))
    request.put("EndTime", BigDecimal(toMillis + 1).bigDecimal.movePointLeft(3))
    val points = call("GetMetricStatistics", request).path("Datapoints").elements().asScala.toSeq
    Statistics(
      points.map(_.get("SampleCount").asDouble).sum.toLong,
      if (points.isEmpty) None else Some(points.map(_.get("Maximum").asDouble).max),
      if (points.isEmpty) None else Some(points.map(_.get("Minimum").asDouble).min),
      points.flatMap(p => Option(p.get("Unit")).map(_.asText)).toSet
    )
  }

  private def json(fields: (String, Any)*) = {
    val body = JsonNodeFactory.instance.objectNode()
    fields.foreach {
      case (k, v: String) => body.put(k, v)
      case (k, v: Int) => body.put(k, v)
      case (k, v) => throw new IllegalArgumentException(s"$k: $v")
    }
    body
  }

  private def call(action: String, body: com.fasterxml.jackson.databind.JsonNode) = {
    val (status, answer) = server.unsigned(
      "monitoring",
      region,
      "application/x-amz-json-1.0",
      mapper.writeValueAsString(body),
      "X-Amz-Target" -> s"GraniteServiceVersion20100801.$action")
    require(status == 200, s"CloudWatch $action: $status $answer")
    mapper.readTree(answer)
  }
}

object CloudWatchServer {

  /** A metric's data points: how many, the largest and smallest value, their units. */
  final case class Statistics(count: Long, max: Option[Double], min: Option[Double], units: Set[String])
}
