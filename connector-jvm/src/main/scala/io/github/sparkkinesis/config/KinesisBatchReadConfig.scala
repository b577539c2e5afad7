// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.errors.KinesisErrors
import io.github.sparkkinesis.offsets.{KinesisSourceOffset, SequenceNumbers, ShardKey, ShardPosition}
import org.slf4j.LoggerFactory

/**
 * Everything a batch read (`spark.read.format("kinesis")`) needs, parsed and checked once, on the driver,
 * at `.load()`: the streams, where the read starts and ends, how each shard is read, and how to reach
 * Kinesis. Immutable and serializable; what tasks need travels in their partitions.
 */
private[sparkkinesis] final case class KinesisBatchReadConfig(
    streams: Seq[String],
    start: InitialPosition,
    end: EndPosition,
    maxShardsPerDescribe: Int,
    reading: ReadConfig,
    maxPartitions: Option[Int],
    aws: AwsConfig) {

  /** How plans show the read, without options (so without secrets). */
  def description: String = s"KinesisBatch[${streams.mkString(",")}]"
}

private[sparkkinesis] object KinesisBatchReadConfig {
  private val log = LoggerFactory.getLogger(classOf[KinesisBatchReadConfig])

  /**
   * Parses a batch read's options; throws [[io.github.sparkkinesis.errors.KinesisIllegalArgumentException]]
   * naming the first option that is bad or means nothing in a batch read (a streaming read's own, enhanced
   * fan-out), or an end before the start.
   */
  def apply(raw: Map[String, String], resolveDefaultRegion: () => Option[String]): KinesisBatchReadConfig = {
    val options = new ParsedOptions(raw)
    options.checkGiven()
    val set = options.givenKeys
    KinesisOptions.NotInBatchRead.foreach { case (option, reason) =>
      if (set.contains(option.key)) throw KinesisErrors.optionNotInBatchRead(option.key, reason)
    }
    if (options.required(KinesisOptions.ConsumerModeOption) == ConsumerMode.Efo)
      throw KinesisErrors.optionNotInBatchRead(
        KinesisOptions.ConsumerModeOption.key,
        "a batch read polls the range it reads; an enhanced fan-out subscription pushes records as they come, " +
          "with no end to stop at, and would need a registered consumer"
      )
    val unknown = options.unknownKeys
    if (unknown.nonEmpty) log.warn(s"Ignoring options a Kinesis batch read does not know: ${unknown.mkString(", ")}")
    val streams = StreamOptions.required(options)
    val start =
      if (set.contains(KinesisOptions.InitialPositionOption.key))
        options.required(KinesisOptions.InitialPositionOption)
      else InitialPosition.TrimHorizon
    val end = options.required(KinesisOptions.EndPositionOption)
    checkStreams(start, end, streams)
    checkOrder(start, end)
    KinesisBatchReadConfig(
      streams = streams,
      start = start,
      end = end,
      maxShardsPerDescribe = options.required(KinesisOptions.MaxShardsPerDescribe),
      reading = ReadConfig(options),
      maxPartitions = options.get(KinesisOptions.MaxPartitions),
      aws = AwsOptions.parse(options, resolveDefaultRegion)
    )
  }

  /** Offsets given as positions must be of the streams read. */
  private[config] def checkStreams(start: InitialPosition, end: EndPosition, streams: Seq[String]): Unit = {
    def check(option: OptionSpec[_], named: Set[String], value: String, example: String): Unit =
      (named -- streams).toSeq.sorted.headOption.foreach { other =>
        throw KinesisErrors.invalidOption(
          option.key,
          s"'$value'",
          s"it has positions in stream '$other', which streamName (${streams.mkString(",")}) does not name",
          example
        )
      }
    start match {
      case InitialPosition.AfterOffset(o) =>
        check(KinesisOptions.InitialPositionOption, o.shards.keySet.map(_.stream), o.json, KinesisSourceOffset.Example)
      case s @ InitialPosition.FromSequenceNumbers(positions) =>
        check(
          KinesisOptions.InitialPositionOption,
          positions.keySet.map(_.stream),
          s.toString,
          InitialPosition.SequenceNumbersExample)
      case _ =>
    }
    end match {
      case EndPosition.AtOffset(o) =>
        check(KinesisOptions.EndPositionOption, o.shards.keySet.map(_.stream), o.json, KinesisSourceOffset.Example)
      case _ =>
    }
  }

  /** Refuses an end that is before the start where both say so by themselves: two instants, or two offsets. */
  private def checkOrder(start: InitialPosition, end: EndPosition): Unit = {
    def refuse(value: String, problem: String) =
      throw KinesisErrors.invalidOption(KinesisOptions.EndPositionOption.key, s"'$value'", problem, EndPosition.Example)
    (start, end) match {
      case (InitialPosition.AtTimestamp(from), e @ EndPosition.AtTimestamp(until)) if until < from =>
        refuse(e.toString, s"it is before initialPosition ($start): the read would end before it starts")
      case (InitialPosition.AfterOffset(from), EndPosition.AtOffset(until)) => checkShardsOrder(from.shards, until)
      case (InitialPosition.FromSequenceNumbers(from), EndPosition.AtOffset(until)) => checkShardsOrder(from, until)
      case _ =>
    }
  }

  /** Refuses an offset as end that ends a shard before the start's position in it. */
  private def checkShardsOrder(from: Map[ShardKey, ShardPosition], until: KinesisSourceOffset): Unit =
    until.shards.toSeq.sortBy(_._1.shardId).find { case (key, to) => before(to, from.get(key)) }.foreach {
      case (key, to) =>
        throw KinesisErrors.invalidOption(
          KinesisOptions.EndPositionOption.key,
          s"'${until.json}'",
          s"it ends shard ${key.shardId} of stream '${key.stream}' at $to, before initialPosition starts it " +
            s"(${from(key)}): the read would end before it starts",
          EndPosition.Example
        )
    }

  /** Whether a shard read up to `to` would end before `from`, where reading it starts. */
  private def before(to: ShardPosition, from: Option[ShardPosition]): Boolean = (to, from) match {
    case (_, None) => false
    case (ShardPosition.ShardEnd, _) => false
    case (_, Some(ShardPosition.ShardEnd)) => true
    case (ShardPosition.After(a, aSub), Some(ShardPosition.After(b, bSub))) =>
      SequenceNumbers.compare(a, aSub, b, bSub) < 0
    // Through a record before the one the start reads first.
    case (ShardPosition.After(a, _), Some(ShardPosition.At(b))) => SequenceNumbers.compare(a, b) < 0
    case (
          ShardPosition.TrimHorizon | ShardPosition.AtTimestamp(_) | ShardPosition.At(_),
          Some(ShardPosition.After(_, _) | ShardPosition.At(_))) =>
      true
    case _ => false
  }
}
