// SPDX-License-Identifier: Apache-2.0
// Build of the Kinesis connector for Spark Structured Streaming: one source tree, one jar per Spark line.
//
// The lines are declared once, in project/spark-lines.tsv (Spark, Scala and Java versions, where Spark's jars
// come from, which shim folders apply). Each line is an sbt project, `spark<line without dots>` (spark43_213,
// spark35_212, ...), over the same sources in connector-jvm/src plus the line's shim folders
// (connector-jvm/src/main/scala-<shim>), with its own target folder (connector-jvm/target/<line>/).
//
// Spark is provided at run time: from Maven Central for the lines published there, and from the jars of the
// pyspark distribution (installed into .venv by dev/lib.sh) for Spark 4.3, which Maven Central does not carry
// yet; SPARK_JARS_DIR can point at another Spark 4.3 distribution's jars/ folder.
//
// The assembly is the product: one jar per line with the AWS SDK and everything it pulls in shaded under
// io.github.sparkkinesis.shaded, without Spark, Scala or SLF4J. It is what `publish` publishes (to
// target/repository by default) with a pom that lists no dependency, and what the tests run on.
//
// A release to Maven Central (docs/contributing.md, "Releases and versions"): `publishSigned` stages every line's jar,
// sources, scaladoc and pom, signed with gpg (sbt-pgp), in target/release/maven; `stageChecksums` adds their
// SHA-256 and SHA-512; sbt's `sonaUpload` or `sonaRelease` sends that folder as one bundle to the Central
// Portal. dev/release-check stages and checks it all without sending it.
import scala.xml.{Elem, Node => XmlNode}
import scala.xml.transform.{RewriteRule, RuleTransformer}

import com.jsuereth.sbtpgp.PgpKeys
import sbtassembly.AssemblyPlugin.autoImport._

val awsSdkVersion = "2.57.8" // every SDK module at one version, as its BOM would pin them (sso and signin need 2.57)
val scalatestVersion = "3.2.19"
val kclVersion = "2.6.1" // tests only: the outside oracle of the KPL format
val kclProtobufVersion = "4.27.5" // the protobuf runtime that KCL version is generated for
val glueSerdeVersion = "1.1.27" // tests only, in a JVM of its own: the outside oracle of the Glue registry's formats
val shadedPrefix = "io.github.sparkkinesis.shaded"
val projectUrl = "https://github.com/sparkkinesis/spark-kinesis" // also in python/pyproject.toml

val sparkLines = SparkLines.read(file("project/spark-lines.tsv"))
val primaryLine = sparkLines.head

ThisBuild / organization := "io.github.sparkkinesis"
ThisBuild / version := ProjectVersion.read(file("python/src/pyspark_kinesis/_version.py"))
ThisBuild / scalaVersion := primaryLine.scalaVersion
ThisBuild / versionScheme := Some("early-semver")
ThisBuild / licenses := Seq("Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt"))
ThisBuild / description := "Amazon Kinesis Data Streams source and sink for Apache Spark Structured Streaming"
// What Maven Central asks of every pom besides the above: the project's url, its source repository, who
// makes it.
ThisBuild / homepage := Some(url(projectUrl))
ThisBuild / organizationName := "spark-kinesis"
ThisBuild / organizationHomepage := Some(url(projectUrl))
ThisBuild / scmInfo := Some(ScmInfo(url(projectUrl), s"scm:git:$projectUrl.git"))
ThisBuild / developers := List(Developer("spark-kinesis", "The spark-kinesis authors", "", url(projectUrl)))
// Where publishSigned stages a release and sonaUpload/sonaRelease take it from (sbt's default is
// target/sona-staging); Global, as sbt defines it and the staging repository built from it.
Global / stagingDirectory := file("target/release/maven").getAbsoluteFile

/** Where `publish` puts the artifacts: a Maven repository inside target/, for spark-submit --repositories. */
lazy val localRepository = settingKey[File]("The Maven repository folder that publish writes to")

/** Spark from Maven Central with everything it depends on: the lines' Spark when Maven Central has it. */
lazy val SparkDist = config("spark-dist").hide

/** The jars/ folder of the Spark distribution a pyspark-sourced line is built and tested against. */
lazy val sparkJarsDir = settingKey[Option[File]]("The jars/ folder of the Spark a line is built against")

/** Spark's own jars a line is compiled and tested against (provided at run time, never in the assembly). */
lazy val sparkJars = taskKey[Seq[File]]("Spark's jars the line is compiled and tested against")

