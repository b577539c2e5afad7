// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, StandardOpenOption}

import org.scalatest.funsuite.AnyFunSuite

class AppendedLinesSuite extends AnyFunSuite {

  test("each call gives the complete lines appended since the last; a line still being written waits") {
    val file = Files.createTempFile("appended-lines", ".log")
    def append(text: String): Unit = Files.write(file, text.getBytes(UTF_8), StandardOpenOption.APPEND)
    try {
      Files.delete(file)
      val lines = new AppendedLines(file.toFile)
      assert(lines.next().isEmpty, "not written yet")
      Files.write(file, "one\ntwo\nthr".getBytes(UTF_8))
      assert(lines.next() == Seq("one", "two"))
      assert(lines.next().isEmpty)
      append("ee\nfour\n")
      assert(lines.next() == Seq("three", "four"))
      Files.write(file, "again\n".getBytes(UTF_8)) // started over, shorter than what was read
      assert(lines.next() == Seq("again"))
    } finally Files.deleteIfExists(file)
  }
}
