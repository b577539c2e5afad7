// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

class OptionsDocumentationSuite extends AnyFunSuite {

  test("the README's option and error tables are the ones the declarations generate") {
    val readme = ReadmeTables.readme(sys.props("kinesis.test.root"))
    ReadmeTables.tables.foreach { case (marker, table) =>
      val documented =
        ReadmeTables.documented(readme, marker).getOrElse(fail(s"README.md has no line ${ReadmeTables.start(marker)}"))
      assert(
        documented == table,
        "run dev/sbt \"spark43_213/Test/runMain io.github.sparkkinesis.config.ReadmeTables\" to update README.md")
    }
  }

  test("the Python package's copy of the option registry is the one the declarations generate") {
    val root = sys.props("kinesis.test.root")
    val file = new String(Files.readAllBytes(Paths.get(root, ReadmeTables.RegistryFile)), StandardCharsets.UTF_8)
    assert(
      file == io.github.sparkkinesis.api.KinesisOptionsRegistry.json(),
      "run dev/sbt \"spark43_213/Test/runMain io.github.sparkkinesis.config.ReadmeTables\" to update it"
    )
  }

  test("the registry other languages read has every option of each side, with its documented default") {
    import scala.jdk.CollectionConverters._
    val source = io.github.sparkkinesis.api.KinesisOptionsRegistry.sourceOptions().asScala
    val sink = io.github.sparkkinesis.api.KinesisOptionsRegistry.sinkOptions().asScala
    assert(source.keySet == KinesisOptions.all.map(_.key).toSet)
    assert(source("initialPosition") == "latest" && source("streamName") == "")
    assert(sink.keySet == (KinesisOptions.shared ++ KinesisOptions.sinkOnly).map(_.key).toSet)
    assert(sink("nullData") == "fail" && sink("roleSessionName") == "spark-kinesis")
    assert(!sink.contains("initialPosition") && !source.contains("nullData"))
    val batch = io.github.sparkkinesis.api.KinesisOptionsRegistry.batchReadOptions().asScala
    assert(batch.keySet == KinesisOptions.batchRead.map(_.key).toSet)
    assert(batch("endPosition") == "latest" && !source.contains("endPosition"))
    assert(!batch.contains("maxRecordsPerTrigger") && !batch.contains("consumerName") && batch.contains("consumerMode"))
  }

  test("every option key is unique, whatever its case") {
    val keys = KinesisOptions.documented.map(_.lowerKey)
    assert(keys.distinct.size == keys.size)
  }
}

/**
 * Writes the Python package's option registry (from KinesisOptions) and the generated tables into README.md: the options (from KinesisOptions), the errors (from
 * error/kinesis-error-conditions.json) and the IAM policies (from ClientUse). `dev/sbt "spark43_213/Test/runMain <this> [repo root]"`.
 */
object ReadmeTables {

  /** Each table's marker in the README, and the table. */
  val tables: Seq[(String, String)] = Seq(
    "options" -> KinesisOptions.markdownTable,
    "sink-options" -> KinesisOptions.sinkMarkdownTable,
    "batch-options" -> KinesisOptions.batchReadMarkdownTable,
    "errors" -> io.github.sparkkinesis.errors.ErrorTable.markdown,
    "iam-policies" -> IamPolicies.markdown
  )

  private def origin(marker: String) = marker match {
    case "errors" => "error/kinesis-error-conditions.json"
    case "iam-policies" => "ClientUse"
    case _ => "KinesisOptions"
  }

  def start(marker: String): String =
    s"<!-- $marker:start (generated from ${origin(marker)}; OptionsDocumentationSuite checks it) -->\n"
  def end(marker: String): String = s"\n<!-- $marker:end -->"

  def readme(root: String): String =
    new String(Files.readAllBytes(Paths.get(root, "README.md")), StandardCharsets.UTF_8)

  def documented(readme: String, marker: String): Option[String] =
    Some(readme.indexOf(start(marker)))
      .filter(_ >= 0)
      .map(i => readme.substring(i + start(marker).length, readme.indexOf(end(marker), i)))

  /** The option registry the Python package checks its builders' values by. */
  val RegistryFile = "python/src/pyspark_kinesis/_options.json"

  def main(args: Array[String]): Unit = {
    val root = args.headOption.orElse(sys.props.get("kinesis.test.root")).getOrElse(".")
    val registry = io.github.sparkkinesis.api.KinesisOptionsRegistry.json()
    Files.write(Paths.get(root, RegistryFile), registry.getBytes(StandardCharsets.UTF_8))
    val updated = tables.foldLeft(readme(root)) { case (text, (marker, table)) =>
      val old = documented(text, marker).getOrElse(sys.error(s"README.md has no line ${start(marker)}"))
      text.replace(start(marker) + old + end(marker), start(marker) + table + end(marker))
    }
    Files.write(Paths.get(root, "README.md"), updated.getBytes(StandardCharsets.UTF_8))
  }
}
