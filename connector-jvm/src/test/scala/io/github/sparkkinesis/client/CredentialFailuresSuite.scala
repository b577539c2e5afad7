// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.time.Instant
import java.util.concurrent.atomic.AtomicInteger

import io.github.sparkkinesis.aws._
import io.github.sparkkinesis.aws.AwsCredentialsConfig.{AssumedRole, RoleSession, StaticKeys}
import io.github.sparkkinesis.aws.CredentialsFailure.{Expired, Refused, Unreachable}
import io.github.sparkkinesis.errors.ErrorCondition
import io.github.sparkkinesis.offsets.ShardKey
import io.github.sparkkinesis.reading.FetchFailure
import io.github.sparkkinesis.testing.{AwsStub, ServerProcess}
import org.scalatest.funsuite.AnyFunSuite

/**
 * What a Kinesis client's call makes of credentials that fail, and what the connector then does: the
 * client's own failure (`CredentialsUnavailable`, its source named), whether it is an outage that is
 * tried again, how a shard's reader takes it, and the error a user sees. Kinesis is a stub on loopback.
 */
class CredentialFailuresSuite extends AnyFunSuite {

  private val Role = "arn:aws:iam::123456789012:role/reader"
  private val sessions = new AtomicInteger()
  private val shard = ShardKey("orders", "shardId-000000000000")

  private def withKinesis(answer: AwsStub.Answer)(test: AwsStub => Unit): Unit = {
    val kinesis = new AwsStub(_ => answer)
    try test(kinesis)
    finally kinesis.close()
  }

  /** The failure of a ListShards call by a reading client of `kinesis` that signs with `credentials`. */
  private def listShardsFailure(kinesis: String, credentials: AwsCredentialsConfig): KinesisApiException = {
    val api = KinesisClientFactory.create(AwsConfig("us-east-1", Some(kinesis), credentials), ClientUse.Reading)
    try intercept[KinesisApiException](api.listShards("orders", 100))
    finally api.close()
  }

  private def credentialsOf(e: KinesisApiException): CredentialsFailure = e match {
    case c: KinesisApiException.CredentialsUnavailable => c.failure
    case other => fail(s"not a credentials failure: $other")
  }

  private def userFacing(e: KinesisApiException, target: String) =
    ApiFailures.toUserFacing(e, "ListShards", "orders", target, "read")

  test("STS out of reach for the role: an outage, tried again, its error naming STS and not Kinesis") {
    val closed = s"http://127.0.0.1:${ServerProcess.freePort()}"
    withKinesis(AwsStub.Answer(200, "{}")) { kinesis =>
      val role = RoleSpec(Role, None, s"failures-${sessions.incrementAndGet()}", Some(closed), "us-east-1", 900)
      val keys = StaticKeys("AKIDTESTKEYID", new Secret("secret"), None)
      val e = listShardsFailure(kinesis.endpoint, AssumedRole(role, keys))
      assert(kinesis.requests.isEmpty, "no call reached Kinesis")
      assert(credentialsOf(e).kind == Unreachable)
      assert(ApiFailures.outage(e) && ApiFailures.retryable(e))
      val error = userFacing(e, kinesis.endpoint)
      assert(ErrorCondition.unapply(error).contains(ErrorCondition.CredentialsUnreachable))
      assert(ApiFailures.transient(error), "the query lists the shards again, as for an outage of Kinesis")
      assert(error.getMessage.contains(s"could not reach STS at $closed (region us-east-1) to assume role $Role"))
      assert(!error.getMessage.contains(kinesis.endpoint), error.getMessage)
      val read = FetchFailure.of(e, shard, subscribes = false, kinesis.endpoint)
      assert(read.kind == FetchFailure.Transient && read.error.getCondition == "KINESIS_CREDENTIALS_UNREACHABLE")
    }
  }

  test("Kinesis saying keys given as options expired: they cannot be renewed by the connector, the query fails") {
    withKinesis(
      AwsStub.kinesisError("ExpiredTokenException", "The security token included in the request is expired")) {
      kinesis =>
        val keys = StaticKeys("ASIDTESTSESSIONID", new Secret("secret"), Some(new Secret("token")))
        val e = listShardsFailure(kinesis.endpoint, keys)
        val f = credentialsOf(e)
        assert(f.kind == Expired && !f.renewable && !ApiFailures.outage(e) && !ApiFailures.retryable(e))
        val error = userFacing(e, kinesis.endpoint)
        assert(
          error.getMessage.startsWith(
            "[KINESIS_CREDENTIALS_UNAVAILABLE] The connector has no AWS credentials to call Kinesis with: the keys " +
              "given as awsAccessKey (ASID...ONID) and awsSecretKey with awsSessionToken have expired: "),
          error.getMessage
        )
        assert(error.getMessage.contains("The connector cannot renew keys given as options: give new ones"))
        assert(FetchFailure.of(e, shard, subscribes = false, kinesis.endpoint).kind == FetchFailure.Fatal)
        val writing = ApiFailures.toUserFacing(e, "PutRecords", "orders", kinesis.endpoint, "write to", Some("row 3"))
        assert(writing.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE.WRITE")
        assert(writing.getMessage.endsWith("The write failed at once, without retrying, at row 3."))
    }
  }

  test("an executor's session of the driver's role expired: when, what renews it, and the read tries again") {
    withKinesis(
      AwsStub.kinesisError("ExpiredTokenException", "The security token included in the request is expired")) {
      kinesis =>
        val role = RoleSpec(Role, None, s"failures-${sessions.incrementAndGet()}", None, "us-east-1", 900)
        val expiredAt = Instant.parse("2026-01-01T00:00:00Z")
        val session = SessionCredentials("ASIASESSION", new Secret("s"), new Secret("t"), expiredAt.toEpochMilli)
        AssumedRoles.received(role, session)
        val e = listShardsFailure(kinesis.endpoint, new RoleSession(role, session))
        val f = credentialsOf(e)
        assert(f.kind == Expired && f.renewable)
        assert(
          f.failure == s"the session of role $Role that this executor received from the driver expired at $expiredAt")
        assert(f.check.contains("The driver assumes the role again halfway through each session"))
        assert(f.check.endsWith("Spark runs the task again with the driver's current session."))
        assert(FetchFailure.of(e, shard, subscribes = false, kinesis.endpoint).kind == FetchFailure.Other)
    }
  }

  test("Kinesis not knowing the key: the keys to check; a denied action stays Kinesis' own refusal") {
    withKinesis(
      AwsStub.kinesisError("UnrecognizedClientException", "The security token included in the request is invalid.")) {
      kinesis =>
        val keys = StaticKeys("AKIDTESTKEYID", new Secret("secret"), None)
        val f = credentialsOf(listShardsFailure(kinesis.endpoint, keys))
        assert(f.kind == Refused)
        assert(
          f.failure == s"Kinesis at ${kinesis.endpoint} (region us-east-1) did not accept the keys given as " +
            "awsAccessKey (AKID...EYID) and awsSecretKey")
        assert(f.check.startsWith("Check awsAccessKey and awsSecretKey"))
    }
    withKinesis(AwsStub.kinesisError("AccessDeniedException", "User: arn:aws:iam::1:user/u is not authorized")) {
      kinesis =>
        val keys = StaticKeys("AKIDTESTKEYID", new Secret("secret"), None)
        assert(listShardsFailure(kinesis.endpoint, keys).isInstanceOf[KinesisApiException.AccessDenied])
    }
  }
}
