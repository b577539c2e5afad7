// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.io.File
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.testing.ExecutorProcesses

/**
 * The soak's Spark application ([[SoakDriver]]) as a process of its own, with its executor JVMs below it
 * (a `local-cluster` master and workers run inside the driver's JVM and start each executor as its child):
 * started with this JVM's class path and module options, logging every garbage collection of the driver and
 * of each executor to `gcLogs` (a file per process), its log to `log` and its standard output and error
 * beside it, to `driver.out`. Stopped gently by closing its
 * standard input, or killed (SIGKILL) with its executors.
 */
private[soak] final class DriverProcess(settings: SoakDriver.Settings, gcLogs: File, log: File) {
  gcLogs.mkdirs()

  private val process: Process = {
    val logConfig = DriverProcess.logConfig(settings.work, log)
    val java = new File(new File(System.getProperty("java.home"), "bin"), "java").getPath
    // The module openings and system properties this JVM was started with (build.sbt's), for Spark's.
    val inherited = ManagementFactory.getRuntimeMXBean.getInputArguments.asScala.toSeq
      .filter(a => a.startsWith("--add-opens") || a.startsWith("-D"))
    val args = Seq(
      s"master=${settings.master}",
      s"endpoint=${settings.endpoint}",
      s"stream=${settings.stream}",
      s"work=${settings.work.getPath}",
      s"queries=${settings.queries.map(_.name).mkString(",")}",
      s"executorJavaOptions=${settings.executorJavaOptions} ${DriverProcess.gcLogOption(gcLogs, "executor")}"
    )
    new ProcessBuilder(
      (Seq(java, "-Xmx1g", DriverProcess.gcLogOption(gcLogs, "driver")) ++ inherited ++
        Seq(s"-Dlog4j2.configurationFile=${logConfig.getPath}") ++
        Seq("-cp", System.getProperty("java.class.path"), DriverProcess.Main) ++ args): _*)
      .redirectErrorStream(true)
      .redirectOutput(ProcessBuilder.Redirect.appendTo(new File(log.getParentFile, "driver.out")))
      .start()
  }

  def pid: Long = process.pid()

  def handle: ProcessHandle = process.toHandle

  def isAlive: Boolean = process.isAlive

  /** The exit code, once it has exited. */
  def exitCode: Option[Int] = if (process.isAlive) None else Some(process.exitValue())

  /** The executor JVMs alive now, by executor id. */
  def executors: Map[String, ProcessHandle] = ExecutorProcesses.running(process.toHandle)

  /** Stops the application as a user does: its queries stopped, then Spark. Kills it if that takes a minute. */
  def stop(): Unit = {
    process.getOutputStream.close()
    if (!process.waitFor(60, TimeUnit.SECONDS)) kill()
  }

  /** Kills the driver and every executor below it at once, as a lost machine would. */
  def kill(): Unit = {
    val below = process.toHandle.descendants().iterator().asScala.toSeq
    process.destroyForcibly()
    below.foreach(_.destroyForcibly())
    process.waitFor(30, TimeUnit.SECONDS)
    below.foreach(h => h.onExit().get(30, TimeUnit.SECONDS))
  }
}

private[soak] object DriverProcess {
  private val Main = "io.github.sparkkinesis.bench.soak.SoakDriver"

  /** Every collection's line, with the wall clock in ms, to `<dir>/<role>-<pid>.log`. */
  def gcLogOption(dir: File, role: String): String = s"-Xlog:gc:file=${dir.getPath}/$role-%p.log:timemillis"

  /**
   * The driver's logging: Spark's and the connector's INFO and above to `log`, kept across restarts (the
   * tests' own configuration would write over the tests' log).
   */
  private def logConfig(work: File, log: File): File = {
    val file = new File(work, "driver-log4j2.properties")
    val text = Seq(
      "rootLogger.level = info",
      "rootLogger.appenderRef.file.ref = File",
      "appender.file.type = File",
      "appender.file.name = File",
      s"appender.file.fileName = ${log.getPath}",
      "appender.file.append = true",
      "appender.file.layout.type = PatternLayout",
      "appender.file.layout.pattern = %d{HH:mm:ss.SSS} %t %p %c{1}: %m%n%ex"
    ).mkString("", "\n", "\n")
    Files.write(file.toPath, text.getBytes(UTF_8))
    file
  }
}
