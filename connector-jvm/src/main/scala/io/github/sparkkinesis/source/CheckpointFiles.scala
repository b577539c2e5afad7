// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}
import java.nio.ByteBuffer

import scala.util.control.NonFatal

import io.github.sparkkinesis.errors.KinesisErrors
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{ChecksumFileSystem, FileSystem, Path}
import org.slf4j.LoggerFactory

/**
 * The files of Spark's logs that a restarted query reads before it asks the source anything: the newest two
 * of the offset log (`<checkpoint>/offsets/<batch>`) and the newest of the commit log
 * (`<checkpoint>/commits/<batch>`). A file there that is not text fails the query inside Spark with a bare
 * decoding error ("Input length = 1") that names neither the file nor the checkpoint, so the source checks
 * them when the query starts and fails with `KINESIS_CHECKPOINT_UNREADABLE`, naming both. It judges only what
 * every file of those logs has: UTF-8 text whose first line is a version (`v1`); what the lines after it
 * mean is Spark's to check, and the source's own offsets its (`KINESIS_OFFSET_INVALID`). Spark 3.5 to 4.1
 * create the sources before they read the logs; Spark 4.2 and later read the offset log first, so there the
 * check comes too late for it and Spark's own error stands. Driver side.
 */
private[sparkkinesis] object CheckpointFiles {

  private val log = LoggerFactory.getLogger(getClass)

  private val Version = "v\\d+".r
  private val BatchFile = "\\d+".r

  /** The query's checkpoint, whose sources keep theirs in `<checkpoint>/sources/<n>`; None in any other layout. */
  def queryCheckpoint(sourceCheckpoint: String): Option[String] = {
    val path = new Path(sourceCheckpoint)
    Option(path.getParent).filter(_.getName == "sources").flatMap(p => Option(p.getParent)).map(_.toString)
  }

  /**
   * Fails if a file Spark is about to read from the query's checkpoint cannot be read. A checkpoint it cannot
   * list or open (a new query's has no logs yet) is left to Spark.
   */
  def checkReadable(sourceCheckpoint: String, hadoopConf: Configuration): Unit =
    queryCheckpoint(sourceCheckpoint).foreach { checkpoint =>
      val root = new Path(checkpoint)
      // Spark reads its logs without checking their checksum files: so does this check.
      val fs =
        try
          Some(root.getFileSystem(hadoopConf) match {
            case checksummed: ChecksumFileSystem => checksummed.getRawFileSystem
            case other => other
          })
        catch { case NonFatal(e) => log.debug(s"Cannot open checkpoint $checkpoint to check it", e); None }
      fs.foreach { fs =>
        val files = newest(fs, new Path(root, "offsets"), 2) ++ newest(fs, new Path(root, "commits"), 1)
        files.foreach(file =>
          problemOf(fs, file).foreach(p => throw KinesisErrors.checkpointUnreadable(file.toString, checkpoint, p)))
      }
    }

  /** The `count` files of the highest batch numbers in a log directory. */
  private def newest(fs: FileSystem, dir: Path, count: Int): Seq[Path] =
    try {
      if (!fs.exists(dir)) Nil
      else
        fs.listStatus(dir)
          .toSeq
          .map(_.getPath)
          .collect { case p @ BatchFilePath(batch) => batch -> p }
          .sortBy(-_._1)
          .take(count)
          .map(_._2)
    } catch { case NonFatal(e) => log.debug(s"Cannot list $dir to check it", e); Nil }

  private object BatchFilePath {
    def unapply(p: Path): Option[Long] = p.getName match {
      case BatchFile() if p.getName.length <= 18 => Some(p.getName.toLong)
      case _ => None
    }
  }

  /** What keeps Spark from reading the file, if anything. */
  private def problemOf(fs: FileSystem, file: Path): Option[String] = {
    val bytes =
      try {
        val in = fs.open(file)
        try Some(in.readAllBytes())
        finally in.close()
      } catch { case NonFatal(e) => log.debug(s"Cannot read $file to check it", e); None }
    bytes.flatMap { b =>
      if (b.isEmpty) Some("it is empty")
      else
        try {
          val text = StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(b))
            .toString
          val first = text.linesIterator.take(1).toList.headOption.getOrElse("")
          if (Version.pattern.matcher(first).matches()) None
          else Some(s"its first line is not a version line such as v1 (it begins ${shown(first)})")
        } catch {
          case _: CharacterCodingException => Some(s"it is not UTF-8 text (${b.length} bytes)")
        }
    }
  }

  private def shown(line: String): String = {
    val cut = if (line.length > 40) line.take(40) + "..." else line
    "\"" + cut.map(c => if (c.isControl) '?' else c) + "\""
  }
}
