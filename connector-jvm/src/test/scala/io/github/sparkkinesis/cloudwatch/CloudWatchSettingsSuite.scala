// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.cloudwatch

import io.github.sparkkinesis.aws.AwsCredentialsConfig
import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import org.scalatest.funsuite.AnyFunSuite

class CloudWatchSettingsSuite extends AnyFunSuite {

  private val noRegion = () => Option.empty[String]

  test("defaults: namespace SparkKinesis, the region's public endpoint, the default credential chain") {
    val s = CloudWatchSettings.fromConf(Seq("spark.kinesis.cloudwatch.region" -> "eu-west-1", "spark.app.name" -> "x"))
    assert(s.namespace == "SparkKinesis")
    assert(s.url == "https://monitoring.eu-west-1.amazonaws.com")
    assert(s.credentials == AwsCredentialsConfig.DefaultChain)
    assert(s.maxQueuedData == 10000)
  }

  test("settings from the conf, keys in any case; the region from the endpoint's host") {
    val s = CloudWatchSettings.fromConf(
      Seq(
        "spark.kinesis.cloudwatch.Namespace" -> "Shop/Orders",
        "spark.kinesis.cloudwatch.endpoint" -> "https://monitoring.ap-south-1.amazonaws.com",
        "spark.kinesis.cloudwatch.awsAccessKey" -> "AKIDEXAMPLE1234",
        "spark.kinesis.cloudwatch.awsSecretKey" -> "very-secret",
        "spark.kinesis.cloudwatch.maxQueuedData" -> "500"
      ),
      noRegion
    )
    assert(s.namespace == "Shop/Orders" && s.region == "ap-south-1" && s.maxQueuedData == 500)
    assert(s.credentials.isInstanceOf[AwsCredentialsConfig.StaticKeys])
    assert(!s.toString.contains("very-secret"))
  }

  test("a role to assume, as the source's options say it") {
    val s = CloudWatchSettings.parse(
      Map("region" -> "us-east-1", "roleArn" -> "arn:aws:iam::123456789012:role/metrics"),
      noRegion)
    val role = s.credentials.asInstanceOf[AwsCredentialsConfig.AssumedRole]
    assert(role.role.arn == "arn:aws:iam::123456789012:role/metrics" && role.base == AwsCredentialsConfig.DefaultChain)
  }

  test("a bad setting fails naming it and what to do") {
    def refused(raw: Map[String, String]): String =
      intercept[KinesisIllegalArgumentException](CloudWatchSettings.parse(raw, noRegion)).getMessage
    assert(refused(Map("region" -> "us-east-1", "namespace" -> "AWS/Kinesis")).contains("AWS' own"))
    assert(refused(Map("region" -> "us-east-1", "maxQueuedData" -> "0")).contains("maxQueuedData"))
    val misspelt = refused(Map("region" -> "us-east-1", "namepsace" -> "x"))
    assert(
      misspelt.startsWith(
        "[KINESIS_SETTING_UNKNOWN] The connector has no Spark setting 'spark.kinesis.cloudwatch.namepsace'; " +
          "the settings under spark.kinesis.cloudwatch. are spark.kinesis.cloudwatch.namespace, "),
      misspelt
    )
    assert(misspelt.contains("docs/guides/operations.md#to-cloudwatch says what each means."), misspelt)
    assert(refused(Map.empty).contains("spark.kinesis.cloudwatch.region"))
    val secret = refused(Map("region" -> "us-east-1", "awsSecretKey" -> "very-secret"))
    assert(!secret.contains("very-secret"))
  }
}
