// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.packaging

import java.io.DataInputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import java.util.zip.ZipFile

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

/**
 * The assembled jar of the line under test, as users load it: its classes run on the Java the line's Spark
 * runs on (11 for Spark 3.5, 17 for Spark 4), and it carries its dependencies shaded and neither Spark nor
 * Scala, with the licences and notices of what it bundles.
 */
class ConnectorJarSuite extends AnyFunSuite {

  private val jar = new ZipFile(sys.props("kinesis.test.connectorJar"))
  private val release = sys.props("kinesis.test.javaRelease").toInt
  private val classes = jar.entries().asScala.map(_.getName).filter(_.endsWith(".class")).toVector

  /** The Java release a class file needs: its major version less 44. */
  private def releaseOf(name: String): Int = {
    val in = new DataInputStream(jar.getInputStream(jar.getEntry(name)))
    try {
      assert(in.readInt() == 0xcafebabe, s"$name is a class file")
      in.readUnsignedShort()
      in.readUnsignedShort() - 44
    } finally in.close()
  }

  test(s"the connector is built for Java $release, and nothing in the jar needs a newer one") {
    val own = classes.filter(n => n.startsWith("io/github/sparkkinesis/") && !n.contains("/shaded/"))
    assert(own.size > 100, "the connector's classes are in the jar")
    // javac writes the line's level; scalac 2.12 writes Java 8's, which every Java runs.
    assert(own.map(releaseOf).max == release)
    val newer = classes.filter(releaseOf(_) > release)
    assert(newer.isEmpty, s"classes for a Java newer than $release: ${newer.take(5)}")
  }

  test("the jar carries the connector's LICENSE and NOTICE, and each bundled jar's own beside them") {
    def text(name: String): String =
      Option(jar.getEntry(name)).map(e => new String(jar.getInputStream(e).readAllBytes(), UTF_8)).getOrElse("")
    def repository(name: String) =
      new String(Files.readAllBytes(Paths.get(sys.props("kinesis.test.root"), name)), UTF_8)
    assert(text("META-INF/LICENSE") == repository("LICENSE"))
    assert(text("META-INF/NOTICE") == repository("NOTICE"))
    val entries = jar.entries().asScala.map(_.getName).toVector
    Seq("kinesis", "sdk-core", "netty-nio-client", "httpclient5").foreach { bundled =>
      assert(entries.exists(n => n.startsWith("META-INF/LICENSE_" + bundled + "-")), s"$bundled's licence")
      assert(entries.exists(n => n.startsWith("META-INF/NOTICE_" + bundled + "-")), s"$bundled's notice")
    }
  }

  /** The class names a class of the jar holds as constants, that start with `prefix` (dotted). */
  private def namesIn(entry: String, prefix: String): Seq[String] = {
    val bytes = jar.getInputStream(jar.getEntry(entry)).readAllBytes()
    (java.util.regex.Pattern.quote(prefix) + "[A-Za-z0-9_.$]+").r
      .findAllIn(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1))
      .toSeq
  }

  test("the default chain's providers that the SDK loads by class name are in the jar, under the shaded names") {
    // Web identity (EKS service accounts) and profiles with a role need sts; SSO profiles sso and ssooidc;
    // profiles of `aws login` signin. The SDK looks each up by a name in its code, which shading renames.
    val sdk = "io/github/sparkkinesis/shaded/software/amazon/awssdk/"
    val lookups = Seq(
      "auth/credentials/internal/ProfileCredentialsUtils",
      "auth/credentials/internal/WebIdentityCredentialsUtils",
      "auth/token/internal/ProfileTokenProviderLoader"
    ).map(c => s"$sdk$c.class")
    val named = lookups.flatMap(namesIn(_, "io.github.sparkkinesis.shaded.software.amazon.awssdk.services."))
    Seq(
      "sts.internal.StsWebIdentityCredentialsProviderFactory",
      "sts.internal.StsProfileCredentialsProviderFactory",
      "sso.auth.SsoProfileCredentialsProviderFactory",
      "ssooidc.SsoOidcProfileTokenProviderFactory",
      "signin.auth.LoginProfileCredentialsProviderFactory"
    ).foreach(n => assert(named.exists(_.endsWith(n)), s"the SDK looks up $n: $named"))
    named.foreach(n => assert(classes.contains(n.replace('.', '/') + ".class"), s"$n, which the SDK loads, is missing"))
    val bytes = lookups.map(c => new String(jar.getInputStream(jar.getEntry(c)).readAllBytes(), "ISO-8859-1"))
    assert(bytes.forall(b => "(?<!shaded[./])software[./]amazon[./]awssdk[./]services".r.findFirstIn(b).isEmpty))
    // The STS and SSO clients those providers build find their HTTP client by service loading.
    val services = "META-INF/services/io.github.sparkkinesis.shaded.software.amazon.awssdk.http.SdkHttpService"
    val http = new String(jar.getInputStream(jar.getEntry(services)).readAllBytes(), UTF_8)
    assert(http.contains("io.github.sparkkinesis.shaded.software.amazon.awssdk.http.apache5.Apache5SdkHttpService"))
  }

  test("dependencies are shaded; Spark, Scala and SLF4J are left to Spark") {
    val outside =
      classes.filterNot { n =>
        Seq("io/github/sparkkinesis/", "org/apache/spark/sparkkinesis/", "org/apache/spark/sql/sparkkinesis/")
          .exists(n.startsWith)
      }
    assert(outside.isEmpty, s"classes outside the connector's packages: ${outside.take(5)}")
    assert(classes.exists(_.startsWith("io/github/sparkkinesis/shaded/software/amazon/awssdk/")))
  }
}
