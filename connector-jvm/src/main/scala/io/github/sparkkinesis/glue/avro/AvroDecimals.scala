// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.avro

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import org.apache.avro.LogicalTypes
import org.apache.spark.sql.types.Decimal

/**
 * Avro's decimal logical type, read: the unscaled value as a big-endian two's complement integer, in bytes
 * or a fixed, with the scale and precision the schema gives.
 *
 * Runs on executors, as part of [[AvroReaders]]. Stateless and thread-safe.
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
}
