// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.testing

import org.scalactic.anyvals.PosInt
import org.scalatest.Suite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * Property checks that run alike every time: the build gives ScalaTest a fixed seed (`-S`, from
 * `KINESIS_FUZZ_SEED`, 20261127 unless set), so `dev/test` checks the same cases on every run and every Spark
 * line, and a failure there fails again. `dev/fuzz` searches further: a seed of its own, and a scale
 * (`KINESIS_FUZZ_SCALE`, passed as `-Dkinesis.fuzz.scale`) by which each property multiplies its cases. A
 * failure shows the seed and the case it shrank to, which then becomes a unit test of its own.
 */
trait SeededProperties extends ScalaCheckPropertyChecks { this: Suite =>

  /** How many cases each property checks in `dev/test`. */
  protected def cases: Int = 100

  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(
      minSuccessful = PosInt.from(cases * SeededProperties.scale).get,
      maxDiscardedFactor = 5.0)
}

object SeededProperties {

  /** How many times its cases each property checks: 1 in `dev/test`. */
  val scale: Int = sys.props.get("kinesis.fuzz.scale").map(_.toInt).getOrElse(1)
}
