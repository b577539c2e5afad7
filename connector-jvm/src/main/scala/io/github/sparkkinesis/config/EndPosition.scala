// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.time.Instant

import io.github.sparkkinesis.offsets.KinesisSourceOffset

/** Where a batch read (`spark.read`) ends: the option `endPosition`. A stream has no end. */
private[sparkkinesis] sealed trait EndPosition extends Serializable

private[sparkkinesis] object EndPosition {

  /** What had arrived when the read is planned: each open shard up to then, each closed shard to its end. */
  case object Latest extends EndPosition

  /** The records that arrived before an instant, exclusive. */
  final case class AtTimestamp(epochMillis: Long) extends EndPosition {
    override def toString: String = s"AtTimestamp(${Instant.ofEpochMilli(epochMillis)})"
  }

  /**
   * Up to and including the positions of a streaming query's offset, as its progress shows it
   * (`endOffset`): the shards it names, each to its position; a batch read so returns what the query read.
   */
  final case class AtOffset(offset: KinesisSourceOffset) extends EndPosition {
    override def toString: String = s"AtOffset(${offset.json})"
  }

  val Example = """{"at_timestamp": "2020-06-25T17:23:45Z"}"""

  /** Parses `latest`, the JSON form of `at_timestamp`, or a streaming query's offset JSON, as initialPosition does. */
  def parse(raw: String): Either[String, EndPosition] =
    InitialPosition.parse(raw) match {
      case Right(InitialPosition.Latest) => Right(Latest)
      case Right(InitialPosition.AtTimestamp(ms)) => Right(AtTimestamp(ms))
      case Right(InitialPosition.AfterOffset(offset)) => Right(AtOffset(offset))
      case Right(InitialPosition.TrimHorizon) =>
        Left(
          "trim_horizon is where shards start, not where a read ends; expected latest, at_timestamp as JSON, " +
            "or a streaming query's offset")
      case Right(_: InitialPosition.FromSequenceNumbers) =>
        Left(
          "at_sequence_number and after_sequence_number are where shards start, not where a read ends; to end " +
            """at records, give a query's offset naming each shard's last record: {"v":2,"streams":{"my-stream":""" +
            """{"shards":{"shardId-000000000000":{"kind":"after","seq":"4959..."}}}}} (up to and including it)""")
      case Left(problem) => Left(problem.replace("trim_horizon, earliest, ", ""))
    }
}
