// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

import java.util.concurrent.{CompletableFuture, ConcurrentHashMap, ExecutionException}
import java.util.UUID

import scala.collection.mutable
import scala.util.control.NonFatal

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

  /** Lookups under way, so that tasks asking for one version at once wait for one call. */
  private val asking = new ConcurrentHashMap[(GlueRegistryConfig, UUID), CompletableFuture[SchemaVersion]]()

  /**
   * The version of id `id`, from this JVM's memory or else from the registry: one call, whichever tasks ask
   * at once (they wait for it, and share its failure).
   */
  def byId(config: GlueRegistryConfig, id: UUID): SchemaVersion = {
    val key = (config, id)
    val known = versions.synchronized(Option(versions.get(key)))
    known.getOrElse {
      val mine = new CompletableFuture[SchemaVersion]()
      val running = asking.putIfAbsent(key, mine)
      if (running != null) awaited(running)
      else
        try {
          // Another task may have finished asking between the look and the putIfAbsent: its answer stands.
          val asked = versions.synchronized(Option(versions.get(key))).getOrElse {
            // Asked outside the lock: a slow registry holds up only the tasks that need this version.
            client(config).schemaVersion(id)
          }
          versions.synchronized(versions.put(key, asked))
          mine.complete(asked)
          asked
        } catch {
          case NonFatal(e) =>
            mine.completeExceptionally(e)
            throw e
        } finally asking.remove(key, mine)
    }
  }

  private def awaited(running: CompletableFuture[SchemaVersion]): SchemaVersion =
    try running.get()
    catch { case e: ExecutionException if e.getCause != null => throw e.getCause }

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
