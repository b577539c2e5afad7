// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

/** Runs prefetch tasks somewhere and returns what they did: Spark jobs in a query, in-process in unit tests. */
private[sparkkinesis] trait PrefetchJobs {

  /** How many tasks can run at once: the application's cores. */
  def slots: Int

  /** Runs the tasks, one per spec, and waits for them. */
  def run(tasks: Seq[PrefetchTaskSpec]): Seq[ShardFetchOutcome]

  /** Cancels a running job; called from another thread when the query stops. */
  def cancel(): Unit

  /** Whether a failure of [[run]] means the job was cancelled rather than failed. */
  def wasCancelled(failure: Throwable): Boolean

  /** Whether what runs the jobs has shut down for good, as Spark does when its driver is told to exit. */
  def shutDown: Boolean
}
