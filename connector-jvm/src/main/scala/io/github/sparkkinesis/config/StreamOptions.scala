// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * Which streams a read or a write names: by `streamName`, or by `streamARN`, never both. Either way the
 * connector knows each stream by its name from then on; the ARNs also say the region and are what calls
 * name the streams by ([[io.github.sparkkinesis.aws.AwsConfig.streamArns]]). Stateless.
 */
private[sparkkinesis] object StreamOptions {

  /**
   * The names of the streams, in the order given; None when neither option is set. Refuses both set
   * ([[OptionRelations.StreamsOneWay]]).
   */
  def names(options: ParsedOptions): Option[Seq[String]] = {
    OptionRelations.StreamsOneWay.check(options)
    options.get(KinesisOptions.StreamName).orElse(arns(options).map(_.map(_.name)))
  }

  /**
   * The names of the streams; fails naming `streamName` when neither option is set
   * ([[OptionRelations.StreamsRequired]]).
   */
  def required(options: ParsedOptions): Seq[String] =
    names(options).getOrElse(throw OptionRelations.StreamsRequired.error)

  /**
   * The ARNs `streamARN` gives, if set: one stream of each name (the name is how rows and offsets know a
   * stream), all in one region (the region of the query's client).
   */
  def arns(options: ParsedOptions): Option[Seq[StreamArn]] =
    options.get(KinesisOptions.StreamArnOption).map { arns =>
      def refuse(problem: String) =
        KinesisErrors
          .invalidOption(KinesisOptions.StreamArnOption.key, s"'${arns.mkString(",")}'", problem, StreamArn.Example)
      arns.groupBy(_.name).collectFirst { case (name, same) if same.size > 1 => name }.foreach { name =>
        throw refuse(s"two streams are named '$name'; the connector tells streams apart by name (the stream column, " +
          "offsets), so read them in two queries")
      }
      val regions = arns.map(_.region).distinct
      if (regions.size > 1)
        throw refuse(
          s"its streams are in regions ${regions.mkString(" and ")}; read each region's in a query of its own")
      arns
    }
}
