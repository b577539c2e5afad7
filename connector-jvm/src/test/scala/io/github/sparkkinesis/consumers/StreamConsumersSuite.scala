// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.consumers

import io.github.sparkkinesis.errors.KinesisException
import io.github.sparkkinesis.testing.{FakeKinesisApi, ManualClock}
import org.scalatest.funsuite.AnyFunSuite

class StreamConsumersSuite extends AnyFunSuite {

  private class Fixture {
    val clock = new ManualClock()
    val api = new FakeKinesisApi(clock)
    api.createStream("a", 1)
    api.createStream("b", 1)
    def arn(stream: String): String = api.describeStream(stream).arn
    val consumers = new StreamConsumers(api, Map("a" -> "p_a", "b" -> "p_b"), refreshIntervalMs = 60000, clock)
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
}
