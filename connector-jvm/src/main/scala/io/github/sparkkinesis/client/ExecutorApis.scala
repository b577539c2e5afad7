// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import io.github.sparkkinesis.aws.AwsConfig

/**
 * How a task on an executor reaches Kinesis to read, whatever its mode (a prefetch task's stretch read again,
 * a real-time task). A seam of its own, apart from how a mode keeps what it reads, so that the modes share it
 * and the tests hand every mode's tasks one fake client. Travels to the executors with the reader factories.
 */
private[sparkkinesis] trait ExecutorApis extends Serializable {

  /** The Kinesis client of this JVM for `aws`, shared by its tasks. */
  def apiFor(aws: AwsConfig): KinesisApi
}

private[sparkkinesis] object ExecutorApis {

  /** The reading client each JVM keeps per settings ([[SharedKinesisApis]]). */
  val Shared: ExecutorApis = SharedReadingApis

  private object SharedReadingApis extends ExecutorApis {
    override def apiFor(aws: AwsConfig): KinesisApi = SharedKinesisApis.get(aws, ClientUse.Reading)
  }
}
