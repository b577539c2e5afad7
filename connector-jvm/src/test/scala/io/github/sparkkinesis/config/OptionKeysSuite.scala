// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.errors.KinesisIllegalArgumentException
import io.github.sparkkinesis.KinesisTable
import org.scalatest.funsuite.AnyFunSuite

class OptionKeysSuite extends AnyFunSuite {

  private def meant(key: String) = OptionKeys.meant(key).map(_.key)

  test("a key an edit or two from an option's is taken for a typo of it, whatever its case") {
    assert(meant("intialPosition").contains("initialPosition"))
    assert(meant("INITIALPOSTION").contains("initialPosition"))
    assert(meant("streamNames").contains("streamName"))
    assert(meant("endpont").contains("endpoint"))
    assert(meant("maxRecordsPerTriger").contains("maxRecordsPerTrigger"))
    assert(meant("failOnDataLos").contains("failOnDataLoss"))
    assert(meant("nulldata").isEmpty, "a known key, in another case")
    assert(meant("writeRetryTimout").contains("writeRetryTimeout"), "sink options too")
  }

  test("keys far from every option are not typos: Spark's and other sources' options pass") {
    Seq("path", "checkpointLocation", "queryName", "foo", "kafka.bootstrap.servers", "x", "maxFilesPerTrigger")
      .foreach(k => assert(meant(k).isEmpty, k))
  }

  test("a typo fails at .load(), naming the option meant; an unknown key does not") {
    val e = intercept[KinesisIllegalArgumentException](
      KinesisTable(Map("streamName" -> "s", "region" -> "us-east-1", "intialPosition" -> "earliest"), () => None))
    assert(e.getCondition == "KINESIS_OPTION_UNKNOWN")
    assert(e.getMessage.startsWith(
      "[KINESIS_OPTION_UNKNOWN] The Kinesis connector has no option 'intialPosition'; did you mean 'initialPosition'?"))
    KinesisTable(Map("streamName" -> "s", "region" -> "us-east-1", "someOtherOption" -> "1"), () => None)
  }

  test(
    "a Databricks service credential is refused at .load() and by the sink, rather than run with other credentials") {
    Seq("serviceCredential", "SERVICECREDENTIAL", "databricks.serviceCredential").foreach { key =>
      val options = Map("streamName" -> "s", "region" -> "us-east-1", key -> "kinesis-reader")
      val e = intercept[KinesisIllegalArgumentException](KinesisTable(options, () => None))
      assert(e.getCondition == "KINESIS_OPTION_DATABRICKS_ONLY", key)
      val batch = intercept[KinesisIllegalArgumentException](KinesisBatchReadConfig(options, () => None))
      assert(batch.getCondition == "KINESIS_OPTION_DATABRICKS_ONLY")
      assert(
        e.getMessage.startsWith(
          s"[KINESIS_OPTION_DATABRICKS_ONLY] Option '$key' names a Databricks Unity Catalog service credential, " +
            "which only Databricks can resolve"))
      assert(e.getMessage.contains("roleArn") && e.getMessage.contains("awsAccessKey"), e.getMessage)
      assert(!e.getMessage.contains("kinesis-reader"), "the credential's name is not repeated")
    }
  }

  test("readStream's load() checks the source's whole configuration: streamName is required there") {
    val e = intercept[KinesisIllegalArgumentException](KinesisTable.sourceSchema(None, Map("region" -> "us-east-1")))
    assert(e.getCondition == "KINESIS_OPTION_MISSING" && e.getMessage.contains("Option 'streamName' is required"))
    val (name, schema) = KinesisTable.sourceSchema(None, Map("streamName" -> "a,b", "region" -> "us-east-1"))
    assert(name == "KinesisV2[a,b]" && schema == KinesisTable.recordSchema())
    val fixed = intercept[KinesisIllegalArgumentException](
      KinesisTable
        .sourceSchema(Some(new org.apache.spark.sql.types.StructType().add("x", "int")), Map("streamName" -> "s")))
    assert(fixed.getCondition == "KINESIS_SCHEMA_FIXED")
  }

  test("distance counts a swap of neighbours as one edit") {
    assert(OptionKeys.distance("region", "regoin") == 1)
    assert(OptionKeys.distance("abc", "abc") == 0 && OptionKeys.distance("", "abc") == 3)
  }
}
