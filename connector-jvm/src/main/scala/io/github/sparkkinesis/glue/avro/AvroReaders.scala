// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import io.github.sparkkinesis.glue.FieldPath
import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.io.{Decoder, ResolvingDecoder}
import org.apache.avro.Schema.Type
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Builds the tree of functions that reads one Avro datum of a reader schema straight into Spark's internal
 * values, of the type [[AvroSchemas.sqlType]] gives that schema: an InternalRow for a record, UTF8String for
 * a string or an enum symbol, ArrayData, MapData, Decimal, days since the epoch for a date, microseconds for
 * a timestamp (milliseconds times 1000), byte arrays for bytes and fixed. The tree is built once per reader
 * schema; reading a record walks it, with no type dispatch per value.
 *
 * The functions read from any Avro decoder: a ResolvingDecoder that turns data of another writer schema
 * into the reader's (fields in the writer's order, defaults, promotions, enum symbols and union branches
 * mapped) or, when the writer schema is the reader's, the bare [[BoundedBinaryDecoder]].
 *
 * A failure inside a record, array or map is rethrown as a [[AvroReaders.ReadFailure]] naming the innermost
 * of them (`order.items[].price`), for [[AvroDecoder]] to word.
 *
 * Runs on executors. The functions hold no state of their own: thread-safe as far as the decoder they are
 * given is.
 */