/** The unit tests: every suite outside the integration package (which needs the Kinesis emulator). */
lazy val unitTest = taskKey[Unit]("Runs the unit tests: every suite outside the integration package")

/** Lists Spark's jars of a line in target/<line>/spark-jars.txt, for a Spark home made of them (dev/lib.sh). */
lazy val writeSparkJars =
  taskKey[File]("Writes the line's Spark jars, one path a line, to target/<line>/spark-jars.txt")

/** The class path of the Glue serde oracle's JVM (tests/gsr-oracle): its classes and the serde's jars. */
lazy val writeOracleClasspath =
  taskKey[File]("Writes the Glue serde oracle's class path, one path a line, to tests/gsr-oracle/target/classpath.txt")

/** The line's jar that the tests and the Python end-to-end tests load. */
lazy val connectorJar = taskKey[File]("The shaded connector jar (the assembly), built if a source changed")

def pysparkJars(root: File): File =
  sys.env.get("SPARK_JARS_DIR").map(file).getOrElse {
    val venvJars = (root / ".venv" / "lib" * "python3*" / "site-packages" / "pyspark" / "jars").get
    venvJars.headOption.getOrElse(root / ".venv" / "pyspark-jars-not-installed")
  }

/**
 * Drops every dependency from the published pom (the jar shades what it needs, and Spark provides the rest),
 * and the developers' empty email element.
 */
val pomCleanup = new RuleTransformer(new RewriteRule {
  override def transform(node: XmlNode): Seq[XmlNode] = node match {
    case e: Elem if e.label == "dependencies" => Seq.empty
    case e: Elem if e.label == "email" && e.text.trim.isEmpty => Seq.empty
    case other => other
  }
})

/** The SHA-256 and SHA-512 files Maven Central takes beside the MD5 and SHA-1 that publishing writes. */
lazy val stageChecksums =
  taskKey[Seq[File]]("Writes a .sha256 and a .sha512 beside every file publishSigned staged with a .sha1")

