package io.github.sparkkinesis.testing

import java.io.File
import java.net.{InetAddress, InetSocketAddress, ServerSocket, Socket}
import java.util.concurrent.TimeUnit

import scala.util.Try

/**
 * One kinesis-local process (the npm build of kinesis-mock) on free ports. It binds every interface (it has
 * no option for loopback only), so it lives three hours at most, a watchdog stops it when this JVM is gone,
 * and `stop` ends its whole process group by PID. Its output goes to target/kinesis-emulator-<port>.log.
 * Thread-safe.
 *
 * kinesis-local 0.6 exits, silently, when a client resets a connection in the middle of a request (as an
 * interrupted HTTP call does): the connector never interrupts its own calls for that reason.
 */
final class EmulatorProcess(root: File, region: String) {
  import EmulatorProcess._

  private var process = Option.empty[Process]

  /** Starts the emulator and returns its plain-HTTP endpoint once it listens. */
  def start(): String = synchronized {
    val main = new File(root, "tests/node_modules/kinesis-local/main.js")
    require(main.exists(), s"$main is missing: run `npm ci` in tests/ (dev/test does it)")
    val port = freePort()
    val builder = new ProcessBuilder(
      "setsid",
      "timeout",
      "--signal=TERM",
      "--kill-after=10",
      MaxLifetimeSeconds.toString,
      "bash",
      "-c",
      Watchdog,
      "kinesis-emulator",
      main.getPath,
      ProcessHandle.current().pid().toString
    )
    val env = builder.environment()
    env.put("KINESIS_MOCK_CERT_PATH", new File(main.getParentFile, "server.json").getPath)
    env.put("KINESIS_MOCK_PLAIN_PORT", port.toString)
    env.put("KINESIS_MOCK_TLS_PORT", freePort().toString)
    env.put("AWS_REGION", region)
    env.put("SHARD_LIMIT", "200")
    env.put("LOG_LEVEL", "WARN")
    Seq("CREATE_STREAM", "DELETE_STREAM", "MERGE_SHARDS", "SPLIT_SHARD", "UPDATE_SHARD_COUNT")
      .foreach(op => env.put(s"${op}_DURATION", "100ms"))
    builder.redirectErrorStream(true)
    builder.redirectOutput(new File(root, s"connector-jvm/target/kinesis-emulator-$port.log"))
    val started = builder.start()
    process = Some(started)
    sys.addShutdownHook(stop())
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
    while (!listening(port)) {
      if (!started.isAlive) sys.error(s"the Kinesis emulator exited with code ${started.exitValue()}")
      if (System.nanoTime() > deadline) { stop(); sys.error(s"the Kinesis emulator did not listen on $port") }
      Thread.sleep(200)
    }
    s"http://127.0.0.1:$port"
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

object EmulatorProcess {
  val MaxLifetimeSeconds: Int = 3 * 3600

  /** Runs the emulator and stops it when the JVM that started it is gone (checked every second). */
  val Watchdog: String =
    """node "$1" &
      |emulator=$!
      |trap 'kill $emulator 2>/dev/null' EXIT
      |while kill -0 "$2" 2>/dev/null && kill -0 $emulator 2>/dev/null; do sleep 1; done
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
