package io.github.sparkkinesis.config

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

class OptionsDocumentationSuite extends AnyFunSuite {

  test("the README's option table is the one the option declarations generate") {
    val readme = OptionsTable.readme(sys.props("kinesis.test.root"))
    val documented = OptionsTable.documented(readme).getOrElse(fail(s"README.md has no line ${OptionsTable.Start}"))
    assert(
      documented == KinesisOptions.markdownTable,
      "run dev/sbt \"connector/Test/runMain io.github.sparkkinesis.config.OptionsTable\" to update README.md")
  }

  test("every option key is unique, whatever its case") {
    assert(KinesisOptions.all.map(_.lowerKey).distinct.size == KinesisOptions.all.size)
  }
}

/** Writes the generated option table into README.md: `dev/sbt "connector/Test/runMain <this> [repo root]"`. */
object OptionsTable {
  val Start = "<!-- options:start (generated from KinesisOptions; OptionsDocumentationSuite checks it) -->\n"
  val End = "\n<!-- options:end -->"

  def readme(root: String): String =
    new String(Files.readAllBytes(Paths.get(root, "README.md")), StandardCharsets.UTF_8)

  def documented(readme: String): Option[String] =
    Some(readme.indexOf(Start)).filter(_ >= 0).map(i => readme.substring(i + Start.length, readme.indexOf(End, i)))

  def main(args: Array[String]): Unit = {
    val root = args.headOption.orElse(sys.props.get("kinesis.test.root")).getOrElse(".")
    val text = readme(root)
    val old = documented(text).getOrElse(sys.error(s"README.md has no line $Start"))
    val updated = text.replace(Start + old + End, Start + KinesisOptions.markdownTable + End)
    Files.write(Paths.get(root, "README.md"), updated.getBytes(StandardCharsets.UTF_8))
  }
}
