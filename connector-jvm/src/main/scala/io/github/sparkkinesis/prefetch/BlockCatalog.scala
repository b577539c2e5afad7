// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.concurrent.TimeUnit

import scala.collection.mutable

import io.github.sparkkinesis.config.TriggerLimits
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}
import io.github.sparkkinesis.reading.{FetchCursor, ShardFetchSpec}

/**
 * The driver's record of what has been prefetched and not yet committed: per shard, the stretches read
 * (in order, each starting where the previous ended) and where the next prefetch starts. The prefetcher
 * adds what its tasks read; batches are planned from it; commits release it. Thread-safe: the prefetcher's
 * thread and the query's thread share it, and waiters are woken on every change.
 *
 * Every change that can move a batch's plan counts in [[version]], so that the query's thread, which asks
 * for an offset about every 10 ms while nothing arrives, can tell that nothing did without looking at
 * each shard. For the same reason the figures the query's metrics report ([[gauges]]), which Spark asks
 * for at every trigger too, are worked out once after each change.
 *
 * @param maxRecordsPerFetch the records a shard's first prefetch call asks for (the option of that name)
 */
private[sparkkinesis] final class BlockCatalog(maxRecordsPerFetch: Int) {
  import BlockCatalog._

  private val shards = mutable.Map.empty[ShardKey, ShardState]
  private var lastOrder = 0L
  private var throttled = 0L
  private var corrupt = 0L
  private var fatal = Option.empty[Throwable]
  private var changes = 0L
  private var wakeUps = 0L // every change, planned or not: what awaitChange waits for
  private var gaugesNow = Option.empty[Gauges] // worked out when asked, forgotten when what they count changes

  /**
   * Aligns the catalog with the shards a batch may read and where they stand: new shards start there,
   * stretches already read are dropped, and a shard whose prefetched data does not continue from its
   * position (the query restarted elsewhere, or stretches were lost) starts over from it. Shards not named
   * are forgotten. `closed` names the shards Kinesis lists as closed. Returns the blocks no longer needed.
   */
  def sync(positions: Map[ShardKey, ShardPosition], closed: Set[ShardKey] = Set.empty): Seq[BlockRef] = synchronized {
    val gone = shards.keySet.diff(positions.keySet).toSeq
    val freed = gone.flatMap(k => shards.remove(k).toSeq.flatMap(_.segments))
    var changed = gone.nonEmpty
    val released = positions.toSeq.flatMap { case (key, position) =>
      shards.get(key) match {
        case None =>
          shards(key) = ShardState.startingAt(position, maxRecordsPerFetch)
          changed = true
          Nil
        case Some(state) =>
          val (read, rest) = state.segments.span(_.endsAtOrBefore(position))
          val continues = rest.headOption.fold(state.frontier == position)(_.from == position)
          changed ||= read.nonEmpty || !continues
          if (continues) {
            state.segments = rest
            read
          } else {
            shards(key) = ShardState.startingAt(position, maxRecordsPerFetch)
            state.segments
          }
      }
    }
    positions.keys.foreach { key =>
      val state = shards(key)
      changed ||= state.closed != closed.contains(key)
      state.closed = closed.contains(key)
    }
    if (changed) this.changed()
    unreferenced(freed ++ released)
  }

  /** Drops the stretches a committed batch read; returns the blocks no longer needed. */
  def release(committed: Map[ShardKey, ShardPosition]): Seq[BlockRef] = synchronized {
    val released = committed.toSeq.flatMap { case (key, position) =>
      shards.get(key).toSeq.flatMap { state =>
        val (read, rest) = state.segments.span(_.endsAtOrBefore(position))
        state.segments = rest
        read
      }
    }
    if (released.nonEmpty) changed()
    unreferenced(released)
  }

  /** Forgets everything. */
  def clear(): Unit = synchronized {
    shards.clear()
    changed()
  }

  /** Every block the catalog holds. */
  def blocks: Set[BlockRef] = synchronized(shards.values.flatMap(_.segments.flatMap(_.block)).toSet)

  /** Blocks of these segments that no remaining segment refers to (a cut leaves two on one block). */
  private def unreferenced(dropped: Seq[Segment]): Seq[BlockRef] = {
    val kept = blocks
    dropped.flatMap(_.block).distinct.filterNot(kept.contains)
  }

  /** The shards the next prefetch job reads, and from where. */
  def toFetch: Seq[ShardFetchSpec] = synchronized {
    shards.toSeq
      .collect {
        case (key, s) if s.frontier != ShardPosition.ShardEnd && !s.cutoffReached =>
          ShardFetchSpec(key, s.frontier, s.cursor, s.closed)
      }
      .sortBy(s => (s.shard.stream, s.shard.shardId))
  }

  /**
   * Takes in what a prefetch job read. A shard's data is accepted only if the shard is still tracked and
   * still continues from where the task started; anything else is returned, to be removed.
   */
  def accept(outcomes: Seq[ShardFetchOutcome]): Seq[BlockRef] = synchronized {
    var planned = false
    val rejected = outcomes.flatMap { o =>
      shards.get(o.shard) match {
        case Some(state) if state.frontier == o.from =>
          val data = o.data.map(_.copy(order = nextOrder()))
          val end =
            if (o.reachedEnd)
              Some(Segment(o.shard, data.fold(o.from)(_.to), ShardPosition.ShardEnd, 0, 0, None, nextOrder()))
            else None
          val added = data.toSeq ++ end
          state.segments = state.segments ++ added
          added.lastOption.foreach(s => state.frontier = s.to)
          state.cursor = o.cursor
          o.millisBehindLatest.foreach(ms => state.millisBehind = Some(ms))
          planned ||= added.nonEmpty || (o.cutoffReached && !state.cutoffReached)
          state.cutoffReached ||= o.cutoffReached
          state.failures = if (o.failure.isEmpty) 0 else state.failures + 1
          state.answered ||= o.millisBehindLatest.isDefined || o.failure.isDefined || o.reachedEnd || o.cutoffReached
          throttled += o.throttledCalls
          corrupt += o.corruptAggregates
          Nil
        case _ => o.data.flatMap(_.block).toSeq
      }
    }
    if (planned) changes += 1
    gaugesNow = None
    wakeUp()
    rejected
  }

  /**
   * Counts the changes that can move a batch's plan: shards synced to new positions, stretches added,
   * released or cut, a shard reaching the AvailableNow cut-off, a failure. Equal counts mean that
   * [[plan]] and [[allCaughtUpToCutoff]] answer as they did.
   */
  def version: Long = synchronized(changes)

  /** A change that can move a plan: counted, and waiters woken. */
  private def changed(): Unit = {
    changes += 1
    gaugesNow = None
    wakeUp()
  }

  private def wakeUp(): Unit = {
    wakeUps += 1
    notifyAll()
  }

  private def nextOrder(): Long = {
    lastOrder += 1
    lastOrder
  }

  /**
   * Whether Kinesis has answered a prefetch task for each of the shards yet: records or none, with the lag,
   * or a failure, or the shard's end. (A task may end before its first call to a shard.)
   */
  def answered(keys: Set[ShardKey]): Boolean = synchronized(keys.forall(k => shards.get(k).forall(_.answered)))

  /** Consecutive failed prefetches of a shard. */
  def failures(key: ShardKey): Int = synchronized(shards.get(key).fold(0)(_.failures))

  /**
   * How far a batch starting at `start` can read: for every shard, the end of its prefetched stretches,
   * oldest first across shards, until `limits` are reached. When a stretch crosses a limit, the plan stops
   * there and names it with the records and bytes still allowed; the caller finds the record to
   * cut at (which takes reading the block) and calls [[cut]].
   */
  def plan(start: Map[ShardKey, ShardPosition], limits: TriggerLimits): Plan = synchronized {
    val candidates = start.toSeq
      .flatMap { case (key, position) => shards.get(key).toSeq.flatMap(s => continuing(s.segments, position)) }
      .sortBy(s => (s.order, s.shard.stream, s.shard.shardId))
    var records = limits.maxRecords.getOrElse(Long.MaxValue)
    var bytes = limits.maxBytes.getOrElse(Long.MaxValue)
    val ends = mutable.Map.empty[ShardKey, ShardPosition]
    val it = candidates.iterator
    var crossing = Option.empty[Crossing]
    while (crossing.isEmpty && it.hasNext) {
      val s = it.next()
      if (s.records <= records && s.bytes <= bytes) {
        ends(s.shard) = s.to
        records -= s.records
        bytes -= s.bytes
      } else {
        crossing = Some(Crossing(s, records, bytes, anyTaken = ends.nonEmpty))
      }
    }
    Plan(ends.toMap, crossing)
  }

  /**
   * Splits a stretch in two after the record at `at`, the first part holding `records` records of `bytes`
   * bytes; both keep the block. Returns the first part's end.
   */
  def cut(segment: Segment, at: ShardPosition.After, records: Long, bytes: Long): ShardPosition = synchronized {
    shards.get(segment.shard).foreach { state =>
      state.segments = state.segments.flatMap {
        case s if s == segment =>
          Seq(
            s.copy(to = at, records = records, bytes = bytes),
            s.copy(from = at, records = s.records - records, bytes = s.bytes - bytes))
        case s => Seq(s)
      }
    }
    changed()
    at
  }

  /** The stretches that make up the range (from, to] of a shard, if the catalog holds all of it. */
  def covering(key: ShardKey, from: ShardPosition, to: ShardPosition): Option[Seq[Segment]] = synchronized {
    shards.get(key).flatMap { state =>
      val parts = continuing(state.segments, from).takeWhile(s => Segment.atOrBefore(s.to, to))
      Some(parts).filter(_.lastOption.exists(_.to == to))
    }
  }

  /** What the query's metrics report of the catalog, as it stands. */
  def gauges: Gauges = synchronized {
    gaugesNow.getOrElse {
      val segments = shards.values.flatMap(_.segments)
      val now = Gauges(
        segments.map(_.bytes).sum,
        segments.map(_.records).sum,
        segments.flatMap(_.block).toSet.size,
        shards.collect { case (k, s) if s.millisBehind.isDefined => k -> s.millisBehind.get }.toMap,
        throttled,
        corrupt
      )
      gaugesNow = Some(now)
      now
    }
  }

  /** Bytes prefetched and not yet committed: what `fetchBufferSize` bounds. */
  def bufferedBytes: Long = gauges.bufferedBytes

  /** Whether every shard has nothing left before the AvailableNow cut-off beyond what is prefetched. */
  def allCaughtUpToCutoff: Boolean =
    synchronized(shards.values.forall(s => s.cutoffReached || s.frontier == ShardPosition.ShardEnd))

  /** A failure that must stop the query, raised by the prefetcher and thrown by the query's thread. */
  def fail(e: Throwable): Unit = synchronized {
    if (fatal.isEmpty) fatal = Some(e)
    changed()
  }

  def failure: Option[Throwable] = synchronized(fatal)

  /** Where the catalog's changes stand, for [[awaitChange]]: taken before looking at what the catalog holds. */
  def mark: Long = synchronized(wakeUps)

  /**
   * Waits until something changes after `since` (a [[mark]]) or `timeoutMs` passes: a change between the
   * mark and the wait, which the caller's look at the catalog may have missed, ends it at once.
   */
  def awaitChange(since: Long, timeoutMs: Long): Unit = synchronized {
    val deadline = System.nanoTime() + math.max(1, timeoutMs) * 1000000L
    var left = deadline - System.nanoTime()
    while (wakeUps == since && left > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left)
      left = deadline - System.nanoTime()
    }
  }

  /** The stretches after `position`, if the first begins exactly there (stretches begin where batches end). */
  private def continuing(segments: Vector[Segment], position: ShardPosition): Vector[Segment] = {
    val rest = segments.dropWhile(_.endsAtOrBefore(position))
    if (rest.headOption.exists(_.from == position)) rest else Vector.empty
  }
}

