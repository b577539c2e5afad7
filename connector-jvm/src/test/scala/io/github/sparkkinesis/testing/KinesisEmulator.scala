// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.File
import java.util.UUID

import scala.collection.mutable
import scala.util.Try

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, Secret}
import io.github.sparkkinesis.client.KinesisAdminApi
import org.scalatest.{BeforeAndAfterAll, Suite}

/**
 * Gives a suite a Kinesis to talk to: an [[EmulatorProcess]], always stopped, or, when KINESIS_ENDPOINT is
 * set, that endpoint (with AWS_REGION and the credentials of the usual environment variables), so the same
 * suites run against LocalStack or AWS.
 */
trait KinesisEmulator extends BeforeAndAfterAll { self: Suite =>

  private val external = sys.env.get("KINESIS_ENDPOINT").filter(_.nonEmpty)
  private val emulator = new EmulatorProcess(new File(sys.props.getOrElse("kinesis.test.root", ".")), region)
  @volatile private var endpointUrl: String = _
  @volatile private var adminApi: Option[KinesisAdminApi] = None
  private val created = mutable.ArrayBuffer.empty[String]

  /** Whether the emulator keeps its data on disk, so that it can be stopped and started again. */
  protected def persistentEmulator: Boolean = false

  /** Whether [[stopEmulator]] can stop Kinesis: not an external endpoint. */
  def canStopEmulator: Boolean = external.isEmpty && persistentEmulator

  /** Stops the emulator (a persistent one): calls to it fail until [[restartEmulator]]. */
  def stopEmulator(): Unit = emulator.stop()

  /** Starts the stopped emulator again, on its port, with the streams and records it had. */
  def restartEmulator(): Unit = emulator.restart()

  def region: String = external.flatMap(_ => sys.env.get("AWS_REGION")).getOrElse("us-east-1")
  def endpoint: String = endpointUrl

  /** Credentials as source options: fixed ones for the emulator, none (the default chain) otherwise. */
  def credentialOptions: Map[String, String] =
    if (external.isDefined) Map.empty
    else Map("awsAccessKey" -> KinesisEmulator.AccessKey, "awsSecretKey" -> KinesisEmulator.SecretKey)

  def awsConfig: AwsConfig = KinesisEmulator.awsConfig(region, endpoint, external.isEmpty)

  def admin: KinesisAdminApi = adminApi.get

  /** A new stream with a unique name; deleted when the suite ends. */
  def newStream(shards: Int): String = {
    val name = s"it-${UUID.randomUUID().toString.take(8)}"
    admin.createStream(name, shards)
    created.synchronized(created += name)
    name
  }

  override protected def beforeAll(): Unit = {
    endpointUrl = external.getOrElse(emulator.start(
      if (persistentEmulator) Some(java.nio.file.Files.createTempDirectory("kinesis-emulator-data").toFile) else None))
    adminApi = Some(KinesisAdminApi.create(awsConfig))
    super.beforeAll()
  }

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally {
      if (external.isDefined) created.foreach(s => Try(admin.deleteStream(s)))
      adminApi.foreach(a => Try(a.close()))
      emulator.stop()
    }
}

object KinesisEmulator {
  val AccessKey = "AKIDEMULATOR"
  val SecretKey = "emulator-secret"

  def freePort(): Int = EmulatorProcess.freePort()

  /** Fixed keys for the emulator, which accepts any; the default credential chain elsewhere. */
  def awsConfig(region: String, endpoint: String, emulated: Boolean): AwsConfig = AwsConfig(
    region,
    Some(endpoint),
    if (emulated) AwsCredentialsConfig.StaticKeys(AccessKey, new Secret(SecretKey), None)
    else AwsCredentialsConfig.DefaultChain)
}
