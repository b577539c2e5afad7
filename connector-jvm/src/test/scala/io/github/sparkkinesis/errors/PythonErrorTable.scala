// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

/**
 * The PySpark package's table of error conditions (`pyspark_kinesis/_error_conditions.json`): each condition's
 * SQLSTATE (from error/kinesis-error-conditions.json) and the Python class of its family (from
 * [[ErrorCondition]]). `dev/sbt "spark43_213/Test/runMain io.github.sparkkinesis.errors.PythonErrorTable"` writes
 * it; [[PythonErrorTableSuite]] checks that the package holds the one these declarations make.
 */
object PythonErrorTable {

  val File = "python/src/pyspark_kinesis/_error_conditions.json"

  def json: String = {
    val sqlStates = ErrorConditions.all().asScala
    val rows = ErrorCondition.all.sortBy(_.name).map { c =>
      s"""  "${c.name}": {"sqlState": "${sqlStates(c.name).sqlState}", "pythonClass": "${c.family.pythonClass}"}"""
    }
    rows.mkString("{\n", ",\n", "\n}\n")
  }

  def main(args: Array[String]): Unit = {
    val root = args.headOption.orElse(sys.props.get("kinesis.test.root")).getOrElse(".")
    Files.write(Paths.get(root, File), json.getBytes(StandardCharsets.UTF_8))
    println(s"wrote $File")
  }
}

class PythonErrorTableSuite extends AnyFunSuite {

  test("the Python package's table of error conditions is the one the declarations generate") {
    val file = Paths.get(sys.props("kinesis.test.root"), PythonErrorTable.File)
    val held = new String(Files.readAllBytes(file), StandardCharsets.UTF_8)
    assert(
      held == PythonErrorTable.json,
      "run dev/sbt \"spark43_213/Test/runMain io.github.sparkkinesis.errors.PythonErrorTable\" to update it")
  }
}
