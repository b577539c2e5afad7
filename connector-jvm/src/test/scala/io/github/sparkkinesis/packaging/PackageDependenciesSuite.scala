// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.packaging

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

/**
 * The connector's packages say what they hold, and depend on one another one way only: a package never
 * reaches, through others, back to itself, so each can be read knowing only those below it. Read from the
 * sources of every Spark line's folders.
 */
class PackageDependenciesSuite extends AnyFunSuite {

  private val Declared = """(?m)^package io\.github\.sparkkinesis(?:\.(\w+))?\s*;?\s*$""".r
  private val Used = """io\.github\.sparkkinesis\.(\w+)\.[A-Z{_]""".r
  private val UsedAtTop = """io\.github\.sparkkinesis\.[A-Z]""".r

  /** Each package (`(root)` for the top one), with the packages of the connector it uses. */
  private lazy val uses: Map[String, Set[String]] = {
    val main = Paths.get(sys.props("kinesis.test.root"), "connector-jvm", "src", "main")
    val sources = Files.walk(main).iterator().asScala.filter { p =>
      val name = p.getFileName.toString
      Files.isRegularFile(p) && (name.endsWith(".scala") || name.endsWith(".java"))
    }
    sources.toSeq
      .flatMap { path =>
        val text = new String(Files.readAllBytes(path), UTF_8)
        Declared.findFirstMatchIn(text).map { m =>
          val own = Option(m.group(1)).getOrElse("(root)")
          val top = if (UsedAtTop.findFirstIn(text).isDefined) Set("(root)") else Set.empty[String]
          own -> (Used.findAllMatchIn(text).map(_.group(1)).toSet ++ top - own)
        }
      }
      .groupBy(_._1)
      .map { case (own, found) => own -> found.flatMap(_._2).toSet }
  }

  private def reachable(from: String): Set[String] = {
    var found = Set.empty[String]
    var next = uses.getOrElse(from, Set.empty)
    while (next.nonEmpty) {
      found ++= next
      next = next.flatMap(uses.getOrElse(_, Set.empty)) -- found
    }
    found
  }

  test("no package of the connector reaches back to itself through the packages it uses") {
    assert(uses.keySet.contains("reading") && uses.keySet.contains("prefetch"), s"sources read: ${uses.keySet}")
    val loops = uses.keys.toSeq.sorted.filter(p => reachable(p).contains(p))
    assert(loops.isEmpty, s"packages in import loops, with what each uses: ${loops.map(p => s"$p -> ${uses(p)}")}")
  }

  test("the reading engine knows nothing of how a mode keeps or hands on what it reads") {
    assert(reachable("reading").intersect(Set("prefetch", "source", "realtime", "batch", "sink")).isEmpty)
  }

  // Real-time mode uses `source` (the query's streams), which uses `prefetch` for micro-batches: so this
  // looks at what `realtime` names itself, not at what it reaches.
  test("real-time mode names nothing of prefetching: it neither prefetches nor keeps blocks") {
    assert(uses.keySet.contains("realtime"), s"sources read: ${uses.keySet}")
    assert(!uses("realtime").contains("prefetch"), s"realtime uses ${uses("realtime")}")
  }

}
