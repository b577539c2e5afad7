// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import io.github.sparkkinesis.config.InitialPosition
import io.github.sparkkinesis.errors.KinesisException
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path => HadoopPath}
import org.scalatest.funsuite.AnyFunSuite

class CheckpointFilesSuite extends AnyFunSuite {

  /**
   * A query checkpoint with offset files 0 to 2 and commit files 0 and 1, written as Spark writes them:
   * through Hadoop's local file system, with checksum files beside them (which a file changed later no
   * longer matches).
   */
  private def checkpoint(): Path = {
    val root = Files.createTempDirectory("checkpoint-files")
    Files.createDirectories(root.resolve("sources/0"))
    val fs = FileSystem.getLocal(new Configuration())
    def write(file: String, text: String): Unit = {
      val out = fs.create(new HadoopPath(root.resolve(file).toString))
      try out.write(text.getBytes(UTF_8))
      finally out.close()
    }
    (0 to 2).foreach(i => write(s"offsets/$i", "v1\n{\"batchWatermarkMs\":0}\n{\"v\":3}"))
    (0 to 1).foreach(i => write(s"commits/$i", "v1\n{\"nextBatchWatermarkMs\":0}"))
    assert(Files.exists(root.resolve("offsets/.2.crc")))
    root
  }

  /** The source's checkpoint as Spark names it: qualified, `file:/...`. */
  private def sourceCheckpoint(root: Path): String = s"file:${root.resolve("sources/0")}"

  private def check(root: Path): Unit = CheckpointFiles.checkReadable(sourceCheckpoint(root), new Configuration())

  private def failure(root: Path): KinesisException = intercept[KinesisException](check(root))

  test("a checkpoint as Spark writes it passes, and so does a new query's, which has no logs yet") {
    check(checkpoint())
    check(Files.createTempDirectory("new-checkpoint"))
  }

  test("an offsets file that is not text fails naming the file and the checkpoint") {
    val root = checkpoint()
    Files.write(root.resolve("offsets/2"), Array[Byte](-1, -2, 0x41, -128))
    val e = failure(root)
    assert(e.getCondition == "KINESIS_CHECKPOINT_UNREADABLE")
    assert(
      e.getMessage.startsWith(
        s"[KINESIS_CHECKPOINT_UNREADABLE] File file:$root/offsets/2 of the query's checkpoint file:$root cannot"),
      e.getMessage)
    assert(e.getMessage.contains("cannot be read: it is not UTF-8 text (4 bytes)"), e.getMessage)
    assert(e.getMessage.contains("start the query with a new checkpoint location"), e.getMessage)
  }

  test("the files Spark reads at a restart are checked: the newest two offset files and the newest commit") {
    val older = checkpoint()
    Files.write(older.resolve("offsets/1"), "garbage".getBytes(UTF_8))
    assert(
      failure(older).getMessage.contains("its first line is not a version line such as v1 (it begins \"garbage\")"))
    val commit = checkpoint()
    Files.write(commit.resolve("commits/1"), Array.emptyByteArray)
    assert(failure(commit).getMessage.contains("commits/1 of the query's checkpoint"))
    assert(failure(commit).getMessage.contains("it is empty"))
    val oldest = checkpoint()
    Files.write(oldest.resolve("offsets/0"), Array[Byte](-1))
    check(oldest) // Spark does not read it
  }

  test("a source checkpoint outside Spark's layout is not checked") {
    val root = checkpoint()
    Files.write(root.resolve("offsets/2"), Array[Byte](-1))
    CheckpointFiles.checkReadable(s"file:${root.resolve("elsewhere")}", new Configuration())
    assert(CheckpointFiles.queryCheckpoint(root.resolve("elsewhere").toString).isEmpty)
  }

  test("the source's offsets name the offset log they were read from when they cannot be read") {
    val root = checkpoint()
    val config = new io.github.sparkkinesis.testing.StreamFixture(InitialPosition.TrimHorizon).config
    val stream = KinesisMicroBatchStream(config, sourceCheckpoint(root))
    val e = intercept[KinesisException](stream.deserializeOffset("""{"v":3}"""))
    assert(e.getMessage.contains(s"in the offset log file:$root/offsets: it has no object"), e.getMessage)
  }
}
