// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.util.Locale

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import org.scalatest.funsuite.AnyFunSuite

/**
 * The rules between options that each side declares (and the Python builders read) are the ones its
 * configuration checks at `.load()`: options that break one fail with that rule's own error.
 */
class OptionRelationsSuite extends AnyFunSuite {

  private val sides: Seq[(String, Seq[OptionRelation], Map[String, String] => Any)] = Seq(
    ("source", OptionRelations.source, KinesisSourceConfig(_, () => Some("us-east-1"))),
    ("batch", OptionRelations.batch, KinesisBatchReadConfig(_, () => Some("us-east-1"))),
    ("sink", OptionRelations.sink, KinesisSinkConfig(_, () => Some("us-east-1")))
  )

  /** Options that break `relation`, with a stream named unless the relation is about naming streams. */
  private def breaking(relation: OptionRelation): Map[String, String] = relation match {
    case ExcludedTogether(key, other, _, otherValue, when) =>
      val streams = Seq(key, other).exists(s => s == KinesisOptions.StreamName || s == KinesisOptions.StreamArnOption)
      (if (streams) Map.empty[String, String] else Map("streamName" -> "orders")) ++
        Map(key.key -> key.example, other.key -> otherValue.getOrElse(other.example)) ++
        when.map { case (spec, value) => spec.key -> value }
    case OneRequired(_, _) => Map.empty
    case Requires(key, _, _, _) => Map("streamName" -> "orders", key.key -> key.example)
  }

  test("options that break a side's declared rule fail with its error, however the keys are cased") {
    for {
      (side, relations, parse) <- sides
      relation <- relations
      lower <- Seq(false, true)
    } {
      val options = breaking(relation).map { case (k, v) => (if (lower) k.toLowerCase(Locale.ROOT) else k) -> v }
      val refused = intercept[KinesisIllegalArgumentException](parse(options))
      val expected = relation.error
      assert(refused.getCondition == expected.getCondition, s"$side: $options")
      assert(refused.getMessageParameters.asScala == expected.getMessageParameters.asScala, s"$side: $options")
    }
  }

  test("a rule with a condition holds only under it") {
    val registered = Map("streamName" -> "orders", "consumerMode" -> "efo", "registeredConsumerId" -> "admin")
    OptionRelations.RegisteredConsumer.foreach { relation =>
      assert(!relation.broken(new ParsedOptions(registered)), relation)
    }
    val deregistration = OptionRelations.RegisteredConsumer.last
    assert(!deregistration.broken(new ParsedOptions(registered + ("requireConsumerDeregistration" -> "false"))))
    assert(deregistration.broken(new ParsedOptions(registered + ("requireConsumerDeregistration" -> "TRUE"))))
    assert(
      !deregistration.broken(
        new ParsedOptions(registered - "consumerMode" + ("requireconsumerderegistration" -> "true"))))
  }

  test("each side's rules name only options of that side") {
    def keys(relation: OptionRelation): Seq[OptionSpec[_]] = relation match {
      case ExcludedTogether(key, other, _, _, when) => Seq(key, other) ++ when.map(_._1)
      case OneRequired(options, _) => options
      case Requires(key, other, _, _) => Seq(key, other)
    }
    val options = Map(
      "source" -> KinesisOptions.all,
      "batch" -> KinesisOptions.batchRead,
      "sink" -> (KinesisOptions.shared ++ KinesisOptions.sinkOnly))
    for ((side, relations, _) <- sides; relation <- relations; spec <- keys(relation))
      assert(options(side).contains(spec), s"$side: ${spec.key} of $relation")
  }
}
