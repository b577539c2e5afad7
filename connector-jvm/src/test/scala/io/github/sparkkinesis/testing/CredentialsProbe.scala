// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig}
import io.github.sparkkinesis.client.{ApiFailures, ClientUse, KinesisClientFactory}
import io.github.sparkkinesis.errors.KinesisException

/**
 * A JVM of its own that lists a stream's shards as the connector's source does, with the AWS SDK's default
 * credential chain, whatever its environment sets the chain up with (a web identity token, container
 * credentials, a profile): tests start it with that environment, which a JVM cannot change for itself.
 * Prints `PROBE OK <shards>`, or `PROBE FAILED <the error a user sees>`.
 *
 * Arguments: the Kinesis endpoint, the region, the stream.
 */
object CredentialsProbe {
  def main(args: Array[String]): Unit = {
    val Array(endpoint, region, stream) = args
    val api =
      KinesisClientFactory.create(
        AwsConfig(region, Some(endpoint), AwsCredentialsConfig.DefaultChain),
        ClientUse.Reading)
    val outcome =
      try s"PROBE OK ${ApiFailures.userFacing("ListShards", stream, api)(api.listShards(stream, 100)).size}"
      catch { case e: KinesisException => s"PROBE FAILED ${e.getMessage}" }
      finally api.close()
    println(outcome)
    System.out.flush()
    System.exit(0)
  }
}
