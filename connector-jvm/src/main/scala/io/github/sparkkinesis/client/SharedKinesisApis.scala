// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.util.concurrent.ConcurrentHashMap

import io.github.sparkkinesis.aws.AwsConfig

/**
 * One [[KinesisApi]] per distinct [[AwsConfig]] and [[ClientUse]] per JVM, shared by the tasks of an executor so that each
 * task does not pay for a new connection pool. Thread-safe. The clients live as long as the JVM.
 */
private[sparkkinesis] object SharedKinesisApis {
  private val apis = new ConcurrentHashMap[(AwsConfig, ClientUse), KinesisApi]()

  def get(aws: AwsConfig, use: ClientUse): KinesisApi =
    apis.computeIfAbsent((aws, use), key => KinesisClientFactory.create(key._1, key._2))

  /** Tests: the client this JVM's tasks use for `aws` and `use` from now on, e.g. one that injects faults. */
  def replace(aws: AwsConfig, use: ClientUse)(wrap: KinesisApi => KinesisApi): Unit =
    apis.put((aws, use), wrap(get(aws, use)))
}
