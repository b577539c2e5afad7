// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.api

import java.sql.Timestamp

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.client.{
  ApiFailures,
  ClientUse,
  ConsumerInfo,
  KinesisApi,
  KinesisApiException,
  KinesisClientFactory
}
import io.github.sparkkinesis.config.{AwsOptions, KinesisNames, KinesisOptions, ParsedOptions, StreamArn}
import io.github.sparkkinesis.consumers.ConsumerRegistration
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.util.{Clock, SystemClock}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.{StringType, StructField, StructType, TimestampType}

/**
 * Registers, lists and deregisters enhanced fan-out consumers outside a query, like the Databricks
 * source's AWSKinesisConsumerManager, and with the same options as the source for region, endpoint and
 * credentials:
 *
 * {{{
 *   val manager = KinesisConsumerManager.newManager().option("region", "us-east-1").create()
 *   val arn = manager.registerConsumer("orders", "spark-kinesis_orders-to-lake")
 *   manager.listConsumers("orders").show()
 *   manager.deregisterConsumer("orders", "spark-kinesis_orders-to-lake")
 * }}}
 *
 * A stream is given by its name or by its ARN (as another account's stream shared by a resource policy
 * must be; its region must be the manager's). Names are used as given: a query with `consumerMode` efo uses
 * `consumerNamePrefix` + `consumerName`.
 * Every method takes and returns plain values (or a DataFrame), so it is as easy to call from Python over
 * py4j. Makes no call to Kinesis until a method is called. Thread-safe.
 */
final class KinesisConsumerManager private[api] (aws: AwsConfig, newApi: AwsConfig => KinesisApi, clock: Clock)
    extends AutoCloseable {

  private var opened = Option.empty[KinesisApi]

  private def api: KinesisApi = synchronized {
    opened.getOrElse {
      val created = newApi(aws)
      opened = Some(created)
      created
    }
  }

  /** The stream's consumers: name, ARN, status (CREATING, ACTIVE or DELETING) and creation time. */
  private[sparkkinesis] def consumers(stream: String): Seq[ConsumerInfo] =
    call("ListStreamConsumers", stream)(api.listConsumers(streamArn(stream)))

  /**
   * The stream's consumers as a DataFrame of the active SparkSession, with the columns `consumerName`,
   * `consumerARN`, `consumerStatus` and `consumerCreationTimestamp`.
   */
  def listConsumers(stream: String): DataFrame =
    SparkSession.active.createDataFrame(
      consumers(stream).map(KinesisConsumerManager.row).asJava,
      KinesisConsumerManager.ConsumerSchema)

  /**
   * Registers a consumer of that name with the stream, or finds the one that exists, and returns its ARN
   * once it is ACTIVE (Kinesis takes a few seconds).
   */
  def registerConsumer(stream: String, consumerName: String): String = register(stream, consumerName).arn

  /** The consumer [[registerConsumer]] registers or finds, ACTIVE. */
  private[sparkkinesis] def register(stream: String, consumerName: String): ConsumerInfo = {
    KinesisConsumerManager.checkName(consumerName)
    call("RegisterStreamConsumer", stream) {
      ConsumerRegistration.activate(api, stream, streamArn(stream), consumerName, clock)
    }
  }

  /** Starts deregistering the consumer; Kinesis removes it within seconds. */
  def deregisterConsumer(stream: String, consumerName: String): Unit = {
    KinesisConsumerManager.checkName(consumerName)
    val arn = streamArn(stream)
    call("DeregisterStreamConsumer", stream) {
      try api.deregisterConsumer(arn, consumerName)
      catch {
        case e: KinesisApiException.ResourceNotFound =>
          throw KinesisErrors.consumerNotFound(stream, consumerName, e)
      }
    }
  }

  override def close(): Unit = synchronized {
    opened.foreach(_.close())
    opened = None
  }

  /** The stream's ARN: given, or asked for by its name. */
  private def streamArn(stream: String): String = StreamArn.parse(stream) match {
    case Some(arn) if arn.region != aws.region =>
      throw KinesisErrors.invalidOption(
        KinesisOptions.Region.key,
        s"'${aws.region}'",
        s"the stream ${arn.arn} is in region ${arn.region}; create a manager with the option region ${arn.region}",
        arn.region
      )
    case Some(arn) => arn.arn
    case None => call("DescribeStreamSummary", stream)(api.describeStream(stream).arn)
  }

  private def call[T](action: String, stream: String)(body: => T): T =
    ApiFailures.userFacing(action, stream, api, "manage the consumers of")(body)
}

object KinesisConsumerManager {

  val ConsumerSchema: StructType = StructType(
    Seq(
      StructField("consumerName", StringType, nullable = false),
      StructField("consumerARN", StringType, nullable = false),
      StructField("consumerStatus", StringType, nullable = false),
      StructField("consumerCreationTimestamp", TimestampType, nullable = true)
    ))

  /** A consumer as a row of [[ConsumerSchema]]. */
  private[sparkkinesis] def row(c: ConsumerInfo): Row = Row(c.name, c.arn, c.status, new Timestamp(c.createdAtMillis))

  private def checkName(name: String): Unit =
    if (!KinesisNames.isConsumer(name)) throw KinesisErrors.consumerNameInvalid(name)

  def newManager(): Builder = new Builder(Map.empty)

  /** A manager from options given at once, e.g. a Python dict over py4j. */
  def create(options: java.util.Map[String, String]): KinesisConsumerManager = create(options.asScala.toMap)

  /** A manager from options given at once. */
  def create(options: Map[String, String]): KinesisConsumerManager = new Builder(options).create()

  /** Collects the options: `region`, `endpoint`, `awsAccessKey`, `awsSecretKey`, `awsSessionToken`. */
  final class Builder private[KinesisConsumerManager] (options: Map[String, String]) {
    def option(key: String, value: String): Builder = new Builder(options + (key -> value))

    /** Checks the options, as the source does at `.load()`; no call to Kinesis yet. */
    def create(): KinesisConsumerManager =
      new KinesisConsumerManager(
        AwsOptions.parse(new ParsedOptions(options), () => KinesisClientFactory.defaultRegion()),
        KinesisClientFactory.create(_, ClientUse.ManagingConsumers),
        SystemClock
      )
  }
}
