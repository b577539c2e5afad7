// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.io.File
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.StandardOpenOption
import java.nio.ByteBuffer

import scala.util.Try

/**
 * A file another process appends lines to (a JVM's GC log, the soak driver's metrics), read as it grows: each
 * call gives the complete lines written since the last one, so a sample costs what was appended, not the
 * whole file. A line still being written waits for the next call; a file started over is read from its start.
 */
private[soak] final class AppendedLines(file: File) {
  private var offset = 0L

  def next(): Seq[String] =
    Try {
      val channel = FileChannel.open(file.toPath, StandardOpenOption.READ)
      try {
        if (channel.size() < offset) offset = 0L
        val buffer = ByteBuffer.allocate(Math.toIntExact(channel.size() - offset))
        var read = 0
        while (buffer.hasRemaining && read >= 0) read = channel.read(buffer, offset + buffer.position())
        val complete = buffer.array().lastIndexWhere(_ == '\n', buffer.position() - 1) + 1
        offset += complete
        new String(buffer.array(), 0, complete, UTF_8).split('\n').toSeq.filter(_.nonEmpty)
      } finally channel.close()
    }.getOrElse(Seq.empty) // not written yet
}
