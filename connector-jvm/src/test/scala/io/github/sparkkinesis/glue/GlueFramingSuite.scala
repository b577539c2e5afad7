// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.io.ByteArrayOutputStream
import java.util.zip.{DataFormatException, Deflater, DeflaterOutputStream}
import java.util.UUID

import io.github.sparkkinesis.testing.SeededProperties
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite

/**
 * The registry's framing is outside input: any bytes are either a framed record, read back as framed, or
 * refused with the reason; a compressed payload inflates within its bound or is refused.
 */
class GlueFramingSuite extends AnyFunSuite with SeededProperties {

  private val bytes: Gen[Array[Byte]] = Gen.containerOf[Array, Byte](Gen.choose(Byte.MinValue, Byte.MaxValue))
  private val ids: Gen[UUID] = for { a <- Gen.long; b <- Gen.long } yield new UUID(a, b)

  private def payloadOf(record: Array[Byte], frame: GlueFraming.Frame): Array[Byte] = {
    val (b, offset, length) = GlueFraming.payload(record, frame)
    java.util.Arrays.copyOfRange(b, offset, offset + length)
  }

  test("a framed record reads back as its schema version, compression and payload") {
    forAll(ids, bytes, Gen.oneOf(true, false)) { (id, payload, compress) =>
      val record = GlueFraming.frame(id, payload, compress)
      val frame = GlueFraming.read(record).fold(p => fail(p), identity)
      assert(frame.schemaVersionId == id)
      assert(frame.compression == (if (compress) "zlib" else "none"))
      assert(payloadOf(record, frame).sameElements(payload))
    }
  }

  test("the header is the registry's: version 3, compression byte, the UUID as two big-endian longs") {
    val id = UUID.fromString("01020304-0506-0708-090a-0b0c0d0e0f10")
    val record = GlueFraming.frame(id, Array[Byte](42), compress = false)
    assert(record.toSeq == (Seq(3, 0) ++ (1 to 16) ++ Seq(42)).map(_.toByte))
  }

  test("any bytes are read as framed or refused with the reason, never an exception") {
    forAll(bytes) { any =>
      GlueFraming.read(any) match {
        case Left(problem) => assert(problem.nonEmpty)
        case Right(_) => assert(any.length >= GlueFraming.HeaderLength && any(0) == 3)
      }
    }
  }

  test("records that are not framed say why") {
    assert(GlueFraming.read(Array[Byte]()).left.toOption.get == "it is empty")
    assert(GlueFraming.read(Array[Byte](3, 0)).left.toOption.get == "it ends within the registry's 18-byte header")
    val json = """{"order": 1, "items": ["apple", "pear"]}""".getBytes("UTF-8")
    assert(GlueFraming.read(json).left.toOption.get.contains("first byte is 0x7b"))
    val badCompression = GlueFraming.frame(UUID.randomUUID(), Array[Byte](1), compress = false).updated(1, 9.toByte)
    assert(GlueFraming.read(badCompression).left.toOption.get.contains("compression byte is 0x09"))
  }

  test("a compressed payload that is not zlib data, or is cut short, is refused") {
    val id = UUID.randomUUID()
    val garbage = GlueFraming.frame(id, Array.fill[Byte](40)(7), compress = false).updated(1, 5.toByte)
    val frame = GlueFraming.read(garbage).toOption.get
    intercept[DataFormatException](GlueFraming.payload(garbage, frame))
    val whole = GlueFraming.frame(id, Array.tabulate[Byte](5000)(i => (i * 31).toByte), compress = true)
    val cut = whole.take(whole.length / 2)
    assert(
      intercept[DataFormatException](GlueFraming.payload(cut, GlueFraming.read(cut).toOption.get)).getMessage
        .contains("ends before its end"))
  }

  test("a payload that inflates past the bound is refused, not inflated whole") {
    val deflated = new ByteArrayOutputStream()
    val out = new DeflaterOutputStream(deflated, new Deflater(Deflater.BEST_COMPRESSION))
    val zeros = new Array[Byte](1 << 20)
    (1 to 64).foreach(_ => out.write(zeros)) // 64 MiB of zeros, about 64 KiB deflated
    out.close()
    val record = Array[Byte](3, 5) ++ new Array[Byte](16) ++ deflated.toByteArray
    val frame = GlueFraming.read(record).toOption.get
    val refused = intercept[DataFormatException](GlueFraming.payload(record, frame, maxInflated = 8 << 20))
    assert(refused.getMessage == s"it inflates to more than ${8 << 20} bytes")
    assert(GlueFraming.payload(record, frame)._3 == 64 << 20)
  }
}
