// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import org.scalatest.funsuite.AnyFunSuite

class OptionsDocumentationSuite extends AnyFunSuite {

  test("the documentation's option, error and IAM policy tables are the ones the declarations generate") {
    val root = sys.props("kinesis.test.root")
    DocsTables.tables.foreach { case DocsTables.Table(marker, file, table) =>
      val documented =
        DocsTables
          .documented(DocsTables.read(root, file), marker)
          .getOrElse(fail(s"$file has no line ${DocsTables.start(marker)}"))
      assert(documented == table, s"$file: ${DocsTables.Regenerate} to update it")
    }
  }

  test("the Python package's copy of the option registry is the one the declarations generate") {
    val root = sys.props("kinesis.test.root")
    val file = new String(Files.readAllBytes(Paths.get(root, DocsTables.RegistryFile)), StandardCharsets.UTF_8)
    assert(
      file == io.github.sparkkinesis.api.KinesisOptionsRegistry.json(),
      s"${DocsTables.Regenerate} to update it"
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
 * Writes the Python package's option registry (from KinesisOptions) and the generated tables into the
 * documentation pages under docs/, each table into the one page that holds it: the options (from
 * KinesisOptions) into docs/reference/options.md, the errors (from error/kinesis-error-conditions.json) into
 * docs/reference/errors.md, the IAM policies (from ClientUse) into docs/guides/credentials.md and the CloudWatch
 * listener's settings (from CloudWatchSettings) into docs/guides/operations.md.
 * `dev/sbt "spark43_213/Test/runMain <this> [repo root]"`.
 */
object DocsTables {

  /** A generated table: its marker, the page (from the repository's root) that holds it, and the table. */
  final case class Table(marker: String, file: String, table: String)

  val OptionsPage = "docs/reference/options.md"
  val ErrorsPage = "docs/reference/errors.md"
  val CredentialsPage = "docs/guides/credentials.md"
  val FunctionsPage = "docs/reference/functions.md"
  val OperationsPage = "docs/guides/operations.md"

  /** What a user runs to write the tables and the registry again. */
  val Regenerate = "run dev/sbt \"spark43_213/Test/runMain io.github.sparkkinesis.config.DocsTables\""

  /** Each table, with its marker and page. */
  def tables: Seq[Table] = Seq(
    Table("options", OptionsPage, KinesisOptions.markdownTable),
    Table("sink-options", OptionsPage, KinesisOptions.sinkMarkdownTable),
    Table("batch-options", OptionsPage, KinesisOptions.batchReadMarkdownTable),
    Table("errors", ErrorsPage, io.github.sparkkinesis.errors.ErrorTable.markdown),
    Table("iam-policies", CredentialsPage, IamPolicies.markdown),
    Table("function-options", FunctionsPage, io.github.sparkkinesis.glue.GlueFunctionOptions.markdownTable),
    Table("cloudwatch-settings", OperationsPage, io.github.sparkkinesis.cloudwatch.CloudWatchSettings.markdownTable)
  )

  private def origin(marker: String) = marker match {
    case "errors" => "error/kinesis-error-conditions.json"
    case "iam-policies" => "ClientUse"
    case "function-options" => "GlueFunctionOptions"
    case "cloudwatch-settings" => "CloudWatchSettings"
    case _ => "KinesisOptions"
  }

  def start(marker: String): String =
    s"<!-- $marker:start (generated from ${origin(marker)}; OptionsDocumentationSuite checks it) -->\n"
  def end(marker: String): String = s"\n<!-- $marker:end -->"

  /** A page of the repository at `root`, as text. */
  def read(root: String, file: String): String =
    new String(Files.readAllBytes(Paths.get(root, file)), StandardCharsets.UTF_8)

  /** The page that holds the IAM policies, as text. */
  def credentialsPage(root: String): String = read(root, CredentialsPage)

  def documented(page: String, marker: String): Option[String] =
    Some(page.indexOf(start(marker)))
      .filter(_ >= 0)
      .map(i => page.substring(i + start(marker).length, page.indexOf(end(marker), i)))

  /** The option registry the Python package checks its builders' values by. */
  val RegistryFile = "python/src/pyspark_kinesis/_options.json"

  def main(args: Array[String]): Unit = {
    val root = args.headOption.orElse(sys.props.get("kinesis.test.root")).getOrElse(".")
    val registry = io.github.sparkkinesis.api.KinesisOptionsRegistry.json()
    Files.write(Paths.get(root, RegistryFile), registry.getBytes(StandardCharsets.UTF_8))
    tables.groupBy(_.file).toSeq.sortBy(_._1).foreach { case (file, ofPage) =>
      val updated = ofPage.foldLeft(read(root, file)) { case (text, Table(marker, _, table)) =>
        val old = documented(text, marker).getOrElse(sys.error(s"$file has no line ${start(marker)}"))
        text.replace(start(marker) + old + end(marker), start(marker) + table + end(marker))
      }
      Files.write(Paths.get(root, file), updated.getBytes(StandardCharsets.UTF_8))
    }
  }
}
