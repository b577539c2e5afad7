// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.util.UUID

import io.github.sparkkinesis.aws.AwsConfig
import io.github.sparkkinesis.client.{ExecutorApis, RateLimitErrors}
import io.github.sparkkinesis.config.{PrefetchConfig, ReadConfig}
import io.github.sparkkinesis.shims.SparkShims
import io.github.sparkkinesis.util.SystemClock
import org.apache.spark.{SparkContext, SparkThrowable, TaskContext}
import org.apache.spark.sparkkinesis.SparkBlocks
import org.apache.spark.util.LongAccumulator

/**
 * Prefetch tasks as Spark jobs: one partition per task, run on the executors, each task storing its blocks
 * in its executor's BlockManager and returning what it read. Jobs carry a group and a tag of their own, so
 * that only the source cancels them, when it stops (Spark's stop of a query cancels the query's group: it
 * would kill the prefetch tasks, each logged as a warning), and a description that names the source in the
 * Spark UI. Each task adds AWS' throttling answers to its calls to the query's `rateLimitErrors`.
 */
private[sparkkinesis] final class SparkPrefetchJobs(
    sc: SparkContext,
    config: PrefetchConfig,
    reading: ReadConfig,
    aws: AwsConfig,
    description: String,
    rateLimitErrors: LongAccumulator)
    extends PrefetchJobs {

  private val tag = s"kinesis-prefetch-${UUID.randomUUID()}"
  @volatile private var prepared = false

  /** The cores of the application's executors as Spark counts them now (its default parallelism). */
  override def slots: Int = sc.defaultParallelism

  override def run(tasks: Seq[PrefetchTaskSpec]): Seq[ShardFetchOutcome] = {
    prepareThread()
    sc.setJobDescription(s"Kinesis prefetch for $description: ${tasks.map(_.shards.size).sum} shards")
    val rdd = sc.makeRDD(tasks.map(t => (t, t.preferredLocations)))
    sc.runJob(rdd, SparkPrefetchJobs.taskBody(config, reading, aws, rateLimitErrors)).toSeq.flatMap(TaskResults.decode)
  }

  /**
   * The prefetch thread inherited the query thread's job properties. Its jobs keep the query's scheduler
   * pool, get a group named after the query's (`<query's group>/kinesis-prefetch`) and their own tag, and do
   * not claim to belong to a SQL execution. Cancelling them does not interrupt their threads: a task sees
   * it is cancelled between two calls (within [[io.github.sparkkinesis.reading.FetchLoop.PollMs]]), so no Kinesis call is cut off
   * mid-request.
   */
  private def prepareThread(): Unit = if (!prepared) {
    val queryGroup = Option(sc.getLocalProperty(SparkPrefetchJobs.JobGroupProperty))
    sc.setLocalProperty("spark.sql.execution.id", null)
    sc.setLocalProperty("spark.sql.execution.root.id", null)
    sc.setJobGroup(
      queryGroup.fold(tag)(_ + "/kinesis-prefetch"),
      s"Kinesis prefetch for $description",
      interruptOnCancel = false)
    sc.addJobTag(tag)
    prepared = true
  }

  override def cancel(): Unit = sc.cancelJobsWithTag(tag)

  override def shutDown: Boolean = sc.isStopped

  override def wasCancelled(failure: Throwable): Boolean = failure match {
    case e: SparkThrowable => SparkShims.errorCondition(e).contains("SPARK_JOB_CANCELLED")
    case _ => false
  }
}

private[sparkkinesis] object SparkPrefetchJobs {

  /** The local property holding a thread's job group (SparkContext.SPARK_JOB_GROUP_ID). */
  private val JobGroupProperty = "spark.jobGroup.id"

  /**
   * What a task runs: a function of the settings alone, so that no driver-side object travels with it (but
   * the query's accumulator, which Spark sends as an empty copy and merges back). It returns its outcomes as
   * bytes ([[TaskResults]]), whichever class loader defined the classes here.
   */
  private def taskBody(
      config: PrefetchConfig,
      reading: ReadConfig,
      aws: AwsConfig,
      rateLimitErrors: LongAccumulator): (TaskContext, Iterator[PrefetchTaskSpec]) => Array[Byte] =
    (context, specs) => {
      val here = Some(SparkBlocks.executorLocation)
      val throttled = new RateLimitErrors
      val api = ExecutorApis.Shared.apiFor(aws).counting(throttled)
      val outcomes = specs.toList.flatMap { spec =>
        PrefetchTask
          .run(
            spec,
            config,
            reading,
            api,
            SparkBlockStore,
            SystemClock,
            context.taskAttemptId(),
            () => context.isInterrupted())
          .map(o => o.copy(cursor = o.cursor.copy(executor = here)))
      }
      rateLimitErrors.add(throttled.take())
      TaskResults.encode(outcomes)
    }
}
