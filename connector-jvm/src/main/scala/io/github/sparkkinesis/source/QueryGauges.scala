// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.util.UUID

import scala.collection.mutable

import com.codahale.metrics.{Gauge, MetricRegistry}
import org.apache.spark.sparkkinesis.SparkMetricsSystem
import org.apache.spark.sql.sparkkinesis.ActiveQueries
import org.apache.spark.sql.SparkSession
import org.slf4j.LoggerFactory

/**
 * A query's source metrics as gauges of Spark's metric system (Dropwizard), so that the sinks of
 * `spark.metrics.conf` export them: one gauge per number of the metrics a progress reports, named as there,
 * in a source named `kinesis.<query>.<streams>`. The gauges show the very map the last progress was made of
 * ([[publish]] is handed it): nothing is worked out twice, and a figure a progress leaves out (the lag of a
 * stream whose calls fail) has no gauge then either.
 *
 * Registered at the first [[publish]] (Spark asks a source for its metrics at the end of every trigger, on
 * the query's thread, where the query's id and session are known), if `label` names the query then (None:
 * not to be registered); removed by [[stop]], which may be called more than once, from any thread. Driver
 * side; thread-safe.
 *
 * @param streams  the streams the source reads
 * @param label    the query's name (its id if it has none), asked once, None if the gauges are not wanted
 * @param register registers a source of gauges under a name; returns what removes it
 */
private[sparkkinesis] final class QueryGauges(
    streams: Seq[String],
    label: () => Option[String],
    register: (String, MetricRegistry) => Option[() => Unit]) {
  import QueryGauges._

  private val log = LoggerFactory.getLogger(getClass)

  private val registry = new MetricRegistry
  private val gauges = mutable.Map.empty[String, ValueGauge]
  private var state: State = NotAsked
  private var lastPublished = Map.empty[String, String]

  /** The source's name once registered. */
  def sourceName: Option[String] = synchronized(state match {
    case Registered(name, _) => Some(name)
    case _ => None
  })

  /** The figures of the progress Spark is making (`metrics`): the gauges show them from now on. */
  def publish(metrics: Map[String, String]): Unit = synchronized {
    if (state == NotAsked) state = label().fold[State](Off)(start)
    // Spark asks every 10 ms while nothing arrives; the figures change far less often.
    if (state.isInstanceOf[Registered] && metrics != lastPublished) {
      lastPublished = metrics
      val numbers = metrics.flatMap { case (key, text) => number(text).map(gaugeName(key) -> _) }
      gauges.keySet.diff(numbers.keySet).foreach { gone =>
        registry.remove(gone)
        gauges.remove(gone)
      }
      numbers.foreach { case (name, value) =>
        gauges.get(name) match {
          case Some(gauge) => gauge.value = value
          case None =>
            val gauge = new ValueGauge(value)
            gauges(name) = gauge
            registry.register(name, gauge)
        }
      }
    }
  }

  private def start(query: String): State = {
    val name = claim(sourceNameOf(query, streams))
    try
      register(name, registry) match {
        case Some(remove) =>
          log.info(s"The metrics of ${streams.mkString(",")} are in Spark's metric system as source $name")
          Registered(name, remove)
        case None =>
          release(name)
          Off
      }
    catch {
      case scala.util.control.NonFatal(e) =>
        release(name)
        log.warn(s"Could not register source $name in Spark's metric system", e)
        Off
    }
  }

  /** The query stops (or failed): the gauges are removed. Idempotent; no gauge is registered after it. */
  def stop(): Unit = synchronized {
    state match {
      case Registered(name, remove) =>
        try remove()
        finally release(name)
      case _ =>
    }
    state = Stopped
  }
}

private[sparkkinesis] object QueryGauges {

  private sealed trait State
  private case object NotAsked extends State
  private case object Off extends State
  private case object Stopped extends State
  private final case class Registered(name: String, remove: () => Unit) extends State

  /** A gauge that shows the value it was last given. */
  private final class ValueGauge(@volatile var value: Number) extends Gauge[Number] {
    override def getValue: Number = value
  }

  /** Spark's own switch for the metrics of streaming queries, read when a query starts (its session's copy). */
  val EnabledKey = "spark.sql.streaming.metricsEnabled"

  /**
   * The gauges of a query Spark runs, in the driver's metric system, if `spark.sql.streaming.metricsEnabled`
   * is true in the query's session; named after the query's name, or its id if it has none.
   */
  def inSpark(streams: Seq[String]): QueryGauges =
    new QueryGauges(streams, () => sparkQueryLabel(), SparkMetricsSystem.register)

  /** Gauges never registered, for a stream no query runs (tests). */
  def none(streams: Seq[String]): QueryGauges = new QueryGauges(streams, () => None, (_, _) => None)

  private def sparkQueryLabel(): Option[String] =
    SparkSession.getActiveSession
      .filter(_.conf.get(EnabledKey, "false").trim.equalsIgnoreCase("true"))
      .flatMap(_ => QueryStreams.streamingQueryId())
      .map(id => ActiveQueries.nameOf(UUID.fromString(id)).getOrElse(id))

  /**
   * `kinesis.<query>.<streams>`: the query's name (or id) and the streams' names, each with every character
   * but letters, digits, `_` and `-` made `_`, so that a name is one segment in Graphite's and JMX's
   * hierarchies, one file in the CSV sink's directory and the same word in Prometheus' (which makes `-` `_`).
   */
  def sourceNameOf(query: String, streams: Seq[String]): String =
    s"$Prefix.${segment(query)}.${segment(streams.mkString("_"))}"

  /** A metric's name as a gauge's: a stream's name in it (`secondsSinceLastSuccessfulCall.<stream>`) cleaned. */
  def gaugeName(key: String): String = key.split('.').map(segment).mkString(".")

  private def segment(text: String): String = {
    val cleaned = text.map(c => if (c.isLetterOrDigit && c < 128 || c == '_' || c == '-') c else '_')
    if (cleaned.isEmpty) "_" else cleaned
  }

  private val Prefix = "kinesis"

  /** A metric's text as a number (`Long` if integral, else `Double`), or None if it is not one. */
  def number(text: String): Option[Number] =
    scala.util
      .Try[Number](java.lang.Long.valueOf(text))
      .orElse(scala.util.Try[Number](java.lang.Double.valueOf(text)))
      .toOption

  /** The source names registered in this JVM. */
  private val inUse = mutable.Set.empty[String]

  /**
   * `wanted`, or if another source of the connector's has it or would share a prefix with it (Spark removes
   * a source with every metric whose name starts with the source's: `kinesis.q.s` would take
   * `kinesis.q.s2`'s along), `kinesis-2.<query>.<streams>`, `kinesis-3...`: two sources of one query on the
   * same stream, or two queries of one name in two sessions, each keep their own.
   */
  def claim(wanted: String): String = inUse.synchronized {
    def free(name: String) = !inUse.exists(used => used.startsWith(name) || name.startsWith(used))
    val rest = wanted.stripPrefix(s"$Prefix.")
    val name = (Iterator.single(wanted) ++ Iterator.from(2).map(i => s"$Prefix-$i.$rest")).find(free).get
    inUse += name
    name
  }

  def release(name: String): Unit = inUse.synchronized(inUse -= name)
}
