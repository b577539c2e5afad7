// Build of the Kinesis connector for Spark Structured Streaming.
//
// Spark is provided at run time. Spark 4.3.0 is compiled against the very jars of the pyspark 4.3.0
// distribution that the tests run on (Maven Central does not carry Spark 4.3.0 artifacts): dev/lib.sh
// installs pyspark into .venv, and SPARK_JARS_DIR can point at any other Spark's jars/ folder.
//
// The assembly is the product: one jar with the AWS SDK and everything it pulls in shaded under
// io.github.sparkkinesis.shaded, without Spark, Scala or SLF4J. Tests run against that jar, not against
// the classes directory, so what users load is what the tests exercise.
import sbtassembly.AssemblyPlugin.autoImport._

val sparkVersion = "4.3.0"
val awsSdkVersion = "2.52.0" // every SDK module at one version, as its BOM would pin them
val scalatestVersion = "3.2.19"
val shadedPrefix = "io.github.sparkkinesis.shaded"

ThisBuild / organization := "io.github.sparkkinesis"
ThisBuild / version := "0.1.0-SNAPSHOT"
ThisBuild / scalaVersion := "2.13.18"
ThisBuild / javacOptions ++= Seq("--release", "17")
ThisBuild / scalacOptions ++= Seq(
  "-release",
  "17",
  "-deprecation",
  "-feature",
  "-unchecked",
  "-Wunused:imports,privates,locals"
)

/** The jars/ folder of the Spark distribution the connector is built and tested against. */
lazy val sparkJarsDir = settingKey[File]("The jars/ folder of the Spark distribution to build against")

def findSparkJars(root: File): File =
  sys.env.get("SPARK_JARS_DIR").map(file).getOrElse {
    val venvJars = (root / ".venv" / "lib" * "python3*" / "site-packages" / "pyspark" / "jars").get
    venvJars.headOption.getOrElse(root / ".venv" / "pyspark-jars-not-installed")
  }

lazy val connector = (project in file("connector-jvm"))
  .settings(
    name := "spark-kinesis",
    sparkJarsDir := findSparkJars((ThisBuild / baseDirectory).value),
    Compile / unmanagedJars ++= {
      val dir = sparkJarsDir.value
      val jars = (dir * "*.jar").classpath
      if (!jars.exists(_.data.getName == s"spark-sql_2.13-$sparkVersion.jar"))
        sys.error(
          s"Spark $sparkVersion jars not found in $dir. Run dev/test (it installs pyspark $sparkVersion " +
            "into .venv) or set SPARK_JARS_DIR to the jars/ folder of a Spark 4.3.0 distribution."
        )
      jars
    },
    libraryDependencies ++= Seq(
      "software.amazon.awssdk" % "kinesis" % awsSdkVersion,
      "software.amazon.awssdk" % "sts" % awsSdkVersion,
      "software.amazon.awssdk" % "apache5-client" % awsSdkVersion,
      "software.amazon.awssdk" % "netty-nio-client" % awsSdkVersion,
      "org.scalatest" %% "scalatest" % scalatestVersion % Test,
      "org.scalatestplus" %% "scalacheck-1-18" % s"$scalatestVersion.0" % Test
    ),
    // Spark brings SLF4J; the SDK must log through it rather than carry its own copy.
    // The connector builds its HTTP clients explicitly (Apache 5 for calls, Netty for HTTP/2 subscriptions),
    // so the SDK's other default client stays out of the jar.
    excludeDependencies ++= Seq(
      ExclusionRule("org.slf4j", "slf4j-api"),
      ExclusionRule("software.amazon.awssdk", "apache-client")
    ),
    Compile / packageDoc / publishArtifact := false,
    // The plain jar (without dependencies) goes elsewhere, so it never overwrites the assembled one.
    Compile / packageBin / artifactPath :=
      crossTarget.value / "plain" / s"spark-kinesis_2.13-${version.value}-plain.jar",

    // ---- assembly: the connector jar users load ----
    assembly / assemblyJarName := s"spark-kinesis_2.13-${version.value}.jar",
    assemblyPackageScala / assembleArtifact := false,
    assembly / assemblyExcludedJars := {
      val spark = (Compile / unmanagedJars).value.files.toSet
      (assembly / fullClasspath).value.filter(a => spark.contains(a.data))
    },
    assembly / assemblyShadeRules := Seq(
      "software.amazon.awssdk.**",
      "software.amazon.eventstream.**",
      "io.netty.**",
      "org.reactivestreams.**",
      "org.apache.hc.**"
    ).map(p => ShadeRule.rename(p -> s"$shadedPrefix.@0").inAll),
    assembly / assemblyMergeStrategy := {
      case PathList("META-INF", "services", _*) => MergeStrategy.filterDistinctLines
      case PathList("META-INF", xs @ _*) if xs.lastOption.exists(_.endsWith(".kotlin_module")) =>
        MergeStrategy.discard
      case PathList("META-INF", "versions", _*) => MergeStrategy.discard
      case PathList("META-INF", "native-image", _*) => MergeStrategy.discard
      case PathList("META-INF", "io.netty.versions.properties") => MergeStrategy.discard
      case PathList("META-INF", "MANIFEST.MF") => MergeStrategy.discard
      case PathList("META-INF", n) if n.toUpperCase.matches("(LICENSE|NOTICE|DEPENDENCIES)(\\..*)?") =>
        MergeStrategy.first
      case "module-info.class" => MergeStrategy.discard
      case x if x.endsWith("/module-info.class") => MergeStrategy.discard
      case x => (assembly / assemblyMergeStrategy).value(x)
    },

    // ---- tests: run on the assembled jar plus Spark's own jars ----
    // The benchmark programs in bench/ build and run with the tests (dev/bench), on the same classpath.
    Test / unmanagedSourceDirectories += (ThisBuild / baseDirectory).value / "bench" / "src",
    Test / fork := true,
    Test / parallelExecution := false,
    Test / run / fork := true,
    Test / testForkedParallel := false,
    Test / fullClasspath := {
      val shaded = assembly.value
      val bundled = (Compile / managedClasspath).value.files.toSet + (Compile / classDirectory).value
      val rest = (Test / dependencyClasspath).value.filterNot(a => bundled.contains(a.data))
      (Test / exportedProducts).value ++ Attributed.blankSeq(Seq(shaded)) ++ rest
    },
    Test / javaOptions ++= Seq(
      "-Xmx3g",
      "-XX:+IgnoreUnrecognizedVMOptions",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
      "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
      "-Djdk.reflect.useDirectMethodHandle=false",
      "-Dio.netty.tryReflectionSetAccessible=true",
      "-Dspark.local.ip=127.0.0.1",
      "-Daws.ec2MetadataDisabled=true"
    ),
    Test / javaOptions ++= Seq(
      s"-Dkinesis.test.root=${(ThisBuild / baseDirectory).value}",
      s"-Dkinesis.test.connectorJar=${assembly.value}"
    ),
    // SPARK_HOME (and the Scala version, which Spark's launcher would otherwise look for in a source tree)
    // let a local-cluster master start executors in JVMs of their own, from Spark's jars/.
    Test / envVars ++= Map(
      "SPARK_LOCAL_IP" -> "127.0.0.1",
      "AWS_EC2_METADATA_DISABLED" -> "true",
      "SPARK_HOME" -> sparkJarsDir.value.getParent,
      "SPARK_SCALA_VERSION" -> "2.13"
    ),
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oDF")
  )

lazy val root = (project in file("."))
  .aggregate(connector)
  .settings(publish / skip := true)
