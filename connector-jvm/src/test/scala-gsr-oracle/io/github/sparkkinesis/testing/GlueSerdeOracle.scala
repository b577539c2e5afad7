// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.{File, InputStreamReader, OutputStreamWriter, Reader, Writer}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import java.util.{Base64, UUID}
import java.util.concurrent.{ArrayBlockingQueue, TimeUnit}

import scala.jdk.CollectionConverters._
import scala.util.Try

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/**
 * AWS' own Java serde of the Glue Schema Registry (software.amazon.glue:schema-registry-serde), as the
 * program of tests/gsr-oracle runs it in a JVM of its own, against the registry at `endpoint`: records its
 * serializer writes ([[serialize]]), records its deserializer reads ([[deserialize]]). The serde's jars clash
 * with Spark's, so they stay out of this JVM: build.sbt writes their class path to a file and names it in
 * `kinesis.test.gsrOracleClasspath` (on the primary line). One JVM serves every call, one JSON line a command
 * and one an answer; an answer is awaited for a minute at most and read up to [[MaxAnswer]] characters. The
 * credentials reach it through its environment, never its command line; its standard error goes to
 * connector-jvm/target/gsr-oracle.log. [[stop]] ends it (it also ends by itself when this JVM is gone: its
 * standard input closes). Not thread-safe.
 */
final class GlueSerdeOracle(endpoint: String, region: String, accessKey: String, secretKey: String) {
  import GlueSerdeOracle._

  private val mapper = new ObjectMapper()
  private var process: Process = _
  private var commands: Writer = _
  private val answers = new ArrayBlockingQueue[Either[String, String]](1)

  def start(): Unit = {
    val listing = sys.props.getOrElse(
      "kinesis.test.gsrOracleClasspath",
      sys.error("kinesis.test.gsrOracleClasspath is not set: build.sbt sets it for the primary line's tests"))
    val classpath =
      Files.readAllLines(Paths.get(listing), UTF_8).asScala.filter(_.nonEmpty).mkString(File.pathSeparator)
    val java = Paths.get(sys.props("java.home"), "bin", "java").toString
    val builder = new ProcessBuilder(java, "-Xmx512m", "-cp", classpath, MainClass, endpoint, region)
    builder.environment().put("AWS_ACCESS_KEY_ID", accessKey)
    builder.environment().put("AWS_SECRET_ACCESS_KEY", secretKey)
    builder.environment().put("AWS_EC2_METADATA_DISABLED", "true")
    builder.redirectError(ProcessBuilder.Redirect.appendTo(log))
    process = builder.start()
    commands = new OutputStreamWriter(process.getOutputStream, UTF_8)
    val reader =
      new Thread(() => readAnswers(new InputStreamReader(process.getInputStream, UTF_8)), "gsr-oracle-answers")
    reader.setDaemon(true)
    reader.start()
  }

  /**
   * `records` (JSON text each) written by the serde's serializer of schema `schemaName` of `registry`, as a
   * producer configured with `definition` writes them: it registers the definition as a version (creating
   * the schema) unless the registry has one alike, and frames each record with that version's id, its
   * payload compressed with zlib if `zlib`.
   */
  def serialize(
      registry: String,
      schemaName: String,
      dataFormat: String,
      definition: String,
      records: Seq[String],
      zlib: Boolean = false): Seq[Array[Byte]] = {
    val command = mapper.createObjectNode()
    command.put("command", "serialize")
    command.put("registry", registry).put("schemaName", schemaName).put("dataFormat", dataFormat)
    command.put("definition", definition).put("compression", if (zlib) "ZLIB" else "NONE")
    val values = command.putArray("records")
    records.foreach(r => values.add(mapper.readTree(r)))
    call(command).asScala.map(r => Base64.getDecoder.decode(r.asText)).toSeq
  }

  /** `records` as the serde's deserializer reads them: each one's writer version, and its value as JSON. */
  def deserialize(records: Seq[Array[Byte]]): Seq[(UUID, JsonNode)] = {
    val command = mapper.createObjectNode().put("command", "deserialize")
    val values = command.putArray("records")
    records.foreach(r => values.add(Base64.getEncoder.encodeToString(r)))
    call(command).asScala.map(r => (UUID.fromString(r.get("schemaVersionId").asText), r.get("value"))).toSeq
  }

  /** Sends a command, and returns its answer's records; fails with the serde's error if it gives one. */
  private def call(command: JsonNode): JsonNode = {
    require(process != null && process.isAlive, s"the Glue serde oracle is not running; see $log")
    commands.write(mapper.writeValueAsString(command) + "\n")
    commands.flush()
    val answer = Option(answers.poll(AnswerSeconds, TimeUnit.SECONDS)).getOrElse {
      stop()
      sys.error(s"the Glue serde oracle gave no answer in $AnswerSeconds s; see $log")
    }
    val json =
      mapper.readTree(answer.fold(problem => sys.error(s"the Glue serde oracle: $problem; see $log"), identity))
    Option(json.get("error")).foreach(e => throw new IllegalStateException(s"AWS' serde: ${e.asText}"))
    json.get("records")
  }

  /** Hands each line of the oracle's standard output to [[call]], until it ends or a line is too long. */
  private def readAnswers(output: Reader): Unit = {
    val line = new java.lang.StringBuilder()
    var c = output.read()
    while (c >= 0) {
      if (c == '\n') {
        answers.put(Right(line.toString))
        line.setLength(0)
      } else if (line.length >= MaxAnswer) {
        answers.put(Left(s"an answer longer than $MaxAnswer characters"))
        return
      } else line.append(c.toChar)
      c = output.read()
    }
    answers.offer(Left("its output ended"))
  }

  /** Closes its standard input, which ends it; kills it by PID if it has not ended within 10 seconds. */
  def stop(): Unit = if (process != null) {
    Try(commands.close())
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly()
      process.waitFor(5, TimeUnit.SECONDS)
    }
    process = null
  }
}

object GlueSerdeOracle {
  val MainClass = "io.github.sparkkinesis.gsroracle.GsrOracle"
  val AnswerSeconds = 60L
  val MaxAnswer: Int = 16 * 1024 * 1024

  private val log = new File(sys.props.getOrElse("kinesis.test.root", "."), "connector-jvm/target/gsr-oracle.log")
}
