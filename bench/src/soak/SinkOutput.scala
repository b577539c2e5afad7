// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.collection.mutable
import scala.jdk.CollectionConverters._

/** A row a soak query's sink wrote ([[SoakDriver]]): its record, the partition that read it, when. */
private[soak] final case class SinkRow(
    shardId: String,
    sequenceNumber: String,
    arrivedAt: Long,
    partition: Int,
    readAt: Long)

/** One run of a batch, as one file of the sink's. */
private[soak] final case class BatchRun(batchId: Long, file: File) {
  def rows: Seq[SinkRow] =
    Files.readAllLines(file.toPath, UTF_8).asScala.toSeq.filter(_.nonEmpty).map { line =>
      val Array(shard, seq, arrived, partition, readAt) = line.split('\t')
      SinkRow(shard, seq, arrived.toLong, partition.toInt, readAt.toLong)
    }
}

/**
 * A query's sink output read as it grows: the runs of batches written since the last look, each batch's first
 * run once (a batch run again after a restart is [[SoakCheck]]'s to compare, not new rows).
 */
private[soak] final class SinkOutput(dir: File) {
  private val seenFiles = mutable.Set.empty[String]
  private val seenBatches = mutable.Set.empty[Long]

  /** The batches whose first run appeared since the last call. */
  def newBatches(): Seq[BatchRun] = {
    val fresh = SinkOutput.runs(dir).filterNot(r => seenFiles(r.file.getName))
    fresh.foreach(r => seenFiles += r.file.getName)
    fresh.filter(r => seenBatches.add(r.batchId))
  }
}

private[soak] object SinkOutput {
  private val Name = """batch-(\d+)-[0-9a-f]+\.tsv""".r

  /** Every complete run of a batch in `dir`, by batch, then by when it was written. */
  def runs(dir: File): Seq[BatchRun] =
    Option(dir.listFiles())
      .map(_.toSeq)
      .getOrElse(Seq.empty)
      .flatMap { file =>
        file.getName match {
          case Name(id) => Some(BatchRun(id.toLong, file))
          case _ => None
        }
      }
      .sortBy(r => (r.batchId, r.file.lastModified()))
}
