// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import java.time.Instant

import io.github.sparkkinesis.aws.{AwsConfig, AwsCredentialsConfig, RoleSpec, Secret}
import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import org.scalatest.funsuite.AnyFunSuite

class KinesisSourceConfigSuite extends AnyFunSuite {

  private val base = Map("streamName" -> "orders", "region" -> "eu-west-1")

  private def parse(options: Map[String, String], defaultRegion: Option[String] = None): KinesisSourceConfig =
    KinesisSourceConfig(options, () => defaultRegion)

  private def failure(options: Map[String, String]): String =
    intercept[KinesisIllegalArgumentException](parse(options)).getMessage

  test("defaults are the documented ones") {
    val config = parse(base)
    assert(config.streams == Seq("orders"))
    assert(config.initialPosition == InitialPosition.Latest)
    assert(config.shardFetchIntervalMs == 1000)
    assert(config.reading == ReadConfig(10000, 1024 * 1024, 400, failOnDataLoss = true, Some(600000), 300000))
    assert(config.prefetch == PrefetchConfig(10000, 20L << 30, 5, 10000000, 128000000))
    assert(config.reading.maxFetchBytesPerSecond == 1024 * 1024)
    assert(config.prefetch.fetchBufferBytes == 20L * 1024 * 1024 * 1024)
    assert(config.limits == TriggerLimits(None, None))
    assert(config.consumer == ConsumerConfig(ConsumerMode.Polling, None, "spark-kinesis_", 300000, false))
    assert(config.aws == AwsConfig("eu-west-1", None, AwsCredentialsConfig.DefaultChain))
  }

  test("keys are case-insensitive and several streams are comma-separated") {
    val config = parse(Map("STREAMNAME" -> "orders, clicks", "Region" -> "us-east-2", "initialposition" -> "EARLIEST"))
    assert(config.streams == Seq("orders", "clicks"))
    assert(config.initialPosition == InitialPosition.TrimHorizon)
    assert(config.aws.region == "us-east-2")
  }

  test("a missing streamName names the option and shows an example") {
    val message = failure(Map("region" -> "us-east-1"))
    assert(message.contains("'streamName' is required"))
    assert(message.contains(""".option("streamName", "my-stream")"""))
  }

  test("bad stream names are refused with the reason") {
    assert(failure(base + ("streamName" -> "a,,b")).contains("empty stream name"))
    assert(failure(base + ("streamName" -> "orders/2024")).contains("'orders/2024' is not a stream name"))
    assert(failure(base + ("streamName" -> "a,a")).contains("named twice"))
  }

  test("an unknown initialPosition shows the value and the accepted ones") {
    val message = failure(base + ("initialPosition" -> "yesterday"))
    assert(message.contains("'initialPosition'"))
    assert(message.contains("'yesterday'"))
    assert(message.contains("latest, trim_horizon, earliest, at_timestamp as JSON, or a streaming query's offset"))
  }

  test("at_timestamp in the documented default format, with a time zone name") {
    val config = parse(base + ("initialPosition" -> """{"at_timestamp": "06/25/2020 10:23:45 PDT"}"""))
    assert(config.initialPosition == InitialPosition.AtTimestamp(Instant.parse("2020-06-25T17:23:45Z").toEpochMilli))
  }

  test("at_timestamp with an explicit format") {
    val json = """{"at_timestamp": "2020-06-25 10:23:45 +0200", "format": "yyyy-MM-dd HH:mm:ss Z"}"""
    val config = parse(base + ("initialPosition" -> json))
    assert(config.initialPosition == InitialPosition.AtTimestamp(Instant.parse("2020-06-25T08:23:45Z").toEpochMilli))
  }

  test("at_timestamp in ISO-8601") {
    val config = parse(base + ("initialPosition" -> """{"at_timestamp": "2020-06-25T17:23:45Z"}"""))
    assert(config.initialPosition == InitialPosition.AtTimestamp(Instant.parse("2020-06-25T17:23:45Z").toEpochMilli))
  }

