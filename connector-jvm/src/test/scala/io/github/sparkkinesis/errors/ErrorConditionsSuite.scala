// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}

import scala.jdk.CollectionConverters._

import io.github.sparkkinesis.client.ClientUse
import org.apache.spark.SparkThrowable
import org.scalatest.funsuite.AnyFunSuite

class ErrorConditionsSuite extends AnyFunSuite {

  private val declared = ErrorConditions.all().asScala

  test("the conditions the code names are those the JSON declares, each with a SQLSTATE") {
    assert(declared.keySet.filterNot(_.contains('.')) == ErrorCondition.all.map(_.name).toSet)
    declared.foreach { case (name, c) =>
      assert(name.matches("KINESIS_[A-Z0-9_]+(\\.[A-Z0-9_]+)?"), name)
      assert(c.sqlState.matches("[0-9A-Z]{5}"), s"$name: ${c.sqlState}")
    }
  }

  test("every error the factory makes fills in each parameter of its condition and starts with it") {
    val cause = new RuntimeException("outer", new java.net.ConnectException("Connection refused"))
    val made: Seq[Throwable with KinesisThrowable] = Seq(
      KinesisErrors.missingOption("streamName", "my-stream"),
      KinesisErrors.optionsIncomplete("awsSecretKey", "awsAccessKey", "give both."),
      KinesisErrors.optionsConflict("streamName", "streamARN", "both name the streams."),
      KinesisErrors.invalidOption("region", "'x'", "not a region", "us-east-1"),
      KinesisErrors.unknownOption("intialPosition", "initialPosition"),
      KinesisErrors.optionDatabricksOnly("serviceCredential", "a Databricks Unity Catalog service credential"),
      KinesisErrors.optionNotInRealTimeMode("fetchBufferSize", "nothing is prefetched"),
      KinesisErrors.optionNotInBatchRead("maxRecordsPerTrigger", "a batch read has no triggers"),
      KinesisErrors.optionBatchReadOnly("endPosition", "a stream has no end"),
      KinesisErrors.noRegion(Some("http://localhost:4566")),
      KinesisErrors.noRegion(None),
      KinesisErrors.streamNotFound("s", "here", cause),
      KinesisErrors.streamNotFound("s", "here", cause, Some("row 1 of partition 0, partitionKey 'k'")),
      KinesisErrors.endpointUnreachable("s", "here", "read", cause),
      KinesisErrors.accessDenied("GetRecords", "s", "here", cause, ClientUse.needed),
      KinesisErrors.accessDenied("PutRecords", "s", "here", cause, ClientUse.needed, Some("row 1")),
      KinesisErrors.credentialsUnavailable("STS refused AssumeRole", "AccessDenied", "Check the trust policy.", cause),
      KinesisErrors.credentialsUnavailable("STS refused it", "AccessDenied", "Check it.", cause, Some("row 1")),
      KinesisErrors.credentialsUnreachable("could not reach STS at here", "Connection refused", "Check it.", cause),
      KinesisErrors.credentialsOutage(
        "could not reach STS",
        "Connection refused",
        "Check it.",
        600,
        "no call",
        "10m",
        cause),
      KinesisErrors.requestRejected("PutRecords", "s", "here", cause),
      KinesisErrors.requestRejected("PutRecords", "s", "here", cause, Some("row 1")),
      KinesisErrors.kinesisCallFailed("ListShards", "s", "here", cause),
      KinesisErrors.invalidOffset("{}", " in file offsets/0", "no version", "{\"v\":4}"),
      KinesisErrors.rangeIncomplete("s", "shardId-0", "1", "9", "5"),
      KinesisErrors.dataLoss("s", "shardId-0", "records after 1", "retention trimmed them"),
      KinesisErrors.streamRecreated("s", "its ARN changed"),
      KinesisErrors.startNotInShard("initialPosition", "s", "shardId-0", "at", "12", "Kinesis lists no such shard"),
      KinesisErrors.checkpointForeign("s", "shardId-000000000099", "shardId-000000000000"),
      KinesisErrors.checkpointOtherStreams(Seq("s"), Seq("t")),
      KinesisErrors.checkpointUnreadable("file:/c/offsets/3", "file:/c", "it is empty"),
      KinesisErrors.consumerNotActive("s", "c", "CREATING", 60000),
      KinesisErrors.consumerNotFound("s", "c", null),
      KinesisErrors.registeredConsumerUnusable("s", "c", "is not registered"),
      KinesisErrors.consumerNameInvalid("no spaces"),
      KinesisErrors.connectCallUnreadable("it is of version 2, and this connector reads version 1"),
      KinesisErrors.prefetchFailed("KinesisSource[s]", 10, cause),
      KinesisErrors.prefetchBroken("KinesisSource[s]", cause),
      KinesisErrors.writeFailed("s", 10, 2, 5, "2: InternalFailure", null),
      KinesisErrors.badRecord("its data is null", "row 1"),
      KinesisErrors.sinkColumns("it has no column data", "data, partitionKey", "df.select(...)"),
      KinesisErrors.sinkStreamUnset(),
      KinesisErrors.saveModeUnsupported("Overwrite", "a stream cannot be emptied"),
      KinesisErrors.schemaFixed("data, streamName"),
      KinesisErrors.v1SourceUnsupported(),
      KinesisErrors.unavailable("s", "here", "read", 600, "no call has succeeded since then", "10m", cause),
      GlueRegistryErrors.notFound("here", "GetSchemaVersion", "schema version 1", "not found", "Check it.", cause),
      GlueRegistryErrors.accessDenied("here", "GetSchemaVersion", "schema version 1", cause),
      GlueRegistryErrors.credentials("here", "schema version 1", "none found", "no keys", "Check.", false, cause),
      GlueRegistryErrors.unreachable("here", "GetSchemaVersion", "schema version 1", 4, 1400, "refused", cause),
      GlueRegistryErrors.refused("here", "CreateSchema", "schema 's' of registry 'r'", "InvalidInput", "no", cause),
      GlueRegistryErrors.alreadyExists("here", "CreateSchema", "schema 's'", "AlreadyExistsException", "it is", cause),
      GlueRegistryErrors.versionNotAvailable("here", "schema 's' of registry 'r'", 3, "FAILURE", "It breaks BACKWARD."),
      GlueRegistryErrors.recordUndecodable("NOT_FRAMED", "a record of 2 bytes", "it ends within the header", null),
      GlueRegistryErrors.recordUndecodable("INVALID", "a record of 20 bytes", "it ends inside a long", cause),
      GlueRegistryErrors.recordUndecodable(
        "OTHER_SCHEMA",
        "a record of 20 bytes",
        "its header names another schema",
        null,
        "writerSchema" -> "r/payments",
        "schema" -> "r/orders"),
      GlueRegistryErrors.schemaUnusable("from_glue_registry", "orders", "r", "2", "JSON", "dataFormat says AVRO"),
      GlueRegistryErrors.structMismatch("orders", "r", 2, "AVRO", "column discount: the record has no such field."),
      GlueRegistryErrors.rowUnencodable("orders", "r", 2, "column id: null, and the field is not nullable", null),
      KinesisErrors.functionArguments("from_glue_registry", "from_glue_registry(data, schemaName)", "no data"),
      KinesisErrors.functionOptionUnknown("from_glue_registry", "regoin", Seq("region", "endpoint")),
      KinesisErrors.settingInvalid("spark.kinesis.sql.readFunctionName", "a.b", "not one identifier", "kinesis_read"),
      KinesisErrors.settingUnknown("spark.x.regoin", "spark.x.", Seq("spark.x.region"), "docs/x.md")
    )
    made.foreach { e =>
      assert(e.getMessage.startsWith(s"[${e.getCondition}] "), e.getMessage)
      assert(!e.getMessage.matches("(?s).*<[a-zA-Z]+>.*"), e.getMessage)
      assert(e.getSqlState == declared(e.getCondition).sqlState)
      assert(e.getMessageParameters.asScala.keySet == ErrorConditions.parameters(e.getCondition).asScala.toSet)
    }
    val used = made.map(_.getCondition.takeWhile(_ != '.')).toSet
    assert(ErrorCondition.all.map(_.name).toSet -- used == Set("KINESIS_WRONG_SPARK_LINE"))
    assert(
      made.head.getMessage == """[KINESIS_OPTION_MISSING] Option 'streamName' is required. For example: """ +
        """.option("streamName", "my-stream").""")
    assert(KinesisErrors.endpointUnreachable("s", "here", "read", cause).getMessage.contains("': Connection refused."))
  }

