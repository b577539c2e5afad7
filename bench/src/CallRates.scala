// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import io.github.sparkkinesis.bench.synthetic.SyntheticKinesis

/**
 * The calls of some operations made to the synthetic Kinesis, in all and in the busiest second (counted once a
 * second, from when this is made to [[stop]]), and how many of them it turned down for their rate.
 */
private[bench] final class CallRates(kinesis: SyntheticKinesis, operations: Seq[String]) {
  import CallRates.Rate

  private def counts(): Map[String, Long] = {
    val all = kinesis.callCounts
    operations.flatMap(op => Seq(op, s"$op throttled")).map(k => k -> all.getOrElse(k, 0L)).toMap
  }

  private val first = counts()
  @volatile private var running = true
  private var busiest = Map.empty[String, Long].withDefaultValue(0L) // guarded by the sampler until it ends
  private val sampler = new Thread(
    () => {
      var before = first
      while (running) {
        Thread.sleep(1000)
        val now = counts()
        operations.foreach(op => busiest += op -> math.max(busiest(op), now(op) - before(op)))
        before = now
      }
    },
    "call-rates-sampler"
  )
  sampler.setDaemon(true)
  sampler.start()

  /** Stops counting (again: no harm); each operation's calls. */
  def stop(): Seq[Rate] = {
    running = false
    sampler.join()
    val last = counts()
    operations.map { op =>
      Rate(op, last(op) - first(op), busiest(op), last(s"$op throttled") - first(s"$op throttled"))
    }
  }
}

private[bench] object CallRates {

  /** An operation's calls: made in all, made in the busiest second, and of all those turned down for their rate. */
  final case class Rate(operation: String, calls: Long, busiestSecond: Long, throttled: Long)
}
