// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.packaging

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.jdk.CollectionConverters._
import scala.sys.process.Process

import org.scalatest.funsuite.AnyFunSuite

/** Every source file of the repository says under which licence it is, in an SPDX line at its top. */
class LicenceHeadersSuite extends AnyFunSuite {
  private val root = new File(sys.props("kinesis.test.root"))
  private val Spdx = "SPDX-License-Identifier: Apache-2.0"
  private val codeExtensions = Seq(".scala", ".java", ".sbt", ".py", ".sh")

  /** The repository's files that are code: by their extension, and scripts by their `#!` line. */
  private def sources: Seq[String] = {
    val listed = Process(Seq("git", "ls-files", "--cached", "--others", "--exclude-standard"), root).!!
    listed.split("\n").toSeq.filter { path =>
      val file = new File(root, path)
      path.nonEmpty && file.isFile && (codeExtensions.exists(path.endsWith) || isScript(file))
    }
  }

  private def firstLines(file: File): Seq[String] =
    Files.readAllLines(file.toPath, UTF_8).asScala.take(2).toSeq

  private def isScript(file: File): Boolean = {
    val in = Files.newInputStream(file.toPath)
    try in.read() == '#' && in.read() == '!'
    finally in.close()
  }

  test("every source file names its licence in an SPDX line at its top") {
    val files = sources
    assert(files.size > 150, s"the repository's sources are listed: ${files.size}")
    val without = files.filterNot(path => firstLines(new File(root, path)).exists(_.contains(Spdx)))
    assert(without.isEmpty, s"add '// $Spdx' (or '# $Spdx', after a #! line) to: ${without.mkString(", ")}")
  }
}
