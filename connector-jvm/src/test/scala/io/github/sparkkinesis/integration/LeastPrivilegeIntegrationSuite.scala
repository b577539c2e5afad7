// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.integration

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.api.KinesisConsumerManager
import io.github.sparkkinesis.config.{DocsTables, IamPolicies}
import io.github.sparkkinesis.testing.RecordedKinesisCalls
import org.scalatest.funsuite.AnyFunSuite

/**
 * The IAM policies of docs/guides/credentials.md are exact: each side of the connector (source, sink, consumer manager) calls
 * every action its policy grants, on the paths that need them, and nothing else. The emulator enforces no
 * IAM, so the SDK's calls are recorded (testing/RecordedKinesisCalls); every integration suite checks the
 * "nothing else" half for its own calls when it ends, and this one both halves over every call of the JVM.
 */
class LeastPrivilegeIntegrationSuite extends AnyFunSuite with SourceIntegration {

  private def values(prefix: String, n: Int): Seq[String] = (1 to n).map(i => s"$prefix$i")

  test("each side calls exactly the Kinesis actions of its IAM policy in the documentation", Integration) {
    val stream = newStream(shards = 2)
    val written = values("a", 40)
    put(stream, written)

    // The source, polling, across a split: shards listed, iterators and records got, the stream described.
    val polled = new BatchCollector
    val polling = polled.start(read(stream)("initialPosition" -> "trim_horizon"), newCheckpoint())
    eventually("the first rows", query = Some(polling))(polled.rows.nonEmpty)
    val parent = admin.listShards(stream, 100).head
    admin.splitShard(stream, parent.shardId, ((parent.hashKeyRange._1 + parent.hashKeyRange._2) / 2).toString)
    put(stream, values("b", 40))
    runUntil(polled, polling, 80)

    // The source with enhanced fan-out, registering its consumer and deregistering it when it stops.
    val pushed = new BatchCollector
    val efo = read(stream)(
      "initialPosition" -> "trim_horizon",
      "consumerMode" -> "efo",
      "requireConsumerDeregistration" -> "true")
    runUntil(pushed, pushed.start(efo, newCheckpoint()), 80)

    // The sink, aggregating (it maps hash keys to shards).
    val (input, writing) = streamingWrite(sinkOptions(Some(stream), "kplAggregation" -> "true"))
    input.addData(("k", "v"))
    writing.processAllAvailable()
    writing.stop()

    // The consumer manager: every method.
    val manager =
      KinesisConsumerManager.create((Map("endpoint" -> endpoint, "region" -> region) ++ credentialOptions).asJava)
    try {
      manager.registerConsumer(stream, "least-privilege")
      assert(manager.listConsumers(stream).collect().exists(_.getString(0) == "least-privilege"))
      manager.deregisterConsumer(stream, "least-privilege")
    } finally manager.close()

    val granted = IamPolicies.documented(DocsTables.credentialsPage(sys.props("kinesis.test.root")))
    val called = RecordedKinesisCalls.bySide()
    assert(called.keySet == granted.keySet, "every side, and no client of no side, called Kinesis")
    granted.foreach { case (side, actions) =>
      assert(called(side) -- actions == Set.empty, s"$side calls actions its policy does not grant")
      assert(actions -- called(side) == Set.empty, s"$side's policy grants actions it never calls")
    }
  }
}
