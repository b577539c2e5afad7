package io.github.sparkkinesis.shards

import io.github.sparkkinesis.client.ShardInfo
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * The rules that keep a query correct while streams reshard. Pure functions; driver side.
 *
 *  - A shard that appears after the query started (a child of a split or merge) is read from its start.
 *  - A shard is read only once each of its parents that the query tracks has been read to its end, so the
 *    records of a partition key stay in order across reshards.
 *  - A closed shard leaves the offsets only once it is read to its end and Kinesis no longer lists it.
 */
object ShardLineage {

  /** The positions carried forward to the next batch, given the shards Kinesis lists now. */
  def track(positions: Map[ShardKey, ShardPosition], listed: Map[ShardKey, ShardInfo]): Map[ShardKey, ShardPosition] = {
    val kept = positions.filter { case (key, position) => position != ShardPosition.ShardEnd || listed.contains(key) }
    val added = listed.keys.filterNot(positions.contains).map(_ -> ShardPosition.TrimHorizon)
    kept ++ added
  }

  /** Whether the shard may be read now: it has something left, and its tracked parents are finished. */
  def readable(key: ShardKey, positions: Map[ShardKey, ShardPosition], listed: Map[ShardKey, ShardInfo]): Boolean =
    positions.get(key).exists(_ != ShardPosition.ShardEnd) &&
      listed
        .get(key)
        .forall(_.parents.forall { parent =>
          positions.get(ShardKey(key.stream, parent)).forall(_ == ShardPosition.ShardEnd)
        })
}