  test("malformed at_timestamp values say what is wrong") {
    assert(failure(base + ("initialPosition" -> "at_timestamp")).contains("needs a timestamp"))
    assert(failure(base + ("initialPosition" -> "{at_timestamp}")).contains("not valid JSON"))
    assert(failure(base + ("initialPosition" -> """{"timestamp": "x"}""")).contains("no field \"at_timestamp\""))
    assert(failure(base + ("initialPosition" -> """{"at_timestamp": "June 25"}""")).contains("add a \"format\" field"))
    val wrongFormat = """{"at_timestamp": "06/25/2020", "format": "yyyy-MM-dd"}"""
    assert(failure(base + ("initialPosition" -> wrongFormat)).contains("does not match the format 'yyyy-MM-dd'"))
    val badPattern = """{"at_timestamp": "06/25/2020", "format": "qqq"}"""
    assert(failure(base + ("initialPosition" -> badPattern)).contains("'qqq' is not a date format"))
  }

  test("maxPartitions is a positive number, and not given with shardsPerTask") {
    assert(parse(base).prefetch.maxPartitions.isEmpty)
    assert(parse(base + ("maxPartitions" -> "16")).prefetch.maxPartitions.contains(16))
    Seq("0", "-1", "many").foreach { n =>
      val message = failure(base + ("maxPartitions" -> n))
      assert(message.contains("'maxPartitions'") && message.contains(s"'$n'"), message)
    }
    val both = failure(base + ("maxPartitions" -> "16") + ("shardsPerTask" -> "5"))
    assert(
      both.contains("Options 'maxPartitions' and 'shardsPerTask' cannot be set together") && both.contains("give one"))
  }

  test("numbers must be positive and within Kinesis limits") {
    assert(failure(base + ("maxRecordsPerFetch" -> "0")).contains("at least 1"))
    assert(failure(base + ("maxRecordsPerFetch" -> "-5")).contains("at least 1"))
    assert(failure(base + ("maxRecordsPerFetch" -> "10001")).contains("at most 10000"))
    assert(failure(base + ("maxRecordsPerFetch" -> "lots")).contains("expected a whole number"))
  }

  test("durations take a unit") {
    assert(parse(base + ("shardFetchInterval" -> "2m")).shardFetchIntervalMs == 120000)
    assert(parse(base + ("shardFetchInterval" -> "250ms")).shardFetchIntervalMs == 250)
    assert(failure(base + ("shardFetchInterval" -> "5")).contains("expected a number followed by a unit"))
    assert(failure(base + ("shardFetchInterval" -> "5 fortnights")).contains("not a duration unit"))
  }

  test("the region comes from the option, else the endpoint, else the default chain") {
    assert(parse(base).aws.region == "eu-west-1")
    val fromEndpoint = parse(Map("streamName" -> "s", "endpoint" -> "kinesis.ap-south-1.amazonaws.com"))
    assert(fromEndpoint.aws.region == "ap-south-1")
    assert(fromEndpoint.aws.endpoint.contains("https://kinesis.ap-south-1.amazonaws.com"))
    val vpce = parse(Map("streamName" -> "s", "endpoint" -> "https://vpce-0a1b.kinesis.us-west-2.vpce.amazonaws.com"))
    assert(vpce.aws.region == "us-west-2")
    assert(parse(Map("streamName" -> "s"), defaultRegion = Some("sa-east-1")).aws.region == "sa-east-1")
  }

  test("no region anywhere says how to set one") {
    val message = failure(Map("streamName" -> "s", "endpoint" -> "http://127.0.0.1:4567"))
    assert(message.contains("KINESIS_REGION_UNKNOWN"))
    assert(message.contains(""".option("region", "us-east-1")"""))
  }

  test("an endpoint that is not a URL is refused") {
    assert(failure(base + ("endpoint" -> "ftp://kinesis.example.com")).contains("scheme must be http or https"))
    assert(failure(base + ("endpoint" -> "http://")).contains("'endpoint'"))
  }

  test("static keys are used together; a secret never appears in messages or toString") {
    val config = parse(base ++ Map("awsAccessKey" -> "AKIAEXAMPLEKEY12", "awsSecretKey" -> "s3cr3t-VALUE"))
    assert(
      config.aws.credentials ==
        AwsCredentialsConfig.StaticKeys("AKIAEXAMPLEKEY12", new Secret("s3cr3t-VALUE"), None)
    )
    assert(!config.toString.contains("s3cr3t-VALUE"))
    assert(!config.toString.contains("AKIAEXAMPLEKEY12"))
    assert(failure(base + ("awsAccessKey" -> "AKIA1")).contains("'awsSecretKey' is required"))
    assert(failure(base + ("awsSecretKey" -> "s3cr3t-VALUE")).contains("'awsAccessKey' is required"))
    val blank = failure(base ++ Map("awsAccessKey" -> "AKIA1", "awsSecretKey" -> "  "))
    assert(blank.contains("'awsSecretKey' has an invalid value *****"))
  }

