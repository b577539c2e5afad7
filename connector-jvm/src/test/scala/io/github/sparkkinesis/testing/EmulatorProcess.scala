// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import java.io.File

/**
 * One kinesis-local process (the npm build of kinesis-mock) on free ports, run as a [[ServerProcess]]. It
 * binds every interface (it has no option for loopback only), so it lives three hours at most, a watchdog
 * stops it when this JVM is gone, and `stop` ends its whole process group by PID. Its output goes to
 * target/kinesis-emulator-<port>.log.
 * Thread-safe.
 *
 * kinesis-local 0.6 exits, silently, when a client resets a connection in the middle of a request (as an
 * interrupted HTTP call does): the connector never interrupts its own calls for that reason.
 */
final class EmulatorProcess(root: File, region: String) {

  private val server = new ServerProcess("kinesis-emulator")
  @volatile private var started = Option.empty[(Int, Option[File])]

  /**
   * Starts the emulator and returns its plain-HTTP endpoint once it listens. With `dataDir`, it keeps its
   * streams and records there (written every second) and loads them when it starts again.
   */
  def start(dataDir: Option[File] = None): String = start(ServerProcess.freePort(), dataDir)

  /** Starts the emulator stopped by [[stop]] again, on its port, with its data. */
  def restart(): String = {
    val (port, dataDir) = started.getOrElse(sys.error("the emulator was never started"))
    start(port, dataDir)
  }

  private def start(port: Int, dataDir: Option[File]): String = {
    val main = new File(root, "tests/node_modules/kinesis-local/main.js")
    require(main.exists(), s"$main is missing: run `npm ci` in tests/ (dev/test does it)")
    started = Some((port, dataDir))
    val persistence = dataDir.toSeq.flatMap { dir =>
      Seq(
        "SHOULD_PERSIST_DATA" -> "true",
        "LOAD_DATA_IF_EXISTS" -> "true",
        "PERSIST_PATH" -> dir.getPath,
        "PERSIST_INTERVAL" -> "1s")
    }
    val env = Map(
      "KINESIS_MOCK_CERT_PATH" -> new File(main.getParentFile, "server.json").getPath,
      "KINESIS_MOCK_PLAIN_PORT" -> port.toString,
      "KINESIS_MOCK_TLS_PORT" -> ServerProcess.freePort().toString,
      "AWS_REGION" -> region,
      "SHARD_LIMIT" -> "200",
      "LOG_LEVEL" -> "WARN"
    ) ++ persistence ++ Seq("CREATE_STREAM", "DELETE_STREAM", "MERGE_SHARDS", "SPLIT_SHARD", "UPDATE_SHARD_COUNT")
      .map(op => s"${op}_DURATION" -> "100ms")
    server.start(
      Seq("node", main.getPath),
      env,
      port,
      new File(root, s"connector-jvm/target/kinesis-emulator-$port-${System.nanoTime()}.log"))
    s"http://127.0.0.1:$port"
  }

  def stop(): Unit = server.stop()
}

object EmulatorProcess {
  def freePort(): Int = ServerProcess.freePort()
}
