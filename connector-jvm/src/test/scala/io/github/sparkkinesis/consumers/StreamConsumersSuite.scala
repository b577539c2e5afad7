// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.consumers

import io.github.sparkkinesis.config.QueryConsumer
import io.github.sparkkinesis.errors.{ErrorCondition, KinesisException}
import io.github.sparkkinesis.testing.{FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

class StreamConsumersSuite extends AnyFunSuite {

  private class Fixture {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    api.createStream("a", 1)
    api.createStream("b", 1)
    def arn(stream: String): String = api.describeStream(stream).arn
    val consumers =
      new StreamConsumers(api, Map("a" -> QueryConsumer.Own("p_a"), "b" -> QueryConsumer.Own("p_b")), 60000, clock)
    def handed(consumers: (String, QueryConsumer)*): StreamConsumers =
      new StreamConsumers(api, consumers.toMap, refreshIntervalMs = 60000, clock)
  }

  test("consumers are registered when missing and used once ACTIVE") {
    val f = new Fixture
    f.api.describesUntilActive = 3
    val arns = f.consumers.arns()
    assert(arns.keySet == Set("a", "b"))
    assert(f.api.listConsumers(f.arn("a")).map(c => (c.name, c.status)) == Seq(("p_a", "ACTIVE")))
    assert(arns("a") == f.api.describeConsumer(f.arn("a"), "p_a").get.arn)
    assert(f.api.calls("RegisterStreamConsumer") == 2)
  }

  test("an existing consumer of the name is reused, never registered twice") {
    val f = new Fixture
    val existing = f.api.registerConsumer(f.arn("a"), "p_a")
    f.api.registerConsumer(f.arn("b"), "p_b")
    assert(f.consumers.arns()("a") == existing.arn)
    assert(f.api.calls("RegisterStreamConsumer") == 2, "only the two registrations above")
  }

  test("a consumer deregistered behind the query's back is registered again at the next refresh") {
    val f = new Fixture
    val before = f.consumers.arns()("a")
    f.api.deregisterConsumer(f.arn("a"), "p_a")
    assert(f.consumers.arns()("a") == before, "not checked before the refresh interval")
    f.clock.advance(60000)
    val after = f.consumers.arns()("a")
    assert(after != before)
    assert(f.api.describeConsumer(f.arn("a"), "p_a").map(_.arn).contains(after))
  }

  test("a consumer a subscription found gone is registered again at once") {
    val f = new Fixture
    val before = f.consumers.arns()("b")
    f.api.deregisterConsumer(f.arn("b"), "p_b")
    f.consumers.lost("b")
    assert(f.consumers.arns()("b") != before)
  }

  test("deregistering removes the query's consumers") {
    val f = new Fixture
    f.consumers.arns()
    f.consumers.deregister()
    assert(f.api.listConsumers(f.arn("a")).isEmpty && f.api.listConsumers(f.arn("b")).isEmpty)
  }

  test("a consumer that does not become ACTIVE fails with what to check") {
    val f = new Fixture
    f.api.describesUntilActive = Int.MaxValue
    val e = intercept[KinesisException](f.consumers.arns())
    assert(e.getMessage.contains("KINESIS_CONSUMER_NOT_ACTIVE"), e.getMessage)
    assert(e.getMessage.contains("'p_a' of stream 'a'") && e.getMessage.contains("CREATING"), e.getMessage)
  }

  test("consumers registered beforehand are read through as they are: never registered nor deregistered") {
    val f = new Fixture
    f.api.describesUntilActive = 0
    val a = f.api.registerConsumer(f.arn("a"), "admin_a")
    val b = f.api.registerConsumer(f.arn("b"), "admin_b")
    val consumers = f.handed("a" -> QueryConsumer.RegisteredName("admin_a"), "b" -> QueryConsumer.RegisteredArn(b.arn))
    assert(consumers.arns() == Map("a" -> a.arn, "b" -> b.arn))
    assert(consumers.inUse == 2)
    consumers.lost("a")
    assert(consumers.arns()("a") == a.arn)
    consumers.deregister()
    assert(f.api.calls("RegisterStreamConsumer") == 2, "only the administrator's two registrations")
    assert(f.api.calls("DeregisterStreamConsumer") == 0)
    assert(f.api.listConsumers(f.arn("a")).map(_.name) == Seq("admin_a"))
  }

  test("a registered consumer that is missing or not ACTIVE fails the query, naming it and its stream") {
    val f = new Fixture
    def failure(consumers: StreamConsumers) = intercept[KinesisException](consumers.arns())
    val missing = failure(f.handed("a" -> QueryConsumer.RegisteredName("nobody")))
    assert(ErrorCondition.unapply(missing).contains(ErrorCondition.RegisteredConsumerUnusable))
    assert(missing.getMessage.contains("nobody") && missing.getMessage.contains("'a' is not registered"))
    assert(f.api.calls("RegisterStreamConsumer") == 0, "never registered in the query's stead")
    val gone = failure(f.handed("a" -> QueryConsumer.RegisteredArn(s"${f.arn("a")}/consumer/gone:1")))
    assert(gone.getMessage.contains("consumer/gone:1") && gone.getMessage.contains("is not registered"))
    f.api.describesUntilActive = 5
    f.api.registerConsumer(f.arn("a"), "creating")
    val creating = failure(f.handed("a" -> QueryConsumer.RegisteredName("creating")))
    assert(creating.getMessage.contains("is CREATING, not ACTIVE"))
  }
}