/** The connector for one Spark line: shared sources, the line's shims, its Spark, its jar. */
def connectorFor(lineId: String): Project = {
  val line = sparkLines.find(_.id == lineId).getOrElse(sys.error(s"No line $lineId in project/spark-lines.tsv"))
  val root = file(".").getAbsoluteFile
  Project(line.projectId, file("connector-jvm"))
    .configs(SparkDist)
    .settings(
      name := line.artifactBase,
      moduleName := line.artifactBase, // as is: sbt's default would turn "3.5" into "3-5"
      scalaVersion := line.scalaVersion,
      target := baseDirectory.value / "target" / line.id,
      javacOptions ++= Seq("--release", line.javaRelease.toString),
      scalacOptions ++= Seq("-release", line.javaRelease.toString, "-deprecation", "-feature", "-unchecked") ++
        // On 2.12, 2.13's rules where 2.12 can follow them, so that both compilers read the code alike.
        (if (line.scalaBinary == "2.12") Seq("-Ywarn-unused:imports,privates,locals", "-Xsource:2.13")
         else Seq("-Wunused:imports,privates,locals")),
      Compile / unmanagedSourceDirectories ++=
        line.shims.flatMap(s => Seq("scala", "java").map(lang => baseDirectory.value / "src" / "main" / s"$lang-$s")),
      Compile / sourceGenerators += Def.task {
        Seq(BuiltFor.write((Compile / sourceManaged).value, line, sparkLines, version.value))
      }.taskValue,
      // The repository's LICENSE and NOTICE, in the jar's META-INF: copied only when they changed, since a
      // copy made anew changes the resources, and sbt-assembly then packages the jar again in every session.
      Compile / resourceGenerators += Def.task {
        Seq("LICENSE", "NOTICE").map { name =>
          val target = (Compile / resourceManaged).value / "META-INF" / name
          if (!target.exists || IO.readBytes(target).toSeq != IO.readBytes(root / name).toSeq)
            IO.copyFile(root / name, target)
          target
        }
      }.taskValue,

      // ---- Spark, provided: on the compile and test classpaths, never in the jar or its pom ----
      sparkJarsDir := (if (line.sparkFromMaven) None else Some(pysparkJars(root))),
      libraryDependencies ++= (if (!line.sparkFromMaven) Nil
                               else Seq("org.apache.spark" %% "spark-sql" % line.sparkVersion % SparkDist)),
      // The Spark Connect server, for the connector's plugin: its jar alone (it shades what it needs).
      libraryDependencies ++= line.connectFromMaven.toSeq.map { v =>
        ("org.apache.spark" %% "spark-connect" % v % SparkDist).intransitive()
      },
      sparkJars := (sparkJarsDir.value match {
        case None => Classpaths.managedJars(SparkDist, classpathTypes.value, update.value).files
        case Some(dir) =>
          val jars = (dir * "*.jar").get
          val sql = s"spark-sql_${line.scalaBinary}-${line.sparkVersion}.jar"
          if (!jars.exists(_.getName == sql))
            sys.error(
              s"Spark ${line.sparkVersion} jars not found in $dir. Run dev/test (it installs pyspark " +
                s"${line.sparkVersion} into .venv) or set SPARK_JARS_DIR to the jars/ folder of a Spark " +
                s"${line.sparkVersion} distribution.")
          jars
      }),
      Compile / unmanagedJars ++= Attributed.blankSeq(sparkJars.value),
      writeSparkJars := {
        val out = target.value / "spark-jars.txt"
        IO.writeLines(out, sparkJars.value.map(_.getAbsolutePath))
        out
      },

      // ---- the SDK, shaded into the jar ----
      // Spark brings SLF4J; the SDK must log through it rather than carry its own copy.
      // The connector builds its HTTP clients explicitly (Apache 5 for calls, Netty for HTTP/2 subscriptions),
      // so the SDK's other default client stays out of the jar.
      // The default credential chain loads some of its providers by class name, from modules of their own: sts
      // for web identity (EKS service accounts) and profiles that assume a role (sts is also what roleArn
      // uses), sso and ssooidc for SSO profiles, signin for profiles of `aws login`. Shading renames the class
      // names the SDK looks up along with the classes (ConnectorJarSuite checks that each is in the jar).
      // Container credentials (ECS, EKS Pod Identity) and instance profiles need no module of their own.
      libraryDependencies ++= Seq("kinesis", "sts", "sso", "ssooidc", "signin", "apache5-client", "netty-nio-client")
        .map { module =>
          ("software.amazon.awssdk" % module % awsSdkVersion)
            .exclude("org.slf4j", "slf4j-api")
            .exclude("software.amazon.awssdk", "apache-client")
        },
      libraryDependencies ++= Seq(
        "org.scalatest" %% "scalatest" % scalatestVersion % Test,
        "org.scalatestplus" %% "scalacheck-1-18" % s"$scalatestVersion.0" % Test,
        // The benchmarks' synthetic Kinesis frames SubscribeToShard's events with the event stream library the
        // SDK reads them with (which the SDK only has at run time, shaded in the jar).
        "software.amazon.eventstream" % "eventstream" % "1.0.1" % Test
      ),
      // The outside oracle of the KPL format (kpl/KclOracleSuite): the Kinesis Client Library's own
      // de-aggregation and protobuf messages, and the protobuf runtime its generated code needs. That code
      // needs protobuf 4, and Spark 3.5 puts protobuf 3 on the class path: the oracle runs on the Spark 4
      // lines (scala-spark-4.0+), and the format code it checks is the same in every line's jar.
      libraryDependencies ++= (if (!line.shims.contains("spark-4.0+")) Nil
                               else
                                 Seq(
                                   ("software.amazon.kinesis" % "amazon-kinesis-client" % kclVersion % Test)
                                     .intransitive(),
                                   "com.google.protobuf" % "protobuf-java" % kclProtobufVersion % Test
                                 )),

      // ---- assembly: the connector jar users load ----
      assembly / assemblyJarName := s"${line.artifactBase}_${line.scalaBinary}-${version.value}.jar",
      assemblyPackageScala / assembleArtifact := false,
      assembly / assemblyExcludedJars := {
        val spark = sparkJars.value.toSet
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
        val ourOrganization = organization.value
        val fallback = (assembly / assemblyMergeStrategy).value
        // The connector's own LICENSE and NOTICE keep their names; each bundled jar's get its name appended.
        val keepingOurs = CustomMergeStrategy.rename { dependency =>
          dependency.module.filterNot(_.organization == ourOrganization) match {
            case None => dependency.target
            case Some(bundled) =>
              val dot = dependency.target.indexOf('.')
              val (base, extension) = dependency.target.splitAt(if (dot < 0) dependency.target.length else dot)
              s"${base}_${bundled.name}-${bundled.version}$extension"
          }
        }
        (path: String) =>
          path match {
            case PathList("META-INF", "services", _*) => MergeStrategy.filterDistinctLines
            case PathList("META-INF", xs @ _*) if xs.lastOption.exists(_.endsWith(".kotlin_module")) =>
              MergeStrategy.discard
            case PathList("META-INF", "versions", _*) => MergeStrategy.discard
            case PathList("META-INF", "native-image", _*) => MergeStrategy.discard
            case PathList("META-INF", "io.netty.versions.properties") => MergeStrategy.discard
            case PathList("META-INF", "MANIFEST.MF") => MergeStrategy.discard
            case PathList("META-INF", n) if n.toUpperCase.matches("(LICENSE|NOTICE|DEPENDENCIES)(\\..*)?") =>
              keepingOurs
            case "module-info.class" => MergeStrategy.discard
            case x if x.endsWith("/module-info.class") => MergeStrategy.discard
            case x => fallback(x)
          }
      },
      connectorJar := assembly.value,

      // ---- publishing: the shaded jar as the main artifact, with sources and scaladoc ----
      Compile / packageBin / publishArtifact := false,
      assembly / artifact := (assembly / artifact).value.withClassifier(None),
      addArtifact(assembly / artifact, assembly),
      pomPostProcess := (node => pomCleanup.transform(node).head),
      localRepository := root / "target" / "repository",
      publishTo := Some(MavenCache("spark-kinesis-local", localRepository.value)),
      publishMavenStyle := true,
      // publishSigned stages a release for Maven Central (Global / stagingDirectory) whatever publishTo says,
      // so that `publish` keeps filling target/repository.
      otherResolvers ++= localStaging.value.toSeq,
      PgpKeys.publishSignedConfiguration :=
        PgpKeys.publishSignedConfiguration.value.withResolverName(localStaging.value.get.name),
      Compile / doc / scalacOptions ++= Seq("-no-link-warnings"),

      // ---- tests: run on the assembled jar plus Spark's own jars ----
      // The benchmark programs in bench/ build and run with the tests (dev/bench), on the same classpath;
      // bench/src-<shim> holds those of some lines only (real-time mode: spark-4.1+).
      Test / unmanagedSourceDirectories += root / "bench" / "src",
      Test / unmanagedSourceDirectories ++= line.shims.map(s => root / "bench" / s"src-$s"),
      Test / unmanagedSourceDirectories ++=
        line.shims.map(s => baseDirectory.value / "src" / "test" / s"scala-$s"),
      Test / fork := true,
      Test / parallelExecution := false,
      Test / run / fork := true,
      Test / testForkedParallel := false,
      Test / fullClasspath := {
        val shaded = assembly.value
        // What the assembly holds, and Spark's own jars that it does not (Scala's library among them). The
        // tests' administration of streams (client/KinesisAdminApi, which the connector never calls) uses
        // the AWS SDK itself: its jars stay, unshaded and so apart from the jar's, without Netty, which Spark
        // has in a version of its own. The SDK's HTTP client over Netty stays too, over Spark's Netty: the
        // benchmarks' plain asynchronous SDK client (SubscribeToShard) runs on it.
        val bundled =
          (Compile / managedClasspath).value.files.toSet -- sparkJars.value + (Compile / classDirectory).value
        val forAdmin = bundled.filter { jar =>
          val name = jar.getName
          (!name.startsWith("netty-") || name.startsWith("netty-nio-client-")) && !name.startsWith("scala-library")
        }
        val rest = (Test / dependencyClasspath).value.filterNot(a => bundled.contains(a.data) && !forAdmin(a.data))
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
        s"-Dkinesis.test.root=$root",
        s"-Dkinesis.test.log=${target.value / "test.log"}",
        s"-Dkinesis.test.connectorJar=${assembly.value}",
        s"-Dkinesis.test.javaRelease=${line.javaRelease}"
      ),
      // SPARK_HOME (and the Scala version, which Spark's launcher would otherwise look for in a source tree)
      // let a local-cluster master start executors in JVMs of their own, from Spark's jars/: only the
      // pyspark-sourced line has a whole Spark distribution for that.
      Test / envVars ++= Map(
        "SPARK_LOCAL_IP" -> "127.0.0.1",
        "AWS_EC2_METADATA_DISABLED" -> "true",
        "SPARK_SCALA_VERSION" -> line.scalaBinary
      ) ++ sparkJarsDir.value.map(d => "SPARK_HOME" -> d.getParent),
      Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oDF"),
      // Property checks draw their cases from one seed, the same on every run unless dev/fuzz gives another
      // (testing/SeededProperties); dev/fuzz also multiplies their cases.
      Test / testOptions += Tests
        .Argument(TestFrameworks.ScalaTest, "-S", sys.env.getOrElse("KINESIS_FUZZ_SEED", "20261127")),
      Test / javaOptions += s"-Dkinesis.fuzz.scale=${sys.env.getOrElse("KINESIS_FUZZ_SCALE", "1")}",
      unitTest := Def.taskDyn {
        val suites = (Test / definedTestNames).value.filterNot(_.contains(".integration."))
        (Test / testOnly).toTask(suites.sorted.mkString(" ", " ", ""))
      }.value
    )
    .settings(if (line == primaryLine) gsrOracleTests else Nil)
}

