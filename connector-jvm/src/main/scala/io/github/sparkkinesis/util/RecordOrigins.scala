// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.util

import org.apache.spark.TaskContext

/**
 * Where the record a task is working on was read, for the errors of functions applied to its rows:
 * `from_glue_registry` names a record it cannot decode by its stream, shard and sequence number. A Kinesis
 * reader registers itself on its task's thread when it is made; a function asks on the same thread, with
 * the bytes it failed on, and the reader answers if they are the `data` of the row it handed on last. So
 * the answer is right wherever rows are evaluated as they are read (Spark's usual pipeline), and absent
 * where they are not (after a shuffle, a sort or a limit the bytes are another row's): the function then
 * names the record by its size. It costs a reader nothing per record.
 *
 * Thread-safe: each thread sees only its own reader.
 */
private[sparkkinesis] object RecordOrigins {

  /** A reader of records. */
  trait Reader {

    /** Where the record it handed on last was read (a phrase), if `data` is that record's data. */
    def originOf(data: Array[Byte]): Option[String]
  }

  private val current = new ThreadLocal[Reader]

  /** Makes `reader` this thread's, until it is unregistered or its task (if any) ends. */
  def register(reader: Reader): Unit = {
    current.set(reader)
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => unregister(reader)))
  }

  /** Forgets `reader`, if it is this thread's. */
  def unregister(reader: Reader): Unit = if (current.get() eq reader) current.remove()

  /** Where the record of `data` was read, if this thread's reader handed it on last. */
  def of(data: Array[Byte]): Option[String] = Option(current.get()).flatMap(_.originOf(data))
}
