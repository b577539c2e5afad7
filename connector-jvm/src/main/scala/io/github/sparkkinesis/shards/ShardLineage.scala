// SPDX-License-Identifier: Apache-2.0
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
private[sparkkinesis] object ShardLineage {

  /**
   * Where each shard starts when reading goes on after a query's offset (`positions`): a shard it names, after
   * its position; a listed shard it does not name, from its start, unless it is an ancestor of a shard it
   * names: the query read that one to its end and dropped it.
   */
  def startingAfter(
      positions: Map[ShardKey, ShardPosition],
      listed: Map[ShardKey, ShardInfo]): Map[ShardKey, ShardPosition] = {
    val read = ancestors(positions.keySet, listed)
    positions ++ listed.keys.filterNot(positions.contains).map { key =>
      key -> (if (read.contains(key)) ShardPosition.ShardEnd else ShardPosition.TrimHorizon)
    }
  }

  /** The listed shards that `shards` descend from, through splits and merges. */
  def ancestors(shards: Set[ShardKey], listed: Map[ShardKey, ShardInfo]): Set[ShardKey] = {
    def parents(key: ShardKey): Seq[ShardKey] = listed.get(key).toSeq.flatMap(_.parents).map(ShardKey(key.stream, _))
    var found = Set.empty[ShardKey]
    var next = shards.toSeq.flatMap(parents)
    while (next.nonEmpty) {
      val fresh = next.filterNot(found.contains).distinct
      found ++= fresh
      next = fresh.flatMap(parents)
    }
    found
  }

  /** How many generations of listed shards came before `key`. */
  def depth(key: ShardKey, listed: Map[ShardKey, ShardInfo]): Int =
    listed.get(key).toSeq.flatMap(_.parents).map(p => 1 + depth(ShardKey(key.stream, p), listed)).foldLeft(0)(math.max)

  /** The positions carried forward to the next batch, given the shards Kinesis lists now. */
  def track(positions: Map[ShardKey, ShardPosition], listed: Map[ShardKey, ShardInfo]): Map[ShardKey, ShardPosition] = {
    val kept = positions.filter { case (key, position) => position != ShardPosition.ShardEnd || listed.contains(key) }
    val added = listed.keys.filterNot(positions.contains).map(_ -> ShardPosition.TrimHorizon)
    kept ++ added
  }

  /**
   * Whether a shard Kinesis does not list could be one that a reshard closed and retention then removed,
   * rather than one the stream never had (the checkpoint is another stream's, or was edited). A child keeps
   * naming its parents after they are gone, and Kinesis numbers shards in the order it creates them
   * (`shardId-000000000007`), so a removed shard is a listed shard's parent, or older than such a parent
   * that is itself gone.
   */
  def couldHaveExpired(key: ShardKey, listed: Map[ShardKey, ShardInfo]): Boolean = {
    val parents = listed.collect { case (k, info) if k.stream == key.stream => info.parents }.flatten.toSet
    val goneParents = parents.filterNot(p => listed.contains(ShardKey(key.stream, p)))
    parents.contains(key.shardId) ||
    numberOf(key.shardId).exists(n => goneParents.flatMap(numberOf).exists(n < _))
  }

  private val Numbered = "shardId-(\\d{1,18})".r

  private def numberOf(shardId: String): Option[Long] = shardId match {
    case Numbered(n) => Some(n.toLong)
    case _ => None
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
