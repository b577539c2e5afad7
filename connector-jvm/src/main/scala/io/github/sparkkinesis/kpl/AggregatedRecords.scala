// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.security.MessageDigest

import scala.collection.mutable.ArrayBuffer

import io.github.sparkkinesis.util.ProtobufWire

/**
 * The Kinesis Producer Library's aggregated record format, read and written: the magic bytes `F3 89 9A C2`,
 * a protobuf `AggregatedRecord` (a table of partition keys, a table of explicit hash keys, and records that
 * point into them), and the MD5 digest of the protobuf bytes. The format is the KPL's public one
 * (aggregation.proto of the KPL and the KCL); this is an implementation of it, not a copy.
 *
 * {{{
 *   message AggregatedRecord {
 *     repeated string partition_key_table     = 1;
 *     repeated string explicit_hash_key_table = 2;
 *     repeated Record records                 = 3;
 *   }
 *   message Record {
 *     required uint64 partition_key_index     = 1;
 *     optional uint64 explicit_hash_key_index = 2;
 *     required bytes  data                    = 3;
 *     repeated Tag    tags                    = 4;  // ignored
 *   }
 * }}}
 *
 * Stateless and thread-safe.
 */
private[sparkkinesis] object AggregatedRecords {
  import ProtobufWire._

  val Magic: Array[Byte] = Array(0xf3, 0x89, 0x9a, 0xc2).map(_.toByte)
  private val DigestLength = 16

  /** What a Kinesis record's data turned out to be. */
  sealed trait Decoded

  /** A plain record: not in the aggregated format. */
  case object Plain extends Decoded

  /** An aggregate and its user records, in order: the i-th has sub-sequence number i. */
  final case class Aggregate(records: IndexedSeq[UserRecord]) extends Decoded

  /**
   * It starts with the magic bytes but is no valid aggregate (wrong digest, broken protobuf, an index out of
   * its table). Readers pass it on as a plain record, as the KCL does, and count it.
   */
  final case class Corrupt(reason: String) extends Decoded

  def decode(data: Array[Byte]): Decoded =
    if (data.length < Magic.length + DigestLength || !startsWithMagic(data)) Plain
    else {
      val bodyEnd = data.length - DigestLength
      val digest = md5(data, Magic.length, bodyEnd)
      if (!java.util.Arrays.equals(digest, java.util.Arrays.copyOfRange(data, bodyEnd, data.length)))
        Corrupt("its MD5 digest does not match its contents")
      else
        try Aggregate(parse(data, Magic.length, bodyEnd))
        catch { case e: Malformed => Corrupt(e.getMessage) }
    }

  /** Packs records into one aggregate, partition keys and explicit hash keys each stored once. */
  def encode(records: Seq[UserRecord]): Array[Byte] = {
    val keys = new Table
    val hashKeys = new Table
    val entries = records.map { r =>
      val entry = new Writer().varintField(1, keys.indexOf(r.partitionKey).toLong)
      r.explicitHashKey.foreach(h => entry.varintField(2, hashKeys.indexOf(h).toLong))
      entry.bytesField(3, r.data).toByteArray
    }
    val message = new Writer()
    keys.values.foreach(message.stringField(1, _))
    hashKeys.values.foreach(message.stringField(2, _))
    entries.foreach(message.bytesField(3, _))
    val body = message.toByteArray
    Magic ++ body ++ md5(body, 0, body.length)
  }

  /**
   * The exact size of the aggregate that [[encode]] makes of some records, kept as records are added, so a
   * writer knows whether the next one still fits. Not thread-safe.
   */
  final class SizeTracker {
    private val keys = scala.collection.mutable.HashMap.empty[String, Int]
    private val hashKeys = scala.collection.mutable.HashMap.empty[String, Int]
    private var size = (Magic.length + DigestLength).toLong

    /** Bytes of the aggregate so far. */
    def bytes: Long = size

    /** Bytes of the aggregate with `record` added. */
    def bytesWith(record: UserRecord): Long = size + growth(record)

    def add(record: UserRecord): Unit = {
      size += growth(record)
      keys.getOrElseUpdate(record.partitionKey, keys.size)
      record.explicitHashKey.foreach(h => hashKeys.getOrElseUpdate(h, hashKeys.size))
    }

    private def growth(r: UserRecord): Long = {
      val keyIndex = keys.getOrElse(r.partitionKey, keys.size)
      val hashKeyIndex = r.explicitHashKey.map(h => hashKeys.getOrElse(h, hashKeys.size))
      val entry = 1 + varintSize(keyIndex) + hashKeyIndex.fold(0)(i => 1 + varintSize(i)) +
        1 + varintSize(r.data.length) + r.data.length
      val newKey = if (keys.contains(r.partitionKey)) 0 else stringFieldSize(r.partitionKey)
      val newHashKey = r.explicitHashKey.filterNot(hashKeys.contains).fold(0)(stringFieldSize)
      (1 + varintSize(entry) + entry + newKey + newHashKey).toLong
    }

    private def stringFieldSize(s: String): Int = {
      val n = s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
      1 + varintSize(n) + n
    }

    private def varintSize(n: Int): Int =
      if (n < (1 << 7)) 1 else if (n < (1 << 14)) 2 else if (n < (1 << 21)) 3 else if (n < (1 << 28)) 4 else 5
  }

  /** Whether the data begins with the KPL's magic bytes. */
  def startsWithMagic(data: Array[Byte]): Boolean =
    data.length >= Magic.length && Magic.indices.forall(i => data(i) == Magic(i))

  private def parse(data: Array[Byte], from: Int, until: Int): IndexedSeq[UserRecord] = {
    val keys = ArrayBuffer.empty[String]
    val hashKeys = ArrayBuffer.empty[String]
    val raw = ArrayBuffer.empty[(Long, Option[Long], Array[Byte])]
    val reader = new Reader(data, from, until)
    while (reader.hasMore) {
      reader.tag() match {
        case (1, LengthDelimited) => keys += reader.stringField()
        case (2, LengthDelimited) => hashKeys += reader.stringField()
        case (3, LengthDelimited) =>
          val (start, end) = reader.lengthDelimited()
          raw += parseRecord(data, start, end)
        case (_, wireType) => reader.skip(wireType)
      }
    }
    raw.toIndexedSeq.map { case (keyIndex, hashKeyIndex, bytes) =>
      UserRecord(
        lookup(keys, keyIndex, "partition key"),
        hashKeyIndex.map(lookup(hashKeys, _, "explicit hash key")),
        bytes)
    }
  }

  private def parseRecord(data: Array[Byte], from: Int, until: Int): (Long, Option[Long], Array[Byte]) = {
    var keyIndex = Option.empty[Long]
    var hashKeyIndex = Option.empty[Long]
    var bytes = Option.empty[Array[Byte]]
    val reader = new Reader(data, from, until)
    while (reader.hasMore) {
      reader.tag() match {
        case (1, Varint) => keyIndex = Some(reader.varint())
        case (2, Varint) => hashKeyIndex = Some(reader.varint())
        case (3, LengthDelimited) => bytes = Some(reader.bytesField())
        case (_, wireType) => reader.skip(wireType)
      }
    }
    (
      keyIndex.getOrElse(throw new Malformed("a record without its partition key index")),
      hashKeyIndex,
      bytes.getOrElse(throw new Malformed("a record without data")))
  }

  private def lookup(table: ArrayBuffer[String], index: Long, what: String): String =
    if (index >= 0 && index < table.size) table(index.toInt)
    else throw new Malformed(s"$what index $index outside its table of ${table.size}")

  private def md5(data: Array[Byte], from: Int, until: Int): Array[Byte] = {
    val digest = MessageDigest.getInstance("MD5")
    digest.update(data, from, until - from)
    digest.digest()
  }

  /** Distinct strings in the order first seen. */
  private final class Table {
    private val index = scala.collection.mutable.LinkedHashMap.empty[String, Int]
    def indexOf(value: String): Int = index.getOrElseUpdate(value, index.size)
    def values: Iterable[String] = index.keys
  }
}
