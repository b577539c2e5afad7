// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import java.io.StringWriter
import java.nio.charset.StandardCharsets.UTF_8

import com.fasterxml.jackson.core.JsonFactory

/**
 * PutMetricData requests in CloudWatch's JSON form (awsJson1.0), each within CloudWatch's limits: at most
 * [[MaxData]] data and [[MaxBytes]] bytes of body. Stateless.
 */
private[sparkkinesis] object PutMetricDataRequests {

  /** CloudWatch takes at most 1000 data in one PutMetricData. */
  val MaxData = 1000

  /** CloudWatch takes at most 1 MB of body in one PutMetricData; kept below it, as 10^6 bytes. */
  val MaxBytes = 1000000

  private val json = new JsonFactory()

  /** One request's body, and the data it carries (for what to keep if it fails). */
  final case class Request(body: String, data: Seq[MetricDatum]) {
    def bytes: Int = body.getBytes(UTF_8).length
  }

  /**
   * `data` in as few requests as the limits allow, in order, with at most `maxData` data and `maxBytes` bytes
   * each. A datum too big for a request of its own (a dimension of a megabyte) is left out.
   */
  def split(
      namespace: String,
      data: Seq[MetricDatum],
      maxData: Int = MaxData,
      maxBytes: Int = MaxBytes): Seq[Request] = {
    val head = s"""{"Namespace":${quoted(namespace)},"MetricData":["""
    val tail = "]}"
    val frame = (head + tail).getBytes(UTF_8).length
    val requests = Seq.newBuilder[Request]
    val current = Seq.newBuilder[(MetricDatum, String)]
    var count = 0
    var bytes = frame
    def flush(): Unit = if (count > 0) {
      val items = current.result()
      requests += Request(items.map(_._2).mkString(head, ",", tail), items.map(_._1))
      current.clear()
      count = 0
      bytes = frame
    }
    data.foreach { datum =>
      val text = datumJson(datum)
      val size = text.getBytes(UTF_8).length
      if (frame + size <= maxBytes) {
        val separator = if (count > 0) 1 else 0
        if (count == maxData || bytes + separator + size > maxBytes) flush()
        bytes += (if (count > 0) 1 else 0) + size
        current += datum -> text
        count += 1
      }
    }
    flush()
    requests.result()
  }

  private def quoted(text: String): String = write(_.writeString(text))

  /** One MetricDatum; its Timestamp in seconds since the epoch, as awsJson writes timestamps. */
  private def datumJson(d: MetricDatum): String = write { g =>
    g.writeStartObject()
    g.writeStringField("MetricName", d.name)
    g.writeArrayFieldStart("Dimensions")
    d.dimensions.foreach { case (name, value) =>
      g.writeStartObject()
      g.writeStringField("Name", name)
      g.writeStringField("Value", value)
      g.writeEndObject()
    }
    g.writeEndArray()
    g.writeNumberField("Timestamp", BigDecimal(d.timestampMillis).bigDecimal.movePointLeft(3))
    g.writeNumberField("Value", d.value)
    g.writeStringField("Unit", d.unit)
    g.writeEndObject()
  }

  private def write(body: com.fasterxml.jackson.core.JsonGenerator => Unit): String = {
    val out = new StringWriter()
    val g = json.createGenerator(out)
    body(g)
    g.close()
    out.toString
  }
}
