// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}

import io.github.sparkkinesis.aws.{AssumedRoles, AwsCredentialsConfig, SessionCredentials}
import io.github.sparkkinesis.config.{AwsOptions, ParsedOptions}
import io.github.sparkkinesis.errors.KinesisException
import io.github.sparkkinesis.testing.{KinesisEmulator, StsServer}
import org.apache.spark.sql.SparkSession
import org.scalatest.funsuite.AnyFunSuite

/**
 * Assumed roles: the connector assumes roleArn through an STS server on loopback (moto) and reads and
 * writes the emulator with the role's sessions. The emulator takes any credentials, which is why this suite
 * runs only against it: what the tests check is what STS received, and what executors receive.
 */
class RoleIntegrationSuite extends AnyFunSuite with SourceIntegration {

  private val sts = new StsServer(new java.io.File(sys.props.getOrElse("kinesis.test.root", ".")))
  private val emulated = sys.env.get("KINESIS_ENDPOINT").forall(_.isEmpty)
  private val Role = "arn:aws:iam::123456789012:role/kinesis-reader"

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    if (emulated) sts.start()
  }

  override protected def afterAll(): Unit =
    try sts.stop()
    finally super.afterAll()

  private def roleOptions(more: (String, String)*): Map[String, String] =
    Map(
      "endpoint" -> endpoint,
      "region" -> region,
      "awsAccessKey" -> KinesisEmulator.AccessKey,
      "awsSecretKey" -> KinesisEmulator.SecretKey,
      "roleArn" -> Role,
      "roleExternalId" -> "ext-7d1f",
      "roleSessionName" -> "orders-to-lake",
      "stsEndpoint" -> sts.endpoint
    ) ++ more

  private def javaRoundTrip(value: AnyRef): (Array[Byte], AnyRef) = {
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    out.writeObject(value)
    out.close()
    (bytes.toByteArray, new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)).readObject())
  }

  test(
    "reads and writes as the role: STS is asked with the external id and session name, signed by the keys",
    Integration) {
    assume(emulated, "the emulator takes the session credentials of the STS server on loopback; AWS would not")
    val stream = newStream(shards = 1)
    val session: SparkSession = spark
    import session.implicits._
    (1 to 50)
      .map(i => (s"k$i", s"as-role-$i"))
      .toDF("partitionKey", "data")
      .write
      .format("kinesis")
      .options(roleOptions("streamName" -> stream))
      .mode("append")
      .save()
    val collector = new BatchCollector
    val query = collector.start(
      spark.readStream
        .format("kinesis")
        .options(roleOptions("streamName" -> stream, "initialPosition" -> "trim_horizon"))
        .load(),
      newCheckpoint())
    val rows = runUntil(collector, query, 50)
    assert(rows.map(_.data).sorted == (1 to 50).map(i => s"as-role-$i").sorted)

    val asked = sts.assumeRoleRequests()
    assert(asked.nonEmpty, "STS was asked")
    asked.foreach { request =>
      assert(request.get("RoleArn").contains(Role), request)
      assert(request.get("ExternalId").contains("ext-7d1f"), request)
      assert(request.get("RoleSessionName").contains("orders-to-lake"), request)
      assert(request.get("SignedBy").contains(KinesisEmulator.AccessKey), request)
    }
  }

  test("executors receive the role's session, never the long-lived secret key", Integration) {
    assume(emulated, "needs the STS server on loopback")
    val aws = AwsOptions.parse(new ParsedOptions(roleOptions()), () => None)
    val assumed = aws.credentials.asInstanceOf[AwsCredentialsConfig.AssumedRole]
    val (bytes, received) = javaRoundTrip(aws)
    val shipped = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1)
    assert(!shipped.contains(KinesisEmulator.SecretKey), "the secret key is not in what a task carries")
    val roleSession = received.asInstanceOf[io.github.sparkkinesis.aws.AwsConfig].credentials match {
      case s: AwsCredentialsConfig.RoleSession => s
      case other => fail(s"a task carries $other")
    }
    assert(roleSession.role == assumed.role)
    assert(roleSession.session.accessKeyId.startsWith("ASIA"), "temporary credentials from STS")
    // What the executor's clients sign with: the newest session tasks brought.
    assert(AssumedRoles.newestReceived(assumed.role).contains(roleSession.session))
    assert(!received.toString.contains(roleSession.session.secretKey.reveal))
    assert(!received.toString.contains(roleSession.session.sessionToken.reveal))
  }

  test("sessions are renewed before they expire, on the driver and in what reaches the executors", Integration) {
    assume(emulated, "needs the STS server on loopback")
    val stream = newStream(shards = 1)
    val before = sts.assumeRoleRequests().size
    val options =
      roleOptions(
        "streamName" -> stream,
        "initialPosition" -> "trim_horizon",
        "internal.roleSessionDuration" -> "4s",
        "maxFetchDuration" -> "500ms")
    val role = AwsOptions
      .parse(new ParsedOptions(options), () => None)
      .credentials
      .asInstanceOf[AwsCredentialsConfig.AssumedRole]
      .role
    val collector = new BatchCollector
    val df = spark.readStream.format("kinesis").options(options).load()
    val query = collector.start(df, newCheckpoint())
    val seen = scala.collection.mutable.ArrayBuffer.empty[SessionCredentials]
    (1 to 12).foreach { i =>
      put(stream, Seq(s"renewed-$i"))
      Thread.sleep(1000)
      seen ++= AssumedRoles.newestReceived(role)
      assert(query.exception.isEmpty, query.exception)
    }
    eventually("all 12 records", query = Some(query))(collector.rows.size >= 12)
    query.stop()
    assert(sts.assumeRoleRequests().size - before >= 3, "the role was assumed again as sessions aged")
    val expiries = seen.map(_.expiresAtMillis)
    assert(expiries.distinct.size >= 3, s"executors received renewed sessions: ${expiries.distinct}")
    assert(expiries.zip(expiries.drop(1)).forall { case (a, b) => b >= a }, "never an older session after a newer")

    // No secret of the keys or of any session shows where people look.
    val failing = new BatchCollector()
      .start(spark.readStream.format("kinesis").options(options + ("streamName" -> "missing")).load(), newCheckpoint())
    eventually("the query to fail")(failing.exception.isDefined)
    val secrets = Map("the secret key" -> KinesisEmulator.SecretKey) ++ seen.distinct.zipWithIndex.flatMap {
      case (s, i) =>
        Seq(s"session $i's secret key" -> s.secretKey.reveal, s"session $i's token" -> s.sessionToken.reveal)
    }
    wherePeopleLook(df, query, failing.exception.get).foreach { case (where, text) =>
      secrets.foreach { case (what, value) => assert(!text.contains(value), s"$what appears in $where") }
    }
  }

  test("a role that cannot be assumed fails the write before any row is read, naming what to check", Integration) {
    assume(emulated, "needs the STS server on loopback")
    val session: SparkSession = spark
    import session.implicits._
    val closed = s"http://127.0.0.1:${io.github.sparkkinesis.testing.ServerProcess.freePort()}"
    val e = intercept[KinesisException] {
      Seq(("k", "v"))
        .toDF("partitionKey", "data")
        .write
        .format("kinesis")
        .options(roleOptions("streamName" -> "any", "stsEndpoint" -> closed))
        .mode("append")
        .save()
    }
    assert(e.getMessage.startsWith("[KINESIS_CREDENTIALS_UNAVAILABLE]"), e.getMessage)
    assert(e.getMessage.contains("sts:AssumeRole") && e.getMessage.contains("stsEndpoint"), e.getMessage)
  }
}
