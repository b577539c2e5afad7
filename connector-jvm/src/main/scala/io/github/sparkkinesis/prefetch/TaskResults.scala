// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.io.{
  ByteArrayInputStream,
  ByteArrayOutputStream,
  InputStream,
  ObjectInputStream,
  ObjectOutputStream,
  ObjectStreamClass
}

/**
 * What a prefetch task hands the driver, as bytes. Spark deserializes a task's result with a class loader of
 * its choosing, and with "user classpath first" settings (`spark.{driver,executor}.userClassPathFirst`) or
 * jars added at run time the connector's classes may be defined by two loaders in one JVM: an outcome built
 * from the other loader's classes then fails the driver's cast (`ShardFetchOutcome cannot be cast to
 * ShardFetchOutcome`). Bytes are the same to every loader; the driver turns them back into outcomes with
 * the loader that defined its own classes. Executor (encode) and driver (decode); stateless.
 */
private[sparkkinesis] object TaskResults {

  def encode(outcomes: Seq[ShardFetchOutcome]): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    try out.writeObject(outcomes.toVector)
    finally out.close()
    bytes.toByteArray
  }

  def decode(bytes: Array[Byte]): Seq[ShardFetchOutcome] = {
    val in = new OwnClassesInputStream(new ByteArrayInputStream(bytes))
    try in.readObject().asInstanceOf[Vector[ShardFetchOutcome]]
    finally in.close()
  }

  /** Resolves classes with the loader of the connector's own classes, which delegates Scala's and Java's. */
  private final class OwnClassesInputStream(in: InputStream) extends ObjectInputStream(in) {
    private val loader = classOf[ShardFetchOutcome].getClassLoader

    override def resolveClass(desc: ObjectStreamClass): Class[_] =
      try Class.forName(desc.getName, false, loader)
      catch { case _: ClassNotFoundException => super.resolveClass(desc) }
  }
}
