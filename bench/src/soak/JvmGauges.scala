// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import scala.jdk.CollectionConverters._
import scala.util.Try

/**
 * What the soak reads about the JVMs it runs from outside them, without attaching to them: their threads
 * (Linux' `/proc/<pid>/status`) and the heap each garbage collection left (the `-Xlog:gc` files
 * [[DriverProcess]] has every JVM write). Reading from outside costs the JVMs measured nothing.
 */
private[soak] object JvmGauges {

  /** A collection's end: when (epoch ms) and the heap in use after it. */
  final case class AfterGc(atMillis: Long, heapBytes: Long)

  /** The threads of a process now, if it is alive. */
  def threads(pid: Long): Option[Int] =
    Try(Files.readAllLines(new File(s"/proc/$pid/status").toPath, UTF_8).asScala).toOption
      .flatMap(_.collectFirst { case line if line.startsWith("Threads:") => line.drop(8).trim.toInt })

  // "[1764133449123ms] GC(12) Pause Young (Normal) (G1 Evacuation Pause) 61M->23M(256M) 4.211ms"
  private val Collection = """\[(\d+)ms\].* (\d+)([KMG])->(\d+)([KMG])\((\d+)([KMG])\).*""".r

  /** The GC log [[DriverProcess]] has the JVM `pid` of `role` write in `dir`. */
  def gcLog(dir: File, role: String, pid: Long): File = new File(dir, s"$role-$pid.log")

  /** The collection a line of a GC log records, if it records one. */
  def afterGc(line: String): Option[AfterGc] = line match {
    case Collection(at, _, _, after, unit, _, _) => Some(AfterGc(at.toLong, after.toLong * unitBytes(unit)))
    case _ => None
  }

  /** The processes that wrote `<role>-<pid>.log` files in `dir`. */
  def pidsLogged(dir: File, role: String): Seq[Long] =
    Option(dir.listFiles()).toSeq.flatten.map(_.getName).collect {
      case name if name.startsWith(s"$role-") && name.endsWith(".log") =>
        name.stripPrefix(s"$role-").stripSuffix(".log").toLong
    }

  private def unitBytes(unit: String): Long = unit match {
    case "K" => 1024L
    case "M" => 1024L * 1024
    case _ => 1024L * 1024 * 1024
  }

  /** The bytes of every file below `dir`. */
  def bytesBelow(dir: File): Long =
    Try {
      val paths = Files.walk(dir.toPath)
      try paths.iterator().asScala.filter(Files.isRegularFile(_)).map(p => Try(Files.size(p)).getOrElse(0L)).sum
      finally paths.close()
    }.getOrElse(0L) // gone, or changed while walked: the next sample sees it
}