  test("roleArn assumes a role on top of the keys or the default chain, with its external id and session name") {
    val role = "arn:aws:iam::123456789012:role/kinesis-reader"
    val onKeys = parse(
      base ++ Map(
        "awsAccessKey" -> "AKIAEXAMPLEKEY12",
        "awsSecretKey" -> "the-secret",
        "roleArn" -> role,
        "roleExternalId" -> "ext-1",
        "roleSessionName" -> "orders-reader",
        "stsEndpoint" -> "https://sts.eu-central-1.amazonaws.com"
      )).aws.credentials
    assert(
      onKeys == AwsCredentialsConfig.AssumedRole(
        RoleSpec(
          role,
          Some("ext-1"),
          "orders-reader",
          Some("https://sts.eu-central-1.amazonaws.com"),
          "eu-central-1",
          3600),
        AwsCredentialsConfig.StaticKeys("AKIAEXAMPLEKEY12", new Secret("the-secret"), None)
      ))
    assert(!onKeys.toString.contains("the-secret") && !onKeys.toString.contains("ext-1"), onKeys.toString)
    val onChain = parse(base + ("roleArn" -> role)).aws.credentials
    assert(
      onChain == AwsCredentialsConfig
        .AssumedRole(RoleSpec(role, None, "spark-kinesis", None, "eu-west-1", 3600), AwsCredentialsConfig.DefaultChain))
  }

  test("role options that cannot work are refused at load, naming the option") {
    assert(failure(base + ("roleArn" -> "kinesis-reader")).contains("is not an IAM role ARN"))
    val external = failure(base + ("roleExternalId" -> "ext-1"))
    assert(external.contains("Option 'roleArn' is required when 'roleExternalId' is set"), external)
    assert(failure(base + ("stsEndpoint" -> "https://sts.amazonaws.com")).contains("'roleArn' is required"))
    val role = base + ("roleArn" -> "arn:aws:iam::123456789012:role/r")
    assert(failure(role + ("roleSessionName" -> "has spaces")).contains("roleSessionName"))
  }

  test("access denied names the denied action and every action the connector needs") {
    val message =
      io.github.sparkkinesis.errors.KinesisErrors
        .accessDenied("GetRecords", "orders", "here", null, io.github.sparkkinesis.client.ClientUse.needed)
        .getMessage
    assert(message.contains("denied kinesis:GetRecords on stream 'orders'"), message)
    Seq(
      "ListShards",
      "GetShardIterator",
      "DescribeStreamSummary",
      "SubscribeToShard",
      "DeregisterStreamConsumer",
      "PutRecords").foreach(action => assert(message.contains(s"kinesis:$action"), message))
  }

  test("the description shown in plans and progress names the streams and nothing else") {
    val config =
      parse(Map("streamName" -> "a,b", "region" -> "us-east-1", "awsAccessKey" -> "AK", "awsSecretKey" -> "sk"))
    assert(config.description == "KinesisV2[a,b]")
  }

  test("prefetch options take durations, byte sizes and rates as the Databricks source does") {
    val config = parse(
      base ++ Map(
        "maxFetchRate" -> "1.5",
        "minFetchPeriod" -> "210ms",
        "maxFetchDuration" -> "200ms",
        "fetchBufferSize" -> "10mb",
        "shardsPerTask" -> "10",
        "coalesceThresholdBlockSize" -> "1,000,000",
        "coalesceBinSize" -> "64000000",
        "maxRecordsPerTrigger" -> "5000",
        "maxBytesPerTrigger" -> "2gb"
      )
    )
    assert(config.reading.maxFetchBytesPerSecond == 1572864)
    assert(config.reading.minFetchPeriodMs == 210)
    assert(config.prefetch.maxFetchDurationMs == 200)
    assert(config.prefetch.fetchBufferBytes == 10L * 1024 * 1024)
    assert(config.prefetch.shardsPerTask == 10)
    assert(config.prefetch.coalesceThresholdBlockSize == 1000000)
    assert(config.prefetch.coalesceBinSize == 64000000)
    assert(config.limits == TriggerLimits(Some(5000), Some(2L * 1024 * 1024 * 1024)))
  }

