// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}
import java.util.UUID

import org.slf4j.LoggerFactory

/**
 * The log the tests write (src/test/resources/log4j2.properties): a file for each Spark line,
 * `target/<line>/test.log`, which the build names in `kinesis.test.log`, so that lines tested side by side
 * (dev/test) do not write over each other's.
 */
object TestLog {
  private val marks = LoggerFactory.getLogger("TestLog")

  val path: Path = Paths.get(sys.props.getOrElse("kinesis.test.log", "target/test.log"))

  /** Everything logged so far. */
  def text(): String = new String(Files.readAllBytes(path), UTF_8)

  /** The lines logged while `body` runs (between two marks logged at WARN, which are left out). */
  def during(what: String)(body: => Unit): Seq[String] = {
    val mark = s"$what ${UUID.randomUUID()}"
    marks.warn(s"$mark starts")
    try body
    finally marks.warn(s"$mark ends")
    text().split("\n").toSeq.dropWhile(!_.contains(s"$mark starts")).takeWhile(!_.contains(s"$mark ends")).drop(1)
  }
}
