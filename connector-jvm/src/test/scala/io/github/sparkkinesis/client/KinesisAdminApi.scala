// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.net.URI

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig}
import io.github.sparkkinesis.testing.DelegatingKinesisApi
import software.amazon.awssdk.auth.credentials.{
  AwsBasicCredentials,
  AwsCredentialsProvider,
  DefaultCredentialsProvider,
  StaticCredentialsProvider
}
import software.amazon.awssdk.core.client.config.{ClientOverrideConfiguration, SdkAdvancedClientOption}
import software.amazon.awssdk.http.apache5.Apache5HttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.model.{
  CreateStreamRequest,
  DeleteStreamRequest,
  MergeShardsRequest,
  ScalingType,
  SplitShardRequest,
  UpdateMaxRecordSizeRequest,
  UpdateShardCountRequest
}
import software.amazon.awssdk.services.kinesis.KinesisClient

/**
 * Calls that change streams rather than read them, which the connector never makes: the integration tests
 * and the benchmarks create, reshard and delete streams with them, and make the connector's calls too
 * (writing test data, listing shards) through a connector client of their own user agent. Thread-safe.
 */
trait KinesisAdminApi extends KinesisApi {

  /** Creates a provisioned stream and returns once it is ACTIVE. */
  def createStream(stream: String, shards: Int): Unit

  /** Deletes a stream and returns once Kinesis no longer knows it. */
  def deleteStream(stream: String): Unit

  /** Splits a shard at a hash key (decimal) and returns once the stream is ACTIVE again. */
  def splitShard(stream: String, shardId: String, newStartingHashKey: String): Unit

  /** Merges two adjacent shards and returns once the stream is ACTIVE again. */
  def mergeShards(stream: String, shardId: String, adjacentShardId: String): Unit

  /** Scales the stream uniformly and returns once it is ACTIVE again. */
  def updateShardCount(stream: String, shards: Int): Unit

  /** Sets the largest record the stream takes (`MaxRecordSizeInKiB`, 1,024 to 10,240) and returns once it is ACTIVE. */
  def updateMaxRecordSize(stream: String, kib: Int): Unit
}

object KinesisAdminApi {

  /** The user agent of the tests' own calls, which the record of the connector's calls leaves out. */
  val UserAgent = "spark-kinesis-tests/admin"

  /**
   * A new client; the caller closes it. The connector's jar, which the tests run on, carries the AWS SDK
   * shaded and leaves out these calls; the tests make them with the SDK itself, on their own classpath.
   */
  def create(aws: AwsConfig): KinesisAdminApi = {
    val builder = KinesisClient
      .builder()
      .httpClient(Apache5HttpClient.create())
      .region(Region.of(aws.region))
      .credentialsProvider(credentials(aws.credentials))
      .overrideConfiguration(
        ClientOverrideConfiguration
          .builder()
          .putAdvancedOption(SdkAdvancedClientOption.USER_AGENT_SUFFIX, UserAgent)
          .build())
    aws.endpoint.foreach(e => builder.endpointOverride(URI.create(e)))
    new SdkKinesisAdmin(KinesisClientFactory.sdk(aws, UserAgent), builder.build())
  }

  private def credentials(config: AwsCredentialsConfig): AwsCredentialsProvider = config match {
    case AwsCredentialsConfig.StaticKeys(id, secret, None) =>
      StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret.reveal))
    case _ => DefaultCredentialsProvider.builder().build()
  }

  private final class SdkKinesisAdmin(api: KinesisApi, client: KinesisClient)
      extends DelegatingKinesisApi(api)
      with KinesisAdminApi {

    override def createStream(stream: String, shards: Int): Unit = {
      client.createStream(CreateStreamRequest.builder().streamName(stream).shardCount(shards).build())
      awaitActive(stream)
    }

    override def deleteStream(stream: String): Unit = {
      client.deleteStream(DeleteStreamRequest.builder().streamName(stream).build())
      awaitStatus(stream)(_.isEmpty)
    }

    override def splitShard(stream: String, shardId: String, newStartingHashKey: String): Unit = {
      val request = SplitShardRequest.builder().streamName(stream).shardToSplit(shardId)
      client.splitShard(request.newStartingHashKey(newStartingHashKey).build())
      awaitActive(stream)
    }

    override def mergeShards(stream: String, shardId: String, adjacentShardId: String): Unit = {
      val request = MergeShardsRequest.builder().streamName(stream).shardToMerge(shardId)
      client.mergeShards(request.adjacentShardToMerge(adjacentShardId).build())
      awaitActive(stream)
    }

    override def updateShardCount(stream: String, shards: Int): Unit = {
      val request = UpdateShardCountRequest.builder().streamName(stream).targetShardCount(shards)
      client.updateShardCount(request.scalingType(ScalingType.UNIFORM_SCALING).build())
      awaitActive(stream)
    }

    override def updateMaxRecordSize(stream: String, kib: Int): Unit = {
      val arn = api.describeStream(stream).arn
      client.updateMaxRecordSize(UpdateMaxRecordSizeRequest.builder().streamARN(arn).maxRecordSizeInKiB(kib).build())
      awaitActive(stream)
    }

    private def awaitActive(stream: String): Unit = awaitStatus(stream)(_.contains("ACTIVE"))

    /** Polls the stream's status (None once it is gone) until `done`, for at most two minutes. */
    private def awaitStatus(stream: String)(done: Option[String] => Boolean): Unit = {
      val deadline = System.nanoTime() + 120L * 1000 * 1000 * 1000
      def status(): Option[String] =
        try Some(describeStream(stream).status)
        catch { case _: KinesisApiException.ResourceNotFound => None }
      while (!done(status())) {
        if (System.nanoTime() > deadline)
          throw new IllegalStateException(s"Stream $stream did not settle within 2 minutes")
        Thread.sleep(100)
      }
    }

    override def close(): Unit = {
      client.close()
      api.close()
    }
  }
}