  test("values outside the documented bounds are refused, naming the bound") {
    assert(
      failure(base + ("maxFetchRate" -> "2.5"))
        .contains("'maxFetchRate' has an invalid value '2.5': it must be at most 2.0"))
    assert(failure(base + ("maxFetchRate" -> "0")).contains("it must be greater than 0.0"))
    assert(
      failure(base + ("minFetchPeriod" -> "100ms"))
        .contains("'minFetchPeriod' has an invalid value '100ms': it must be at least 200ms"))
    assert(failure(base + ("fetchBufferSize" -> "lots")).contains("'fetchBufferSize'"))
    assert(failure(base + ("fetchBufferSize" -> "10xb")).contains("'xb' is not a size unit"))
    assert(
      failure(base + ("shardsPerTask" -> "0"))
        .contains("'shardsPerTask' has an invalid value '0': it must be at least 1"))
    assert(failure(base + ("maxRecordsPerTrigger" -> "-5")).contains("'maxRecordsPerTrigger'"))
    assert(failure(base + ("maxFetchDuration" -> "soon")).endsWith("It takes values such as \"200ms\"."))
  }

  test("byte sizes read as binary units and print back short") {
    assert(ByteSizes.parseBytes("20gb") == Right(20L << 30))
    assert(ByteSizes.parseBytes("512 KB") == Right(512L << 10))
    assert(ByteSizes.parseBytes("1234") == Right(1234L))
    assert(ByteSizes.parseBytes("1.5m") == Right(1572864L))
    assert(ByteSizes.format(20L << 30) == "20gb")
    assert(ByteSizes.format(1500) == "1500b")
  }

  test("enhanced fan-out: consumer names, one for all streams or one per stream, behind the prefix") {
    val efo = base + ("consumerMode" -> "EFO")
    val two = efo + ("streamName" -> "orders,clicks")
    assert(parse(efo).consumer.isEfo)
    assert(parse(efo).consumer.namesFor(Seq("orders"), "q-1") == Map("orders" -> "spark-kinesis_q-1"))
    assert(
      parse(two + ("consumerName" -> "lake")).consumer.namesFor(Seq("orders", "clicks"), "q") ==
        Map("orders" -> "spark-kinesis_lake", "clicks" -> "spark-kinesis_lake"))
    assert(
      parse(two ++ Map("consumerName" -> "o.1, c-2", "consumerNamePrefix" -> "databricks_")).consumer
        .namesFor(Seq("orders", "clicks"), "q") == Map("orders" -> "databricks_o.1", "clicks" -> "databricks_c-2"))
    assert(parse(efo + ("consumerNamePrefix" -> "")).consumer.namesFor(Seq("orders"), "q") == Map("orders" -> "q"))
    val config = parse(efo ++ Map("consumerRefreshInterval" -> "10m", "requireConsumerDeregistration" -> "true"))
    assert(config.consumer.refreshIntervalMs == 600000 && config.consumer.deregisterOnStop)
  }

  test("enhanced fan-out options that cannot work are refused at load, naming the option") {
    val efo = base + ("consumerMode" -> "efo")
    assert(
      failure(base + ("consumerMode" -> "push"))
        .contains("'consumerMode' has an invalid value 'push': expected polling or efo"))
    assert(failure(efo + ("consumerName" -> "my consumer")).contains("'my consumer' is not a consumer name"))
    assert(failure(efo + ("consumerName" -> "a,,b")).contains("empty consumer name"))
    val counts = failure(efo ++ Map("streamName" -> "a,b,c", "consumerName" -> "x,y"))
    assert(counts.contains("'consumerName'") && counts.contains("it names 2 consumers for 3 streams"), counts)
    val long = failure(efo + ("consumerNamePrefix" -> ("p" * 100)))
    assert(long.contains("'consumerNamePrefix'") && long.contains("Kinesis allows at most 128"), long)
    assert(failure(efo + ("consumerRefreshInterval" -> "2h")).contains("it must be at most 1h"))
    assert(failure(efo + ("consumerNamePrefix" -> "a/b")).contains("'consumerNamePrefix'"))
  }
}
