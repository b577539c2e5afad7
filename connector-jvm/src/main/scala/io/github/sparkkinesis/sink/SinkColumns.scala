// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.Locale

import io.github.sparkkinesis.errors.KinesisErrors
import org.apache.spark.sql.types.{BinaryType, DataType, StringType, StructType}

/**
 * Where a written row's parts are: the ordinals of its `data` (binary or string), `partitionKey`,
 * `explicitHashKey` and `stream` columns. Resolved once per write, on the driver, from the DataFrame's
 * schema; serializable, it travels to the writing tasks.
 */
private[sparkkinesis] final case class SinkColumns(
    data: Int,
    dataIsString: Boolean,
    partitionKey: Int,
    explicitHashKey: Option[Int],
    stream: Option[Int])

private[sparkkinesis] object SinkColumns {

  val Data = "data"
  val PartitionKey = "partitionKey"
  val ExplicitHashKey = "explicitHashKey"
  val Stream = "stream"

  private val Accepted =
    s"$Data (binary or string), $PartitionKey (string), and optionally $ExplicitHashKey (string, a decimal " +
      s"hash key that overrides the partition key's) and $Stream (string, the row's target stream)"

  private val Example =
    """df.selectExpr("CAST(id AS STRING) AS partitionKey", "to_json(struct(*)) AS data")"""

  /**
   * The sink's columns in `schema`, matched case-insensitively; fails naming the column for a column the
   * sink does not take, a missing or mistyped one, or no target stream at all.
   */
  def resolve(schema: StructType, streamOption: Option[String]): SinkColumns = {
    val byName = schema.fields.zipWithIndex.groupBy(_._1.name.toLowerCase(Locale.ROOT))
    byName.values.find(_.length > 1).foreach { same =>
      fail(s"it has ${same.length} columns named ${same.map(_._1.name).mkString(" and ")}")
    }
    val known = Set(Data, PartitionKey, ExplicitHashKey, Stream).map(_.toLowerCase(Locale.ROOT))
    val others = schema.fieldNames.filterNot(n => known.contains(n.toLowerCase(Locale.ROOT)))
    if (others.nonEmpty)
      fail(s"the sink does not take the column${if (others.length > 1) "s" else ""} ${others.mkString(", ")}")

    def column(name: String, types: DataType*): Option[Int] =
      byName.get(name.toLowerCase(Locale.ROOT)).map(_.head).map { case (field, index) =>
        if (!types.contains(field.dataType))
          fail(s"its column ${field.name} is ${field.dataType.simpleString}, not " +
            types.map(_.simpleString).mkString(" or ") + s"; cast it, e.g. CAST(${field.name} AS STRING)")
        index
      }
    def required(name: String, types: DataType*): Int =
      column(name, types: _*).getOrElse(fail(s"it has no column $name"))

    val data = required(Data, BinaryType, StringType)
    val columns = SinkColumns(
      data = data,
      dataIsString = schema(data).dataType == StringType,
      partitionKey = required(PartitionKey, StringType),
      explicitHashKey = column(ExplicitHashKey, StringType),
      stream = column(Stream, StringType)
    )
    if (columns.stream.isEmpty && streamOption.isEmpty)
      throw KinesisErrors.sinkStreamUnset()
    columns
  }

  private def fail(problem: String): Nothing =
    throw KinesisErrors.sinkColumns(problem, Accepted, Example)
}
