// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench.soak

/** A fault the soak makes happen. */
private[soak] sealed trait Fault {
  def name: String
}

private[soak] object Fault {

  /** An executor JVM killed (SIGKILL), with the prefetched blocks and subscriptions it holds. */
  case object KillExecutor extends Fault { val name = "executor killed" }

  /** The driver killed with its executors, and the application started again on its checkpoints. */
  case object RestartDriver extends Fault { val name = "driver killed, restarted" }

  /** Kinesis unreachable for `seconds`: every call, reads and writes. */
  final case class Outage(seconds: Int) extends Fault { val name = s"Kinesis outage ${seconds}s" }

  /** An open shard split in two. */
  case object Split extends Fault { val name = "shard split" }

  /** Two adjacent open shards merged into one. */
  case object Merge extends Fault { val name = "shards merged" }

  /** The enhanced fan-out query's consumer deregistered under it. */
  case object DeregisterConsumer extends Fault { val name = "consumer deregistered" }
}

/**
 * When each fault happens in a soak of `seconds`: an executor killed every twelfth of the run (every five
 * minutes in an hour, at least 30 s apart), a Kinesis outage of a minute (a tenth of a short run) at 30 %, a
 * split at 45 % and a merge at 55 %, the driver killed and restarted at 70 %, and, with an enhanced fan-out
 * query, its consumer deregistered at 80 %. An executor is not killed within 20 s (a thirtieth of a short run)
 * of another fault, so that each fault's effect shows on its own in the charts. Only the faults `runs`
 * accepts are scheduled.
 */
private[soak] object SoakSchedule {

  def of(seconds: Int, runs: Fault => Boolean): Seq[(Int, Fault)] = {
    val outage = math.max(5, math.min(60, seconds / 10))
    val others = Seq(
      (seconds * 30 / 100) -> Fault.Outage(outage),
      (seconds * 45 / 100) -> Fault.Split,
      (seconds * 55 / 100) -> Fault.Merge,
      (seconds * 70 / 100) -> Fault.RestartDriver,
      (seconds * 80 / 100) -> Fault.DeregisterConsumer
    ).filter { case (_, f) => runs(f) }
    val period = math.max(30, seconds / 12)
    val margin = math.min(20, seconds / 30)
    val busy = others
      .flatMap { case (at, fault) =>
        val end = fault match {
          case Fault.Outage(s) => at + s
          case _ => at
        }
        Seq(at - margin, end + margin)
      }
      .grouped(2)
      .map { case Seq(from, until) => (from, until) }
      .toSeq
    val kills = (period until seconds by period).filterNot(t => busy.exists { case (f, u) => t >= f && t <= u })
    val killed = if (runs(Fault.KillExecutor)) kills.map(_ -> Fault.KillExecutor) else Seq.empty
    (killed ++ others).sortBy(_._1)
  }
}