  test("the Glue Schema Registry's errors have the kind their callers match on, and cross to the driver with it") {
    val cause = new RuntimeException("User: arn:aws:iam::123456789012:user/u is not authorized to perform: glue:X")
    val denied = GlueRegistryErrors.accessDenied("here", "GetSchemaVersion", "schema version 1", cause)
    assert(denied.kind == GlueRegistryException.AccessDenied)
    assert(
      denied.getMessage.contains(
        "denied glue:GetSchemaVersion on schema version 1 to arn:aws:iam::123456789012:user/u."))
    val bytes = new ByteArrayOutputStream()
    new ObjectOutputStream(bytes).writeObject(denied)
    val got =
      new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray))
        .readObject()
        .asInstanceOf[GlueRegistryException]
    assert(got.kind == GlueRegistryException.AccessDenied && got.getMessage == denied.getMessage)
    assert(ErrorCondition.unapply(got).contains(ErrorCondition.GlueRegistryAccessDenied))
    val outage =
      GlueRegistryErrors.credentials("here", "schema version 1", "could not reach STS", "timeout", ".", true, null)
    assert(
      outage.kind == GlueRegistryException.Unreachable && outage.getCondition == "KINESIS_GLUE_REGISTRY_CREDENTIALS")
  }

  test("access denied names the principal AWS denied, when AWS names it: which credentials the call was made with") {
    val refusal = new RuntimeException(
      "User: arn:aws:sts::123456789012:assumed-role/eks-node-role/i-0abc is not authorized to perform: " +
        "kinesis:GetRecords on resource: arn:aws:kinesis:us-east-1:123456789012:stream/s (Service: Kinesis)")
    val denied = KinesisErrors.accessDenied("GetRecords", "s", "here", RemoteFailure.of(refusal), ClientUse.needed)
    assert(
      denied.getMessage.startsWith(
        "[KINESIS_ACCESS_DENIED] Kinesis denied kinesis:GetRecords on stream 's' at here " +
          "to arn:aws:sts::123456789012:assumed-role/eks-node-role/i-0abc. The connector needs"),
      denied.getMessage
    )
    val unnamed =
      KinesisErrors.accessDenied("GetRecords", "s", "here", new RuntimeException("denied"), ClientUse.needed)
    assert(unnamed.getMessage.contains("at here to the credentials the query uses. The connector needs"))
  }

  test("the errors are SparkThrowables by their condition, on Spark 3.5 as on Spark 4") {
    val e: SparkThrowable = KinesisErrors.streamNotFound("s", "here", null, Some("row 3"))
    assert(e.getSqlState == "42P01")
    assert(ErrorCondition.unapply(e.asInstanceOf[Throwable]).contains(ErrorCondition.StreamNotFound))
    @annotation.nowarn("cat=deprecation")
    val errorClass = e.getErrorClass
    assert(errorClass == "KINESIS_STREAM_NOT_FOUND.WRITE")
    assert(e.getMessageParameters.asScala == Map("stream" -> "s", "where" -> "here", "row" -> "row 3"))
    assert(KinesisErrors.badRecord("x", "row 1").isInstanceOf[IllegalArgumentException])
    assert(ErrorCondition.unapply(new RuntimeException("[KINESIS_STREAM_NOT_FOUND] lookalike")).isEmpty)
  }

  test("an error crosses from an executor to the driver whole: condition, parameters and cause") {
    val sent =
      KinesisErrors.accessDenied("GetRecords", "s", "here", new RuntimeException("denied by policy"), ClientUse.needed)
    val bytes = new ByteArrayOutputStream()
    new ObjectOutputStream(bytes).writeObject(sent)
    val got =
      new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)).readObject().asInstanceOf[KinesisException]
    assert(got.getMessage == sent.getMessage && got.getCondition == "KINESIS_ACCESS_DENIED")
    assert(got.getMessageParameters.asScala == sent.getMessageParameters.asScala)
    assert(got.getCause.getMessage == "denied by policy")
  }

  test("a template naming a parameter the factory did not give is the connector's bug, said plainly") {
    val e = intercept[IllegalStateException](
      new KinesisException("KINESIS_STREAM_NOT_FOUND", Map("stream" -> "s").asJava, null))
    assert(e.getMessage.contains("needs the parameter where"))
  }
}
