// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.synthetic

import java.io.{BufferedReader, File, InputStreamReader}
import java.nio.charset.StandardCharsets.UTF_8

/**
 * A [[SyntheticKinesis]] in a JVM of its own, for a benchmark that measures its own JVM's heap: what the
 * endpoint holds to answer (a 10 MiB answer is built whole) is then not counted as the connector's. The
 * child prints its endpoint, then serves until its standard input closes, so it ends with the benchmark
 * even if the benchmark dies; [[close]] also stops it by its PID.
 *
 * @param streams the streams the endpoint has, plain records without limits: (name, shards, records per
 *                shard, record bytes)
 */
private[bench] final class SyntheticKinesisProcess(streams: Seq[(String, Int, Long, Int)]) extends AutoCloseable {
  private val process = {
    val java = new File(new File(System.getProperty("java.home"), "bin"), "java").getPath
    val args = streams.flatMap { case (name, shards, perShard, bytes) =>
      Seq(name, s"$shards", s"$perShard", s"$bytes")
    }
    new ProcessBuilder(
      (Seq(java, "-Xmx2g", "-cp", System.getProperty("java.class.path"), SyntheticKinesisProcess.Main) ++ args): _*)
      .redirectError(ProcessBuilder.Redirect.INHERIT)
      .start()
  }

  /** The endpoint the child serves, once it serves. */
  val endpoint: String = {
    val line = new BufferedReader(new InputStreamReader(process.getInputStream, UTF_8)).readLine()
    require(line != null && line.startsWith("http://"), s"the synthetic Kinesis did not start: $line")
    line
  }

  /** The connector's options to reach the endpoint. */
  val connectorOptions: Map[String, String] =
    Map("endpoint" -> endpoint, "region" -> "us-east-1", "awsAccessKey" -> "bench", "awsSecretKey" -> "bench")

  override def close(): Unit = {
    process.getOutputStream.close()
    if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) process.destroyForcibly()
  }
}

private[bench] object SyntheticKinesisProcess {
  private val Main = "io.github.sparkkinesis.bench.synthetic.SyntheticKinesisProcess"

  /** The child: args are groups of name, shards, records per shard, record bytes. */
  def main(args: Array[String]): Unit = {
    val kinesis = SyntheticKinesis.start()
    args.grouped(4).foreach { case Array(name, shards, perShard, bytes) =>
      kinesis.create(StreamSpec(name, shards.toInt, perShard.toLong, bytes.toInt))
    }
    println(kinesis.endpoint)
    System.out.flush()
    while (System.in.read() >= 0) {}
    kinesis.close()
  }
}
