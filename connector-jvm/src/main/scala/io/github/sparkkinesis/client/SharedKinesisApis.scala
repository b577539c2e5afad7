package io.github.sparkkinesis.client

import java.util.concurrent.ConcurrentHashMap

import io.github.sparkkinesis.config.AwsConfig

/**
 * One [[KinesisApi]] per distinct [[AwsConfig]] per JVM, shared by the tasks of an executor so that each
 * task does not pay for a new connection pool. Thread-safe. The clients live as long as the JVM.
 */
object SharedKinesisApis {
  private val apis = new ConcurrentHashMap[AwsConfig, KinesisApi]()

  def get(aws: AwsConfig): KinesisApi = apis.computeIfAbsent(aws, a => KinesisClientFactory.create(a))

  /** Tests: the client this JVM's tasks use for `aws` from now on, e.g. one that injects faults. */
  private[sparkkinesis] def replace(aws: AwsConfig)(wrap: KinesisApi => KinesisApi): Unit =
    apis.put(aws, wrap(get(aws)))
}
