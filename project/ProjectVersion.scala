// SPDX-License-Identifier: Apache-2.0
import java.io.File
import java.nio.file.Files

/**
 * The project's one version number lives in python/src/pyspark_kinesis/_version.py (PEP 440), which the wheel
 * reads as is; the JVM artifacts take its Maven form: "0.2.0.dev0" is "0.2.0-SNAPSHOT", "0.2.0" is "0.2.0".
 */
object ProjectVersion {

  private val Assignment = """(?m)^__version__\s*=\s*"([^"]+)"""".r
  private val Release = """(\d+\.\d+\.\d+)""".r
  private val Development = """(\d+\.\d+\.\d+)\.dev\d+""".r

  def read(file: File): String = {
    val text = new String(Files.readAllBytes(file.toPath), "UTF-8")
    val pep440 = Assignment.findFirstMatchIn(text).map(_.group(1)).getOrElse {
      sys.error(s"""$file: no line __version__ = "X.Y.Z"""")
    }
    toMaven(pep440).getOrElse(sys.error(s"$file: $pep440 is neither X.Y.Z nor X.Y.Z.devN"))
  }

  def toMaven(pep440: String): Option[String] = pep440 match {
    case Release(v) => Some(v)
    case Development(v) => Some(s"$v-SNAPSHOT")
    case _ => None
  }
}
