// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.File
import java.net.{InetAddress, InetSocketAddress, ServerSocket, Socket}
import java.util.concurrent.TimeUnit

import scala.util.Try

/**
 * A server the tests start (the Kinesis emulator, an STS server): in a process group of its own, for three
 * hours at most, stopped by a watchdog when this JVM is gone, and by `stop` by PID, its whole group.
 * Thread-safe.
 */
final class ServerProcess(name: String) {
  import ServerProcess._

  private var process = Option.empty[Process]

  /** Starts `command` and returns once something listens on `port` of loopback. */
  def start(command: Seq[String], env: Map[String, String], port: Int, log: File): Unit = synchronized {
    val builder = new ProcessBuilder(
      (Seq(
        "setsid",
        "timeout",
        "--signal=TERM",
        "--kill-after=10",
        MaxLifetimeSeconds.toString,
        "bash",
        "-c",
        Watchdog) ++
        Seq(name, ProcessHandle.current().pid().toString) ++ command): _*)
    env.foreach { case (k, v) => builder.environment().put(k, v) }
    builder.redirectErrorStream(true)
    builder.redirectOutput(log)
    val started = builder.start()
    process = Some(started)
    sys.addShutdownHook(stop())
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
    while (!listening(port)) {
      if (!started.isAlive) sys.error(s"$name exited with code ${started.exitValue()}; see $log")
      if (System.nanoTime() > deadline) { stop(); sys.error(s"$name did not listen on $port; see $log") }
      Thread.sleep(200)
    }
  }

  /** SIGTERM to the process group, and SIGKILL to whatever is left after five seconds at most. */
  def stop(): Unit = synchronized {
    process.foreach { p =>
      val group = s"-${p.pid()}"
      def signal(name: String) = Try(new ProcessBuilder("kill", s"-$name", "--", group).start().waitFor()).getOrElse(1)
      signal("TERM")
      val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5)
      while (signal("0") == 0 && System.nanoTime() < deadline) Thread.sleep(100)
      signal("KILL")
      p.waitFor(5, TimeUnit.SECONDS)
    }
    process = None
  }
}

object ServerProcess {
  val MaxLifetimeSeconds: Int = 3 * 3600

  /** Runs the command after `$1` (the JVM's PID) and stops it when that JVM is gone (checked every second). */
  val Watchdog: String =
    """parent="$1"; shift
      |"$@" &
      |server=$!
      |trap 'kill $server 2>/dev/null' EXIT
      |while kill -0 "$parent" 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 1; done
      |""".stripMargin

  def freePort(): Int = {
    val socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress)
    try socket.getLocalPort
    finally socket.close()
  }

  def listening(port: Int): Boolean = Try {
    val s = new Socket()
    try s.connect(new InetSocketAddress("127.0.0.1", port), 500)
    finally s.close()
  }.isSuccess
}
