// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.scalatest.funsuite.AnyFunSuite

class PutMetricDataRequestsSuite extends AnyFunSuite {

  private val mapper = new ObjectMapper()

  private def datum(i: Int, query: String = "q") =
    MetricDatum(
      "maxMsBehindLatest",
      "Milliseconds",
      Seq("Query" -> query, "Stream" -> "orders"),
      i.toDouble,
      1700000000123L)

  test("a request is PutMetricData's JSON: namespace, names, dimensions, timestamp in seconds, value, unit") {
    val Seq(request) = PutMetricDataRequests.split("Shop \"eu\"", Seq(datum(42)))
    val body = mapper.readTree(request.body)
    assert(body.get("Namespace").asText == "Shop \"eu\"")
    val Seq(d) = body.get("MetricData").elements().asScala.toSeq
    assert(d.get("MetricName").asText == "maxMsBehindLatest")
    assert(d.get("Unit").asText == "Milliseconds")
    assert(d.get("Value").asDouble == 42.0)
    assert(d.get("Timestamp").decimalValue() == new java.math.BigDecimal("1700000000.123"))
    val dims = d.get("Dimensions").elements().asScala.map(x => x.get("Name").asText -> x.get("Value").asText).toSeq
    assert(dims == Seq("Query" -> "q", "Stream" -> "orders"))
  }

  test("data are split into requests of at most 1000 data, in order, none lost") {
    val data = (1 to 2500).map(datum(_))
    val requests = PutMetricDataRequests.split("ns", data)
    assert(requests.map(_.data.size) == Seq(1000, 1000, 500))
    assert(requests.flatMap(_.data) == data)
    requests.foreach(r => assert(mapper.readTree(r.body).get("MetricData").size == r.data.size))
  }

  test("data are split so that no request is over the byte limit") {
    val data = (1 to 300).map(i => datum(i, "q" * 5000))
    val requests = PutMetricDataRequests.split("ns", data)
    assert(requests.size > 1)
    assert(requests.forall(_.bytes <= PutMetricDataRequests.MaxBytes))
    assert(requests.flatMap(_.data) == data)
    // Each request is as full as the limit allows: one more datum would not have fitted.
    assert(requests.init.forall(_.bytes > PutMetricDataRequests.MaxBytes - 5200))
  }

  test("a small limit splits exactly at it; a datum larger than a request is left out") {
    val small = (1 to 3).map(datum(_))
    val one = PutMetricDataRequests.split("ns", small, maxData = 2)
    assert(one.map(_.data.size) == Seq(2, 1))
    val huge = datum(9, "q" * 2000)
    val limited = PutMetricDataRequests.split("ns", Seq(datum(1), huge, datum(2)), maxBytes = 1000)
    assert(limited.flatMap(_.data) == Seq(datum(1), datum(2)))
    assert(limited.forall(_.bytes <= 1000))
  }
}
