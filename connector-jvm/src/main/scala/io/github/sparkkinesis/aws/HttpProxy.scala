// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.aws

import java.net.URI
import java.util.regex.Pattern
import java.util.Locale

import scala.jdk.CollectionConverters._
import scala.util.Try

import software.amazon.awssdk.http.apache5.{ProxyConfiguration => ApacheProxy}
import software.amazon.awssdk.http.nio.netty.{ProxyConfiguration => NettyProxy}

/**
 * The HTTP proxy the connector's AWS clients (Kinesis, STS) reach an endpoint through, as the JVM and the
 * shell name one: for an `https` endpoint (AWS') the system properties `https.proxyHost` and
 * `https.proxyPort`, else the environment's `HTTPS_PROXY`; for an `http` endpoint (an emulator)
 * `http.proxyHost`/`http.proxyPort`, else `HTTP_PROXY`. Hosts that go direct: `http.nonProxyHosts`
 * (`localhost|*.internal`), else `NO_PROXY` (`localhost,.internal`). A user and password come from
 * `http(s).proxyUser`/`http(s).proxyPassword`, or from the proxy URL of the environment.
 *
 * The SDK's own reading of these (its default) takes the properties of the scheme it speaks to the proxy
 * (`http.proxyHost` even for HTTPS endpoints) and would not see `https.proxyHost`, which is what a JVM
 * user sets for HTTPS: the clients are given this proxy explicitly instead. Set the properties on the
 * driver and the executors (`spark.driver.extraJavaOptions`, `spark.executor.extraJavaOptions`), or the
 * variables in both environments.
 */
private[sparkkinesis] final case class HttpProxy(
    host: String,
    port: Int,
    direct: Set[String],
    user: Option[String],
    password: Option[Secret]) {

  /** The proxy as the SDK's Apache client takes it. */
  def apache: ApacheProxy = {
    val builder = ApacheProxy
      .builder()
      .endpoint(URI.create(s"http://$host:$port"))
      .nonProxyHosts(direct.asJava)
      .useSystemPropertyValues(false)
      .useEnvironmentVariableValues(false)
    user.foreach(builder.username)
    password.foreach(p => builder.password(p.reveal))
    builder.build()
  }

  /** The proxy as the SDK's Netty client (enhanced fan-out) takes it. */
  def netty: NettyProxy = {
    val builder = NettyProxy
      .builder()
      .scheme("http")
      .host(host)
      .port(port)
      .nonProxyHosts(direct.asJava)
      .useSystemPropertyValues(false)
      .useEnvironmentVariableValues(false)
    user.foreach(builder.username)
    password.foreach(p => builder.password(p.reveal))
    builder.build()
  }

  override def toString: String = s"HttpProxy($host:$port, direct: ${direct.mkString("|")})"
}

private[sparkkinesis] object HttpProxy {

  /** No proxy: the SDK's own reading of the properties and the environment turned off as well. */
  val apacheDirect: ApacheProxy =
    ApacheProxy.builder().useSystemPropertyValues(false).useEnvironmentVariableValues(false).build()
  val nettyDirect: NettyProxy =
    NettyProxy.builder().useSystemPropertyValues(false).useEnvironmentVariableValues(false).build()

  /** The proxy for an endpoint of `scheme` (`https` when none is given), from this JVM's settings. */
  def forScheme(scheme: String): Option[HttpProxy] =
    of(scheme, k => Option(System.getProperty(k)), k => Option(System.getenv(k)))

  /** The proxy for an endpoint URL, or for AWS' own (HTTPS) endpoints when there is none. */
  def forEndpoint(endpoint: Option[String]): Option[HttpProxy] =
    forScheme(endpoint.flatMap(e => Try(URI.create(e).getScheme).toOption).flatMap(Option(_)).getOrElse("https"))

  /** As [[forScheme]], from the given properties and environment. */
  def of(scheme: String, property: String => Option[String], env: String => Option[String]): Option[HttpProxy] = {
    val s = if (scheme.equalsIgnoreCase("http")) "http" else "https"
    def set(value: Option[String]) = value.map(_.trim).filter(_.nonEmpty)
    def variable(name: String) = set(env(name.toUpperCase(Locale.ROOT))).orElse(set(env(name)))
    val fromProperties = set(property(s"$s.proxyHost")).map { host =>
      val port = set(property(s"$s.proxyPort")).flatMap(p => Try(p.toInt).toOption).getOrElse(80)
      (host, port, set(property(s"$s.proxyUser")), set(property(s"$s.proxyPassword")))
    }
    val proxy = fromProperties.orElse(variable(s"${s}_proxy").flatMap(fromUrl))
    proxy.map { case (host, port, user, password) =>
      val direct = set(property("http.nonProxyHosts"))
        .map(_.split('|').toSeq.flatMap(javaPattern))
        .orElse(variable("no_proxy").map(_.split(',').toSeq.flatMap(noProxyEntry)))
        .getOrElse(Nil)
      HttpProxy(host, port, direct.toSet, user, password.map(new Secret(_)))
    }
  }

  /** `http://user:password@host:port` (scheme and port optional) as host, port, user and password. */
  private def fromUrl(url: String): Option[(String, Int, Option[String], Option[String])] =
    Try(URI.create(if (url.contains("://")) url else s"http://$url")).toOption.filter(_.getHost != null).map { u =>
      val (user, password) = Option(u.getRawUserInfo).map(_.split(":", 2)) match {
        case Some(Array(n, p)) => (Some(decode(n)), Some(decode(p)))
        case Some(Array(n)) => (Some(decode(n)), None)
        case _ => (None, None)
      }
      (u.getHost, if (u.getPort > 0) u.getPort else 80, user, password)
    }

  private def decode(s: String) = java.net.URLDecoder.decode(s, "UTF-8")

  /** A pattern of `http.nonProxyHosts` (`*` anywhere) as the regular expression the SDK matches hosts with. */
  private def javaPattern(pattern: String): Option[String] =
    Option(pattern.trim.toLowerCase(Locale.ROOT)).filter(_.nonEmpty).map { p =>
      p.split("\\*", -1).map(part => if (part.isEmpty) "" else Pattern.quote(part)).mkString(".*")
    }

  /** An entry of `NO_PROXY`: a host, its subdomains with it (`example.com`, `.example.com`), or `*` (all). */
  private def noProxyEntry(entry: String): Option[String] =
    Option(entry.trim.toLowerCase(Locale.ROOT)).filter(_.nonEmpty).map {
      case "*" => ".*"
      case domain => s"(.*\\.)?${Pattern.quote(domain.stripPrefix("*").stripPrefix("."))}"
    }
}
