// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.UUID

import scala.collection.mutable

/**
 * The schema versions this JVM has asked the registry for, by id, and a client per registry configuration:
 * a version never changes once registered, so each is asked for once per JVM (an executor, or the driver)
 * however many records, tasks and queries name it. Bounded: past [[MaxVersions]] the version used least
 * recently is forgotten. Thread-safe; a failed lookup is not remembered, so a task retried asks again.
 */
private[sparkkinesis] object SchemaVersions {

  val MaxVersions: Int = 10000

  @volatile private var makeClient: GlueRegistryConfig => GlueRegistryApi = GlueRegistryClient.create

  private val clients = mutable.Map.empty[GlueRegistryConfig, GlueRegistryApi]

  private val versions = new java.util.LinkedHashMap[(GlueRegistryConfig, UUID), SchemaVersion](64, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[(GlueRegistryConfig, UUID), SchemaVersion]): Boolean =
      size() > MaxVersions
  }

  /** The version of id `id`, from this JVM's memory or else from the registry. */
  def byId(config: GlueRegistryConfig, id: UUID): SchemaVersion = {
    val known = versions.synchronized(Option(versions.get((config, id))))
    known.getOrElse {
      // Asked outside the lock: a slow registry holds up only the tasks that need this version.
      val asked = client(config).schemaVersion(id)
      versions.synchronized(versions.put((config, id), asked))
      asked
    }
  }

  /** The client of a registry configuration, made on first use and kept for the JVM's life. */
  def client(config: GlueRegistryConfig): GlueRegistryApi = clients.synchronized {
    clients.getOrElseUpdate(config, makeClient(config))
  }

  /** Tests: clients are made by `make` from now on, and nothing asked before is remembered. */
  private[sparkkinesis] def useClients(make: GlueRegistryConfig => GlueRegistryApi): Unit = {
    clients.synchronized {
      clients.values.foreach(_.close())
      clients.clear()
      makeClient = make
    }
    versions.synchronized(versions.clear())
  }
}
