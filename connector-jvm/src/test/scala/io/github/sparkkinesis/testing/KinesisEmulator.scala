package io.github.sparkkinesis.testing

import java.io.File
import java.net.{InetSocketAddress, ServerSocket, Socket}
import java.util.concurrent.TimeUnit
import java.util.UUID

import scala.util.Try

import io.github.sparkkinesis.client.{KinesisAdminApi, KinesisClientFactory}
import io.github.sparkkinesis.config.{AwsConfig, AwsCredentialsConfig, Secret}
import org.scalatest.{BeforeAndAfterAll, Suite}

/**
 * Gives a suite a Kinesis to talk to: kinesis-local (the npm build of kinesis-mock) started on free ports,
 * always stopped (by process group; it also stops when this JVM is gone, and after three hours at most), or, when KINESIS_ENDPOINT is set, that endpoint (with AWS_REGION and the
 * credentials of the usual environment variables), so the same suites run against LocalStack or AWS.
 */
trait KinesisEmulator extends BeforeAndAfterAll { self: Suite =>

  @volatile private var process: Option[Process] = None
  @volatile private var endpointUrl: String = _
  @volatile private var adminApi: Option[KinesisAdminApi] = None
  private val external = sys.env.get("KINESIS_ENDPOINT").filter(_.nonEmpty)

  def region: String = external.flatMap(_ => sys.env.get("AWS_REGION")).getOrElse("us-east-1")
  def endpoint: String = endpointUrl

  /** Credentials as source options: fixed ones for the emulator, none (the default chain) otherwise. */
  def credentialOptions: Map[String, String] =
    if (external.isDefined) Map.empty
    else Map("awsAccessKey" -> KinesisEmulator.AccessKey, "awsSecretKey" -> KinesisEmulator.SecretKey)

  def awsConfig: AwsConfig = AwsConfig(
    region,
    Some(endpoint),
    if (external.isDefined) AwsCredentialsConfig.DefaultChain
    else AwsCredentialsConfig.StaticKeys(KinesisEmulator.AccessKey, new Secret(KinesisEmulator.SecretKey), None)
  )

  def admin: KinesisAdminApi = adminApi.get

  /** A new stream with a unique name; deleted when the suite ends. */
  def newStream(shards: Int): String = {
    val name = s"it-${UUID.randomUUID().toString.take(8)}"
    admin.createStream(name, shards)
    created.synchronized(created += name)
    name
  }

  private val created = scala.collection.mutable.ArrayBuffer.empty[String]

  override protected def beforeAll(): Unit = {
    external match {
      case Some(url) => endpointUrl = url
      case None => startEmulator()
    }
    adminApi = Some(KinesisClientFactory.createAdmin(awsConfig))
    super.beforeAll()
  }

  override protected def afterAll(): Unit =
    try super.afterAll()
    finally {
      if (external.isDefined) created.foreach(s => Try(admin.deleteStream(s)))
      adminApi.foreach(a => Try(a.close()))
      stopEmulator()
    }

  private def startEmulator(): Unit = {
    val root = new File(sys.props.getOrElse("kinesis.test.root", "."))
    val main = new File(root, "tests/node_modules/kinesis-local/main.js")
    require(main.exists(), s"$main is missing: run `npm ci` in tests/ (dev/test does it)")
    val port = KinesisEmulator.freePort()
    val builder = new ProcessBuilder(
      "setsid",
      "timeout",
      "--signal=TERM",
      "--kill-after=10",
      KinesisEmulator.MaxLifetimeSeconds.toString,
      "bash",
      "-c",
      KinesisEmulator.Watchdog,
      "kinesis-emulator",
      main.getPath,
      ProcessHandle.current().pid().toString
    )
    val env = builder.environment()
    env.put("KINESIS_MOCK_CERT_PATH", new File(main.getParentFile, "server.json").getPath)
    env.put("KINESIS_MOCK_PLAIN_PORT", port.toString)
    env.put("KINESIS_MOCK_TLS_PORT", KinesisEmulator.freePort().toString)
    env.put("AWS_REGION", region)
    env.put("SHARD_LIMIT", "200")
    env.put("LOG_LEVEL", "WARN")
    Seq("CREATE_STREAM", "DELETE_STREAM", "MERGE_SHARDS", "SPLIT_SHARD", "UPDATE_SHARD_COUNT")
      .foreach(op => env.put(s"${op}_DURATION", "100ms"))
    builder.redirectErrorStream(true)
    builder.redirectOutput(new File(root, "connector-jvm/target/kinesis-emulator.log"))
    val started = builder.start()
    process = Some(started)
    sys.addShutdownHook(stopEmulator())
    endpointUrl = s"http://127.0.0.1:$port"
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
    while (!KinesisEmulator.listening(port)) {
      if (!started.isAlive) sys.error(s"the Kinesis emulator exited with code ${started.exitValue()}")
      if (System.nanoTime() > deadline) { stopEmulator(); sys.error(s"the Kinesis emulator did not listen on $port") }
      Thread.sleep(200)
    }
  }

  /**
   * Stops the emulator's whole process group by PID: SIGTERM, and SIGKILL to whatever is left after up to
   * five seconds (node sometimes ignores SIGTERM).
   */
  private def stopEmulator(): Unit = synchronized {
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

object KinesisEmulator {
  val AccessKey = "AKIDEMULATOR"
  val SecretKey = "emulator-secret"
  val MaxLifetimeSeconds = 3 * 3600

  /** Runs the emulator and stops it when the JVM that started it is gone (checked every second). */
  val Watchdog: String =
    """node "$1" &
      |emulator=$!
      |trap 'kill $emulator 2>/dev/null' EXIT
      |while kill -0 "$2" 2>/dev/null && kill -0 $emulator 2>/dev/null; do sleep 1; done
      |""".stripMargin

  def freePort(): Int = {
    val socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress)
    try socket.getLocalPort
    finally socket.close()
  }

  def listening(port: Int): Boolean = Try {
    val s = new Socket()
    try s.connect(new InetSocketAddress("127.0.0.1", port), 500)
    finally s.close()
  }.isSuccess
}
