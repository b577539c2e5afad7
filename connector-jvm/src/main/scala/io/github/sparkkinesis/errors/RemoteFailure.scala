// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

/**
 * A failure, copied into plain exceptions that always serialize, for a cause that crosses from an executor
 * to the driver inside the connector's own results: the originals (the AWS SDK's, Netty's) may hold what
 * does not serialize. Each copy keeps its original's class name, message and stack trace.
 */
private[sparkkinesis] final class RemoteFailure private (val className: String, message: String, cause: Throwable)
    extends RuntimeException(message, cause) {
  override def toString: String = Option(message).fold(className)(m => s"$className: $m")
}

private[sparkkinesis] object RemoteFailure {

  /** `t` and its causes, copied; at most [[MaxDepth]] of them. */
  def of(t: Throwable): Throwable = copy(t, MaxDepth)

  val MaxDepth = 8

  private def copy(t: Throwable, depth: Int): Throwable =
    if (t == null || depth == 0) null
    else {
      val next = if (t.getCause eq t) null else t.getCause
      val copied = new RemoteFailure(t.getClass.getName, t.getMessage, copy(next, depth - 1))
      copied.setStackTrace(t.getStackTrace)
      copied
    }
}
