// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import io.github.sparkkinesis.glue.FieldPath
import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.Schema.Type
import org.apache.spark.sql.types.{Decimal, DecimalType}

/**
 * Avro's decimal logical type, read and written: the unscaled value as a big-endian two's complement
 * integer, in bytes (as few as it needs) or a fixed (sign-extended to its size), with the scale and
 * precision the schema gives.
 *
 * Runs on executors, as part of [[AvroReaders]] and [[AvroWriters]]. Stateless and thread-safe.
 */
private[avro] object AvroDecimals {

  /** The Spark decimal of the unscaled bytes of an Avro `decimal`; a value of too many digits is malformed. */
  def reader(decimal: LogicalTypes.Decimal): Array[Byte] => Decimal = {
    val precision = decimal.getPrecision
    val scale = decimal.getScale
    val bound = BigInteger.TEN.pow(precision)
    bytes => {
      if (bytes.length == 0) throw new BoundedBinaryDecoder.Malformed("a decimal has no bytes")
      val unscaled = new BigInteger(bytes)
      if (unscaled.abs.compareTo(bound) >= 0)
        throw new BoundedBinaryDecoder.Malformed(
          s"the decimal ${new JBigDecimal(unscaled, scale)} has more than the $precision digits of its type")
      if (precision <= Decimal.MAX_LONG_DIGITS) Decimal(unscaled.longValue, precision, scale)
      else Decimal(new JBigDecimal(unscaled, scale), precision, scale)
    }
  }

  /**
   * The writer of a column of `column`'s decimals as `schema`, a bytes or fixed with the decimal logical
   * type. The column fits when every value it can hold is one of the Avro type's without rounding: no more
   * digits after the point, and no more before it.
   */
  def writer(schema: Schema, column: DecimalType, path: String): AvroWriters.Write = {
    val avro = schema.getLogicalType.asInstanceOf[LogicalTypes.Decimal]
    val (precision, scale) = (avro.getPrecision, avro.getScale)
    if (column.scale > scale || column.precision - column.scale > precision - scale)
      throw new AvroConversionException(
        s"${FieldPath.column(path)}: a ${column.simpleString} column does not fit the Avro type " +
          s"decimal($precision, $scale): its values have up to ${column.precision - column.scale} digits before " +
          s"the point and ${column.scale} after it, the Avro type's up to ${precision - scale} and $scale. Cast " +
          s"it to decimal($precision, $scale).")
    val (p, s) = (column.precision, column.scale)
    if (schema.getType == Type.BYTES)
      (out, from, at) => out.writeBytes(unscaled(from.getDecimal(at, p, s), scale).toByteArray)
    else {
      val size = schema.getFixedSize
      (out, from, at) => {
        val bytes = unscaled(from.getDecimal(at, p, s), scale).toByteArray
        if (bytes.length > size)
          throw new AvroEncodeException(
            s"${FieldPath.column(path)}: ${from.getDecimal(at, p, s)} takes ${bytes.length} bytes, and its Avro " +
              s"type is a fixed of $size.")
        if (bytes.length == size) out.writeFixed(bytes)
        else {
          val padded = new Array[Byte](size)
          val sign: Byte = if (bytes(0) < 0) -1 else 0
          java.util.Arrays.fill(padded, 0, size - bytes.length, sign)
          System.arraycopy(bytes, 0, padded, size - bytes.length, bytes.length)
          out.writeFixed(padded)
        }
      }
    }
  }

  /** The unscaled value at `scale`, which is no smaller than the decimal's own: exact, never rounded. */
  private def unscaled(value: Decimal, scale: Int): BigInteger =
    value.toJavaBigDecimal.setScale(scale).unscaledValue
}
