// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

/**
 * What one GetRecords call returned. `nextIterator` is None once a closed shard has been read to its end;
 * `millisBehindLatest` is how far the iterator is behind the shard's newest record.
 */
private[sparkkinesis] final case class RecordBatch(
    records: Seq[KinesisRecord],
    nextIterator: Option[String],
    millisBehindLatest: Long)

private[sparkkinesis] object RecordBatch {

  /** The data bytes of `records`, summed without a boxed number per record. */
  def dataBytes(records: Seq[KinesisRecord]): Long = {
    var bytes = 0L
    records.foreach(r => bytes += r.data.length)
    bytes
  }
}
