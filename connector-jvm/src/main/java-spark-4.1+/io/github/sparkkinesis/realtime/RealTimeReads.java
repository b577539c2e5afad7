// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.realtime;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.streaming.SupportsRealTimeRead;

/**
 * Both forms of {@code nextWithTimeout}, so that one class file serves every Spark line with real-time mode:
 * Spark 4.1 calls the one-argument form (abstract there), 4.2.0 the two-argument form (abstract there, the
 * other gone), and later lines the two-argument form, with both default. Written in Java because Java lets a
 * method override without saying so: Scala would need {@code override} on a line where a form is a default
 * and refuse it on a line where the form does not exist.
 */
abstract class RealTimeReads implements SupportsRealTimeRead<InternalRow> {

  /**
   * The next record, waiting for one until {@code deadlineMs} (epoch milliseconds) at most; a status without
   * a record ends this task's reading for the batch.
   */
  public abstract SupportsRealTimeRead.RecordStatus nextBefore(long deadlineMs);

  /** Spark 4.1: {@code timeoutMs} from now. */
  public SupportsRealTimeRead.RecordStatus nextWithTimeout(Long timeoutMs) {
    return nextBefore(System.currentTimeMillis() + timeoutMs);
  }

  /** Spark 4.2 and later: {@code timeoutMs} from {@code startTimeMs}, the engine's clock when it asked. */
  public SupportsRealTimeRead.RecordStatus nextWithTimeout(Long startTimeMs, Long timeoutMs) {
    return nextBefore(startTimeMs + timeoutMs);
  }
}
