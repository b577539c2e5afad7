// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}

import io.github.sparkkinesis.aws.{AssumedRoles, AwsCredentialsConfig, SessionCredentials}
import io.github.sparkkinesis.config.{AwsOptions, ParsedOptions}
import io.github.sparkkinesis.errors.KinesisException
import io.github.sparkkinesis.testing.{KinesisEmulator, ServerProcess, StsServer, TestLog}
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

  /** The connector's error in a failure's causes. */
  private def connectorError(t: Throwable): KinesisException =
    Iterator
      .iterate(t)(_.getCause)
      .takeWhile(_ != null)
      .collectFirst { case k: KinesisException => k }
      .getOrElse(fail("no error of the connector's in the failure", t))

  private def closedPort = s"http://127.0.0.1:${ServerProcess.freePort()}"

  test(
    "STS out of reach: a write keeps trying for outageTimeout, then fails before any row is read, naming STS",
    Integration) {
    assume(emulated, "needs the STS server on loopback")
    val session: SparkSession = spark
    import session.implicits._
    val closed = closedPort
    val started = System.nanoTime()
    val e = intercept[KinesisException] {
      Seq(("k", "v"))
        .toDF("partitionKey", "data")
        .write
        .format("kinesis")
        .options(roleOptions("streamName" -> "any", "stsEndpoint" -> closed, "outageTimeout" -> "3s"))
        .mode("append")
        .save()
    }
    assert((System.nanoTime() - started) / 1000000 >= 3000, "tried for outageTimeout")
    assert(e.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE.OUTAGE", e.getMessage)
    assert(
      e.getMessage.startsWith(
        "[KINESIS_CREDENTIALS_UNAVAILABLE.OUTAGE] The connector has no AWS credentials to call Kinesis with: could " +
          s"not reach STS at $closed (region $region) to assume role $Role: "),
      e.getMessage
    )
    assert(e.getMessage.contains(s"Check the option stsEndpoint ($closed)"), e.getMessage)
    assert(!e.getMessage.contains(endpoint), "the Kinesis endpoint is not what failed")
  }

  test(
    "STS out of reach: a streaming read says so while it keeps trying, and fails at outageTimeout naming STS",
    Integration) {
    assume(emulated, "needs the STS server on loopback")
    val stream = newStream(shards = 1)
    val closed = closedPort
    var failure: Option[Throwable] = None
    val lines = TestLog.during("role") {
      val query = new BatchCollector().start(
        spark.readStream
          .format("kinesis")
          .options(roleOptions("streamName" -> stream, "stsEndpoint" -> closed, "outageTimeout" -> "12s"))
          .load(),
        newCheckpoint())
      eventually("the query to fail", seconds = 90)(query.exception.isDefined)
      failure = query.exception
    }
    val e = connectorError(failure.get)
    assert(e.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE.OUTAGE", e.getMessage)
    assert(e.getMessage.contains(s"could not reach STS at $closed (region $region) to assume role $Role"), e.getMessage)
    assert(e.getMessage.contains("longer than the option outageTimeout allows (12s)"), e.getMessage)
    assert(!e.getMessage.contains(endpoint), e.getMessage)
    // What the log said meanwhile: STS, not Kinesis.
    val warnings = lines.filter(l => l.contains(" WARN ") && l.contains(s"stream '$stream'"))
    assert(
      warnings.exists(w =>
        w.contains(s"no AWS credentials for the calls for stream '$stream'") &&
          w.contains(s"could not reach STS at $closed (region $region) to assume role $Role") &&
          w.contains("The query keeps trying until 12s have passed")),
      warnings.mkString("\n")
    )
    assert(!warnings.exists(_.contains(s"calls to Kinesis at $endpoint")), warnings.mkString("\n"))
  }

  test(
    "a role STS refuses fails at once, naming STS, the role and the trust policy; the right external id reads",
    Integration) {
    assume(emulated, "needs an STS server on loopback")
    val strict = new StsServer(new java.io.File(sys.props.getOrElse("kinesis.test.root", ".")))
    strict.start()
    try {
      val crossAccount = "arn:aws:iam::123456789012:role/cross-account-reader"
      val (key, secret) = strict.enforceIam(crossAccount, externalId = "ext-right")
      val stream = newStream(shards = 1)
      put(stream, Seq("across accounts"))
      def options(externalId: String, keyId: String = key): Map[String, String] =
        roleOptions(
          "streamName" -> stream,
          "initialPosition" -> "trim_horizon",
          "stsEndpoint" -> strict.endpoint,
          "awsAccessKey" -> keyId,
          "awsSecretKey" -> secret,
          "roleArn" -> crossAccount,
          "roleExternalId" -> externalId,
          "outageTimeout" -> "10m"
        )

      // The wrong external id: the trust policy does not let the keys assume the role.
      val started = System.nanoTime()
      val refused = new BatchCollector()
        .start(spark.readStream.format("kinesis").options(options("ext-wrong")).load(), newCheckpoint())
      eventually("the query to fail")(refused.exception.isDefined)
      assert((System.nanoTime() - started) / 1000000000L < 60, "at once, not after outageTimeout")
      val e = connectorError(refused.exception.get)
      assert(e.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE", e.getMessage)
      assert(
        e.getMessage.startsWith(
          "[KINESIS_CREDENTIALS_UNAVAILABLE] The connector has no AWS credentials to call Kinesis with: STS at " +
            s"${strict.endpoint} (region $region) refused AssumeRole of role $crossAccount (session orders-to-lake, " +
            "with an external id): "),
        e.getMessage
      )
      Seq("trust policy", "Condition on sts:ExternalId", "roleExternalId", "sts:AssumeRole")
        .foreach(word => assert(e.getMessage.contains(word), s"'$word' in ${e.getMessage}"))
      assert(!e.getMessage.contains(endpoint) && !e.getMessage.contains(secret), e.getMessage)

      // Keys STS does not know: refused too, naming STS (a batch read, planned on the driver).
      val unknown = connectorError(intercept[Exception] {
        spark.read.format("kinesis").options(options("ext-right", keyId = "AKIDUNKNOWNKEYID")).load().count()
      })
      assert(unknown.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE", unknown.getMessage)
      assert(unknown.getMessage.contains(s"STS at ${strict.endpoint} (region $region)"), unknown.getMessage)

      // The external id the trust policy asks for: the role is assumed and the stream read.
      val collector = new BatchCollector
      val query =
        collector.start(spark.readStream.format("kinesis").options(options("ext-right")).load(), newCheckpoint())
      assert(runUntil(collector, query, 1).map(_.data) == Seq("across accounts"))
      assert(
        strict
          .assumeRoleRequests()
          .exists(r => r.get("ExternalId").contains("ext-right") && r.get("SignedBy").contains(key)))
    } finally strict.stop()
  }
}