private[avro] object AvroReaders {

  type Read = Decoder => Any

  /** A failure to read the value at `path`; the cause says what went wrong. */
  final class ReadFailure(val path: String, cause: Throwable) extends RuntimeException(cause)

  def of(schema: Schema, path: String): Read = schema.getType match {
    case Type.NULL =>
      in => {
        in.readNull()
        null
      }
    case Type.BOOLEAN => _.readBoolean()
    case Type.INT => _.readInt()
    case Type.LONG if AvroSchemas.isTimestampMillis(schema) => in => Math.multiplyExact(in.readLong(), 1000L)
    case Type.LONG => _.readLong()
    case Type.FLOAT => _.readFloat()
    case Type.DOUBLE => _.readDouble()
    case Type.STRING =>
      in => {
        val utf8 = in.readString(null)
        UTF8String.fromBytes(utf8.getBytes, 0, utf8.getByteLength)
      }
    case Type.ENUM =>
      val symbols = schema.getEnumSymbols.asScala.map(UTF8String.fromString).toArray
      in => symbols(checkIndex(in.readEnum(), symbols.length, "an enum symbol"))
    case Type.BYTES =>
      val bytes: Read = in => {
        val buffer = in.readBytes(null)
        if (buffer.hasArray && buffer.arrayOffset() == 0 && buffer.position() == 0 &&
          buffer.remaining() == buffer.array().length) buffer.array()
        else {
          val out = new Array[Byte](buffer.remaining())
          buffer.get(out)
          out
        }
      }
      decimalOr(schema, bytes)
    case Type.FIXED =>
      val size = schema.getFixedSize
      val fixed: Read = in => {
        val out = new Array[Byte](size)
        in.readFixed(out, 0, size)
        out
      }
      decimalOr(schema, fixed)
    case Type.RECORD => record(schema, path)
    case Type.ARRAY => array(schema, path)
    case Type.MAP => map(schema, path)
    case Type.UNION => union(schema, path)
  }

  private def checkIndex(i: Int, n: Int, what: String): Int =
    if (i >= 0 && i < n) i
    else throw new BoundedBinaryDecoder.Malformed(s"$what has the index $i, and there are $n")

  private def decimalOr(schema: Schema, bytes: Read): Read = schema.getLogicalType match {
    case d: LogicalTypes.Decimal =>
      val decimal = AvroDecimals.reader(d)
      in => decimal(bytes(in).asInstanceOf[Array[Byte]])
    case _ => bytes
  }

  private def record(schema: Schema, path: String): Read = {
    val fields = schema.getFields.asScala.toArray
    val paths = fields.map(f => FieldPath.field(path, f.name))
    val reads = fields.zip(paths).map { case (f, p) => of(f.schema, p) }
    val n = fields.length
    def readField(i: Int, in: Decoder, values: Array[Any]): Unit =
      values(i) =
        try reads(i)(in)
        catch {
          case e: ReadFailure => throw e
          case NonFatal(e) => throw new ReadFailure(paths(i), e)
        }
    in => {
      val values = new Array[Any](n)
      in match {
        case resolving: ResolvingDecoder =>
          val order = resolving.readFieldOrder()
          var i = 0
          while (i < order.length) {
            readField(order(i).pos, in, values)
            i += 1
          }
        case _ =>
          var i = 0
          while (i < n) {
            readField(i, in, values)
            i += 1
          }
      }
      new GenericInternalRow(values)
    }
  }

  /** Reads the items of an array or map, block by block, into `item` (not sized by counts from the data). */
  private def items(first: Long, next: () => Long, item: () => Unit): Unit = {
    var count = first
    while (count > 0) {
      var i = 0L
      while (i < count) {
        item()
        i += 1
      }
      count = next()
    }
  }

  private def array(schema: Schema, path: String): Read = {
    val elementPath = FieldPath.element(path)
    val element = of(schema.getElementType, elementPath)
    in => {
      val values = ArrayBuffer.empty[Any]
      try items(in.readArrayStart(), () => in.arrayNext(), () => values += element(in))
      catch {
        case e: ReadFailure => throw e
        case NonFatal(e) => throw new ReadFailure(elementPath, e)
      }
      new GenericArrayData(values.toArray)
    }
  }

  private def map(schema: Schema, path: String): Read = {
    val valuePath = FieldPath.value(path)
    val value = of(schema.getValueType, valuePath)
    in => {
      val keys = ArrayBuffer.empty[Any]
      val values = ArrayBuffer.empty[Any]
      def entry(): Unit = {
        val key = in.readString(null)
        keys += UTF8String.fromBytes(key.getBytes, 0, key.getByteLength)
        values += value(in)
      }
      try items(in.readMapStart(), () => in.mapNext(), () => entry())
      catch {
        case e: ReadFailure => throw e
        case NonFatal(e) => throw new ReadFailure(valuePath, e)
      }
      new ArrayBasedMapData(new GenericArrayData(keys.toArray), new GenericArrayData(values.toArray))
    }
  }

  private def union(schema: Schema, path: String): Read = {
    val union = AvroUnion(schema)
    val n = schema.getTypes.size
    // By the index of the branch in the union: the value the branch's data gives in the union's Spark type.
    val reads = new Array[Read](n)
    if (union.nullable) reads(union.nullIndex) = of(schema.getTypes.get(union.nullIndex), path)
    union.kind match {
      case AvroUnion.NullOnly | AvroUnion.Single =>
        union.branches.foreach(b => reads(b.index) = of(b.schema, path))
      case AvroUnion.Widened =>
        // The numbers as they are: the union is a long or a double, whatever logical type a branch has.
        union.branches.foreach { b =>
          reads(b.index) = b.schema.getType match {
            case Type.INT => in => in.readInt().toLong
            case Type.LONG => in => in.readLong()
            case Type.FLOAT => in => in.readFloat().toDouble
            case _ => in => in.readDouble()
          }
        }
      case AvroUnion.Members =>
        val members = union.branches.length
        union.branches.zipWithIndex.foreach { case (b, member) =>
          val read = of(b.schema, FieldPath.field(path, AvroUnion.memberName(member)))
          reads(b.index) = in => {
            val values = new Array[Any](members)
            values(member) = read(in)
            new GenericInternalRow(values)
          }
        }
    }
    in => reads(checkIndex(in.readIndex(), n, "a union branch"))(in)
  }
}
