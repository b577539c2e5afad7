package io.github.sparkkinesis.config

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

class OptionsDocumentationSuite extends AnyFunSuite {

  test("the README's option table is the one the option declarations generate") {
    val readme =
      new String(Files.readAllBytes(Paths.get(sys.props("kinesis.test.root"), "README.md")), StandardCharsets.UTF_8)
    val start = "<!-- options:start (generated from KinesisOptions; OptionsDocumentationSuite checks it) -->\n"
    val end = "\n<!-- options:end -->"
    val documented = readme.indexOf(start) match {
      case -1 => fail(s"README.md has no line $start")
      case i => readme.substring(i + start.length, readme.indexOf(end, i))
    }
    assert(
      documented == KinesisOptions.markdownTable,
      s"replace the README's table with:\n${KinesisOptions.markdownTable}")
  }

  test("every option key is unique, whatever its case") {
    assert(KinesisOptions.all.map(_.lowerKey).distinct.size == KinesisOptions.all.size)
  }
}