/**
 * On the primary line only: the suite that checks the registry functions against AWS' own Java serde
 * (integration/GlueSerdeOracleSuite, in src/test/scala-gsr-oracle), and the class path of the serde's JVM
 * (gsrOracle below) that it starts. The other lines' jars hold the same Glue code; and their sbt sessions,
 * which dev/test runs beside the primary line's, leave the oracle's project alone.
 */
lazy val gsrOracleTests: Seq[Def.Setting[_]] = Seq(
  Test / unmanagedSourceDirectories += baseDirectory.value / "src" / "test" / "scala-gsr-oracle",
  Test / javaOptions += s"-Dkinesis.test.gsrOracleClasspath=${(gsrOracle / writeOracleClasspath).value}"
)

lazy val spark43_213 = connectorFor("4.3_2.13")
lazy val spark35_212 = connectorFor("3.5_2.12")
lazy val spark35_213 = connectorFor("3.5_2.13")
lazy val spark40_213 = connectorFor("4.0_2.13")
lazy val spark41_213 = connectorFor("4.1_2.13")
lazy val spark42_213 = connectorFor("4.2_2.13")

lazy val lineProjects = Seq(spark43_213, spark35_212, spark35_213, spark40_213, spark41_213, spark42_213)

// ---- tests only: AWS' own Glue Schema Registry serde, the outside oracle of the registry functions ----
// software.amazon.glue:schema-registry-serde (AWS' Java serializer and deserializer) brings 118 jars: Kafka's
// clients, two AWS SDKs, Kotlin, Wire, a Scala 2.12 library that clashes with Spark 4's. None of it may reach
// the connector's class path, jar or pom: a small Java program (tests/gsr-oracle) runs it in a JVM of its own,
// which the primary line's integration/GlueSerdeOracleSuite starts (gsrOracleTests). Plain Java; not a line,
// and not aggregated by the root: no publish, assembly or release builds or carries it.
lazy val gsrOracle = (project in file("tests/gsr-oracle"))
  .settings(
    name := "gsr-oracle",
    crossPaths := false,
    autoScalaLibrary := false,
    javacOptions ++= Seq("--release", "17"),
    libraryDependencies += "software.amazon.glue" % "schema-registry-serde" % glueSerdeVersion,
    publish / skip := true,
    writeOracleClasspath := {
      val out = target.value / "classpath.txt"
      IO.writeLines(out, (Runtime / fullClasspath).value.files.map(_.getAbsolutePath))
      out
    }
  )

lazy val root = (project in file("."))
  .aggregate(lineProjects.map(p => p: ProjectReference): _*)
  .settings(
    name := "spark-kinesis",
    publish / skip := true,
    sonaDeploymentName := s"spark-kinesis ${version.value}",
    stageChecksums := ReleaseStaging.writeStrongChecksums((Global / stagingDirectory).value),
    // dev/build's and dev/release-check's steps: `progress <words>` prints "##progress <words>" whatever the
    // log level, and the script turns each into a line with the time the step took.
    commands += Command.args("progress", "<words>") { (state, words) =>
      println(("##progress" +: words).mkString(" "))
      state
    },
    // Every line of the table has its project, and no project is left without a line.
    Global / onLoad := {
      val declared = sparkLines.map(_.projectId).toSet
      val defined = lineProjects.map(_.id).toSet
      require(declared == defined, s"project/spark-lines.tsv declares $declared, build.sbt defines $defined")
      (Global / onLoad).value
    }
  )
