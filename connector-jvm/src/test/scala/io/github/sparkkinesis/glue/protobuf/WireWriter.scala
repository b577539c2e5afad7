// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue.protobuf

import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets

/**
 * Protobuf's wire encoding written by hand, for the decoder's tests: the bytes a field of each wire type
 * takes, so that a test can write what no Protobuf library would (fields out of order, repeated, truncated,
 * unknown wire types). Cross-checked against bytes Python's protobuf wrote (ProtoDecoderSuite).
 */
object WireWriter {

  def varint(v: Long): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    var n = v
    while ((n & ~0x7fL) != 0) { out.write(((n & 0x7f) | 0x80).toInt); n >>>= 7 }
    out.write(n.toInt)
    out.toByteArray
  }

  def tag(number: Int, wire: Int): Array[Byte] = varint((number.toLong << 3) | wire)

  def zigzag(v: Long): Long = (v << 1) ^ (v >> 63)

  def fixed32(v: Int): Array[Byte] = Array(v, v >> 8, v >> 16, v >> 24).map(_.toByte)

  def fixed64(v: Long): Array[Byte] = fixed32(v.toInt) ++ fixed32((v >>> 32).toInt)

  /** Field `number` as a varint. */
  def int(number: Int, v: Long): Array[Byte] = tag(number, 0) ++ varint(v)

  def len(number: Int, bytes: Array[Byte]): Array[Byte] = tag(number, 2) ++ varint(bytes.length) ++ bytes

  def str(number: Int, s: String): Array[Byte] = len(number, s.getBytes(StandardCharsets.UTF_8))

  def hex(s: String): Array[Byte] = s.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray
}