private[sparkkinesis] object BlockCatalog {

  /**
   * What the query's metrics report of the catalog: the bytes prefetched and not yet committed (what
   * `fetchBufferSize` bounds), the records they are and the blocks that hold them, per shard MillisBehindLatest after its last prefetch call, the throttled
   * calls and the records that looked like KPL aggregated records but were not (passed on whole), since
   * the query began.
   */
  final case class Gauges(
      bufferedBytes: Long,
      bufferedRecords: Long,
      blocks: Int,
      millisBehindLatest: Map[ShardKey, Long],
      throttledFetches: Long,
      corruptAggregates: Long)

  private final class ShardState(
      var frontier: ShardPosition,
      var cursor: FetchCursor,
      var segments: Vector[Segment],
      var millisBehind: Option[Long],
      var cutoffReached: Boolean,
      var failures: Int,
      var closed: Boolean = false,
      var answered: Boolean = false)

  private object ShardState {
    def startingAt(position: ShardPosition, maxRecordsPerFetch: Int): ShardState =
      new ShardState(position, FetchCursor(None, 0L, maxRecordsPerFetch), Vector.empty, None, false, 0)
  }

  /**
   * A batch's end per shard, and the stretch where a limit was reached, if one was: the batch may take
   * `records` records and `bytes` bytes of it (at least one record if `anyTaken` is false, so that a
   * batch always moves).
   */
  final case class Plan(ends: Map[ShardKey, ShardPosition], crossing: Option[Crossing])

  final case class Crossing(segment: Segment, records: Long, bytes: Long, anyTaken: Boolean)
}
