// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * Reads `registeredConsumerId` and `registeredConsumerIdType`: the consumers, registered beforehand (by an
 * administrator, or by a job with the IAM rights this one lacks), that a query reads through instead of
 * registering its own. Stateless.
 */
private[sparkkinesis] object RegisteredConsumers {

  /**
   * Each stream's registered consumer, if `registeredConsumerId` is set: a name for every stream, or one id
   * per stream in their order (an ARN is of one stream's consumer, so ARNs are always one per stream, each
   * of its own stream). Refuses the options that name or deregister the query's own consumer with it.
   */
  def parse(options: ParsedOptions, streams: Seq[String]): Option[Map[String, QueryConsumer.Registered]] =
    options.get(KinesisOptions.RegisteredConsumerId).map { ids =>
      val idKey = KinesisOptions.RegisteredConsumerId.key
      OptionRelations.RegisteredConsumer.foreach(_.check(options))
      def refuse(problem: String, example: String) =
        KinesisErrors.invalidOption(idKey, s"'${ids.mkString(",")}'", problem, example)
      val byArn = options.required(KinesisOptions.RegisteredConsumerIdType) == ConsumerIdType.Arn
      if (!(ids.size == streams.size || (ids.size == 1 && !byArn)))
        throw refuse(
          s"it names ${ids.size} consumers for ${streams.size} streams; give one ${if (byArn) "consumer ARN"
            else "name"} per stream, in the order of the streams${if (byArn) "" else ", or one name for all"}",
          streams.map(s => if (byArn) s"<consumer ARN of $s>" else s"$s-reader").mkString(",")
        )
      val streamArns = StreamOptions.arns(options).getOrElse(Nil).map(a => a.name -> a.arn).toMap
      val perStream = if (ids.size == 1) streams.map(_ -> ids.head) else streams.zip(ids)
      perStream.map { case (stream, id) =>
        val consumer = (byArn, StreamArn.ofConsumer(id)) match {
          case (false, None) =>
            if (!KinesisNames.isConsumer(id)) throw KinesisErrors.consumerNameInvalid(id)
            QueryConsumer.RegisteredName(id)
          case (false, Some(_)) =>
            throw refuse(
              s"'$id' is a consumer ARN; set registeredConsumerIdType to arn to give consumers by ARN",
              "orders-reader")
          case (true, None) =>
            throw refuse(
              s"'$id' is not a consumer ARN (arn:aws:kinesis:<region>:<account>:stream/<stream>/consumer/" +
                "<name>:<creation>); set registeredConsumerIdType to name to give consumers by name",
              s"${StreamArn.Example}/consumer/reader:1593105825"
            )
          case (true, Some((ofStream, _))) if ofStream.name != stream =>
            throw refuse(
              s"the consumer '$id' is of stream '${ofStream.name}', not of '$stream'; give one consumer ARN " +
                "per stream, in the order of the streams",
              s"${StreamArn.Example}/consumer/reader:1593105825"
            )
          case (true, Some((ofStream, _))) if streamArns.get(stream).exists(_ != ofStream.arn) =>
            throw refuse(
              s"the consumer '$id' is of ${ofStream.arn}, and streamARN names ${streamArns(stream)}",
              s"${streamArns(stream)}/consumer/reader:1593105825")
          case (true, Some(_)) => QueryConsumer.RegisteredArn(id)
        }
        stream -> consumer
      }.toMap
    }
}
