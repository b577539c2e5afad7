// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.health

import scala.collection.mutable

import io.github.sparkkinesis.errors.KinesisException
import io.github.sparkkinesis.testing.ManualClock
import org.scalatest.funsuite.AnyFunSuite

class KinesisHealthSuite extends AnyFunSuite {

  private class Fixture(timeoutMs: Option[Long] = Some(600000)) {
    val clock = new ManualClock(0L)
    val logged = mutable.ArrayBuffer.empty[String]
    val health = new KinesisHealth(
      "http://127.0.0.1:4567 (region us-east-1)",
      "KinesisV2[s]",
      "read",
      timeoutMs,
      clock,
      logged += _)
    val refused = new RuntimeException("outer", new java.net.ConnectException("Connection refused"))

    /** Calls failing every `everyMs` for `forMs`. */
    def failFor(forMs: Long, everyMs: Long = 500): Unit = {
      var t = 0L
      while (t < forMs) {
        health.failed("s", refused)
        health.check()
        clock.advance(everyMs)
        t += everyMs
      }
    }
  }

  test("a failure or two is no outage: nothing is logged and nothing fails") {
    val f = new Fixture
    f.failFor(3000)
    f.health.succeeded("s")
    assert(f.logged.isEmpty)
    assert(!f.health.failing("s"))
  }

  test("an outage is logged when it starts, once a minute while it lasts and when it ends") {
    val f = new Fixture
    f.failFor(5 * 60 * 1000)
    assert(f.health.failing("s") && f.health.secondsSinceLastSuccess("s") == 300)
    f.health.succeeded("s")
    assert(f.logged.size == 1 + 4 + 1, f.logged.mkString("\n"))
    assert(
      f.logged.head.startsWith("KinesisV2[s]: calls to Kinesis at http://127.0.0.1:4567 (region us-east-1) " +
        "for stream 's' fail since 1970-01-01T00:00:00Z (5 s): Connection refused. The query keeps trying until 10m"))
    assert(f.logged(1).contains("still fail since"))
    assert(
      f.logged.last == "KinesisV2[s]: Kinesis at http://127.0.0.1:4567 (region us-east-1) answers again for " +
        "stream 's', after 300 s of failed calls")
    assert(f.health.secondsSinceLastSuccess("s") == 0 && !f.health.failing("s"))
  }

  test("a call that succeeded before the outage began, reported late, neither ends it nor hides its length") {
    val f = new Fixture
    f.clock.advance(10000)
    val madeAt = f.clock.nowMillis() // a prefetch task's call, reported when the task ends
    f.clock.advance(1000)
    f.failFor(60000)
    f.health.succeeded("s", madeAt)
    assert(f.health.failing("s"), "the outage goes on")
    assert(f.health.secondsSinceLastSuccess("s") == 61)
    assert(!f.logged.exists(_.contains("answers again")), f.logged.mkString("\n"))
    f.health.succeeded("s", f.clock.nowMillis() - 100) // a call made during the outage, which Kinesis answered
    assert(!f.health.failing("s") && f.logged.last.contains("answers again"))
  }

  test(
    "an outage longer than outageTimeout fails with KINESIS_UNAVAILABLE naming the endpoint, the time and the cause") {
    val f = new Fixture(timeoutMs = Some(120000))
    f.clock.advance(30000)
    f.health.succeeded("s")
    val e = intercept[KinesisException](f.failFor(10 * 60 * 1000))
    assert(e.getCondition == "KINESIS_UNAVAILABLE" && e.getSqlState == "08006")
    assert(
      e.getMessage.startsWith("[KINESIS_UNAVAILABLE] Every call to Kinesis at http://127.0.0.1:4567 (region " +
        "us-east-1) to read stream 's' has failed for 120 s (the last call that succeeded was at " +
        "1970-01-01T00:00:30Z), longer than the option outageTimeout allows (2m). The last failure: Connection refused."),
      e.getMessage
    )
    assert(e.getCause eq f.refused)
  }

  test("an outage of STS, for the role's credentials, is logged naming STS and what to check, not Kinesis") {
    val f = new Fixture(timeoutMs = Some(120000))
    val sts = io.github.sparkkinesis.testing.CredentialFailures.stsUnreachable
    // As the driver meets it (the failure itself, inside the client's), then as an executor reports it.
    f.health.failed("s", new RuntimeException("ListShards failed", sts))
    f.clock.advance(6000)
    f.health.failed("s", sts.userFacing(cause = io.github.sparkkinesis.errors.RemoteFailure.of(sts)))
    assert(f.logged.size == 1, f.logged)
    assert(
      f.logged.head == "KinesisV2[s]: no AWS credentials for the calls for stream 's' since " +
        "1970-01-01T00:00:00Z (6 s): could not reach STS at http://127.0.0.1:9 (region us-east-1) to assume role " +
        "arn:aws:iam::123456789012:role/reader: Unable to execute HTTP request: Connect to 127.0.0.1:9 failed: " +
        "Connection refused. Check the option stsEndpoint (http://127.0.0.1:9) and the network path to it from " +
        "the driver. The query keeps trying until 2m have passed (the option outageTimeout).")
    val e = intercept[KinesisException] {
      f.clock.advance(120000)
      f.health.failed("s", sts)
      f.health.check()
    }
    assert(e.getCondition == "KINESIS_CREDENTIALS_UNAVAILABLE.OUTAGE" && e.getSqlState == "28000")
    assert(
      e.getMessage == "[KINESIS_CREDENTIALS_UNAVAILABLE.OUTAGE] The connector has no AWS credentials to call " +
        "Kinesis with: could not reach STS at http://127.0.0.1:9 (region us-east-1) to assume role " +
        "arn:aws:iam::123456789012:role/reader: Unable to execute HTTP request: Connect to 127.0.0.1:9 failed: " +
        "Connection refused. Check the option stsEndpoint (http://127.0.0.1:9) and the network path to it from " +
        "the driver. This has lasted 126 s (no call has succeeded since 1970-01-01T00:00:00Z), longer than the " +
        "option outageTimeout allows (2m); to wait longer, raise outageTimeout (\"inf\" waits forever).",
      e.getMessage
    )
    assert(!e.getMessage.contains(":4567"), "the Kinesis endpoint is not what failed")
    f.health.succeeded("s")
    assert(
      f.logged.last == "KinesisV2[s]: the connector has AWS credentials again and Kinesis at " +
        "http://127.0.0.1:4567 (region us-east-1) answers for stream 's', after 126 s of failed calls")
  }

  test("with outageTimeout inf an outage never fails, and is still logged once a minute") {
    val f = new Fixture(timeoutMs = None)
    f.failFor(60 * 60 * 1000, everyMs = 1000)
    assert(f.logged.size == 60)
    assert(f.logged.head.endsWith("The query keeps trying (outageTimeout is inf)."))
  }

  test("streams are apart: one failing does not make the other unavailable") {
    val f = new Fixture(timeoutMs = Some(60000))
    f.failFor(30000)
    f.health.succeeded("other")
    assert(f.health.failing("s") && !f.health.failing("other"))
    f.health.failedAll(f.refused)
    assert(f.health.failing("other"))
  }
}
