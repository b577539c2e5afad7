// SPDX-License-Identifier: Apache-2.0
import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import java.security.MessageDigest

import scala.collection.JavaConverters._

/**
 * The checksums of a release staged for Maven Central beyond those publishing writes. Publishing writes an MD5
 * and a SHA-1 file beside each artifact, pom and signature (all Maven Central requires); this adds a SHA-256
 * and a SHA-512 file beside each of those, in the same form: the lowercase hex digest alone.
 */
object ReleaseStaging {

  private val Algorithms = Seq("sha256" -> "SHA-256", "sha512" -> "SHA-512")

  /** Writes `X.sha256` and `X.sha512` for every staged file `X` that has an `X.sha1`; returns the files. */
  def writeStrongChecksums(staging: File): Seq[File] = {
    if (!staging.isDirectory) sys.error(s"Nothing is staged in $staging: run publishSigned first")
    val walk = Files.walk(staging.toPath)
    val staged =
      try walk.iterator.asScala.filter(p => Files.isRegularFile(p) && p.toString.endsWith(".sha1")).toList
      finally walk.close()
    for {
      sha1 <- staged.sortBy(_.toString)
      artifact = Path.of(sha1.toString.stripSuffix(".sha1"))
      if Files.isRegularFile(artifact)
      (extension, algorithm) <- Algorithms
    } yield {
      val digest = MessageDigest.getInstance(algorithm).digest(Files.readAllBytes(artifact))
      val out = new File(s"$artifact.$extension")
      Files.write(out.toPath, digest.map(b => f"${b & 0xff}%02x").mkString.getBytes(UTF_8))
      out
    }
  }
}
