// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

/**
 * Charts as SVG files for the benchmarks' results, which the performance lab notes (docs/performance/) link:
 * line charts (axes with round ticks, a line a series, a legend) and grouped bar charts. No plotting library: a
 * chart is a few dozen elements.
 */
private[bench] object SvgChart {

  /** One line: its points (x, y) in the chart's units, in the order drawn. */
  final case class Series(name: String, points: Seq[(Double, Double)], color: String, dashed: Boolean = false)

  private val (width, height) = (760, 380)
  private val (left, right, top, bottom) = (70, 200, 40, 50)

  /**
   * A moment to mark on a chart's x axis, as a vertical line with a short label (the soak's faults).
   */
  final case class Mark(x: Double, label: String)

  /** A chart of `series` over axes from 0 to the largest x and y, with the given title and axis labels. */
  def lines(title: String, xLabel: String, yLabel: String, series: Seq[Series], marks: Seq[Mark] = Nil): String =
    svg(height, panel(title, xLabel, yLabel, series, marks, xMaxOf(series)))

  /**
   * Charts of `panels` (title, y axis label, series) one above the other, over one x axis from 0 to the
   * largest x of them all, each with the `marks`.
   */
  def stacked(xLabel: String, panels: Seq[(String, String, Seq[Series])], marks: Seq[Mark]): String = {
    val xMax = xMaxOf(panels.flatMap(_._3) ++ Seq(Series("", marks.map(m => (m.x, 0.0)), "")))
    val body = panels.zipWithIndex.map { case ((title, yLabel, series), i) =>
      s"""<g transform="translate(0 ${i * height})">\n${panel(title, xLabel, yLabel, series, marks, xMax)}</g>\n"""
    }
    svg(height * panels.size, body.mkString)
  }

  /** One bar of a group: its name in the legend, its value, its color. */
  final case class Bar(name: String, value: Double, color: String)

  /**
   * Groups of bars side by side (a group a case, a bar a reader), over a y axis from 0 to the largest
   * value, each bar labelled with its value; the legend names the bars of the first group.
   */
  def bars(title: String, yLabel: String, groups: Seq[(String, Seq[Bar])]): String = {
    val yTicks = ticks(groups.flatMap(_._2.map(_.value)).foldLeft(0.0)(math.max))
    val yMax = yTicks.last
    val plotWidth = width - left - right
    val plotHeight = height - top - bottom
    def y(v: Double): Double = top + plotHeight - v / yMax * plotHeight
    val out = new StringBuilder
    out ++= s"""<text x="$left" y="22" font-size="14">${escape(title)}</text>\n"""
    yTicks.foreach { t =>
      out ++= f"""<line x1="$left" y1="${y(t)}%.1f" x2="${left + plotWidth}" y2="${y(t)}%.1f" stroke="#eee"/>"""
      out ++= f"""<text x="${left - 6}" y="${y(t)}%.1f" dy="4" text-anchor="end">${label(t)}</text>\n"""
    }
    val groupWidth = plotWidth.toDouble / math.max(1, groups.size)
    groups.zipWithIndex.foreach { case ((name, bars), g) =>
      val barWidth = groupWidth * 0.8 / math.max(1, bars.size)
      val start = left + g * groupWidth + groupWidth * 0.1
      bars.zipWithIndex.foreach { case (bar, b) =>
        val x = start + b * barWidth
        out ++= f"""<rect x="$x%.1f" y="${y(bar.value)}%.1f" width="${barWidth - 2}%.1f" """
        out ++= f"""height="${top + plotHeight - y(bar.value)}%.1f" fill="${bar.color}"/>"""
        out ++= f"""<text x="${x + barWidth / 2 - 1}%.1f" y="${y(bar.value) - 3}%.1f" text-anchor="middle" """
        out ++= s"""font-size="9">${label(
            BigDecimal(bar.value).round(new java.math.MathContext(2)).toDouble)}</text>\n"""
      }
      out ++= f"""<text x="${start + groupWidth * 0.4}%.1f" y="${top + plotHeight + 16}" text-anchor="middle">"""
      out ++= s"""${escape(name)}</text>\n"""
    }
    out ++= s"""<rect x="$left" y="$top" width="$plotWidth" height="$plotHeight" fill="none" stroke="#888"/>\n"""
    out ++= s"""<text transform="translate(16 ${top + plotHeight / 2}) rotate(-90)" text-anchor="middle">"""
    out ++= s"""${escape(yLabel)}</text>\n"""
    groups.headOption.toSeq.flatMap(_._2).zipWithIndex.foreach { case (bar, i) =>
      val ly = top + 10 + i * 20
      val lx = left + plotWidth + 12
      out ++= s"""<rect x="$lx" y="${ly - 6}" width="24" height="12" fill="${bar.color}"/>"""
      out ++= s"""<text x="${lx + 30}" y="$ly" dy="4">${escape(bar.name)}</text>\n"""
    }
    svg(height, out.toString)
  }

  private def svg(totalHeight: Int, body: String): String =
    s"""<svg xmlns="http://www.w3.org/2000/svg" width="$width" height="$totalHeight" """ +
      s"""font-family="sans-serif" font-size="12">\n""" +
      s"""<rect width="$width" height="$totalHeight" fill="white"/>\n$body</svg>\n"""

  private def xMaxOf(series: Seq[Series]): Double = {
    val xs = series.flatMap(_.points.map(_._1))
    ticks(if (xs.isEmpty) 1 else xs.max).last
  }

  /** One chart's elements, its x axis from 0 to `xMax`. */
  private def panel(
      title: String,
      xLabel: String,
      yLabel: String,
      series: Seq[Series],
      marks: Seq[Mark],
      xMax: Double): String = {
    val points = series.flatMap(_.points)
    val xTicks = ticks(xMax)
    val yTicks = ticks(if (points.isEmpty) 1 else points.map(_._2).max)
    val yMax = yTicks.last
    val plotWidth = width - left - right
    val plotHeight = height - top - bottom
    def x(v: Double): String = f"${left + v / xMax * plotWidth}%.1f"
    def y(v: Double): String = f"${top + plotHeight - v / yMax * plotHeight}%.1f"
    val out = new StringBuilder
    out ++= s"""<text x="$left" y="22" font-size="14">${escape(title)}</text>\n"""
    xTicks.foreach { t =>
      out ++= s"""<line x1="${x(t)}" y1="$top" x2="${x(t)}" y2="${top + plotHeight}" stroke="#eee"/>"""
      out ++= s"""<text x="${x(t)}" y="${top + plotHeight + 16}" text-anchor="middle">${label(t)}</text>\n"""
    }
    yTicks.foreach { t =>
      out ++= s"""<line x1="$left" y1="${y(t)}" x2="${left + plotWidth}" y2="${y(t)}" stroke="#eee"/>"""
      out ++= s"""<text x="${left - 6}" y="${y(t)}" dy="4" text-anchor="end">${label(t)}</text>\n"""
    }
    marks.foreach { m =>
      out ++= s"""<line x1="${x(m.x)}" y1="$top" x2="${x(m.x)}" y2="${top + plotHeight}" stroke="#bbb" """
      out ++= s"""stroke-dasharray="2 3"/>"""
      out ++= s"""<text transform="translate(${x(m.x)} ${top + 4}) rotate(90)" font-size="9" fill="#777">"""
      out ++= s"""${escape(m.label)}</text>\n"""
    }
    out ++= s"""<rect x="$left" y="$top" width="$plotWidth" height="$plotHeight" fill="none" stroke="#888"/>\n"""
    out ++= s"""<text x="${left + plotWidth / 2}" y="${height - 10}" text-anchor="middle">${escape(xLabel)}</text>\n"""
    out ++= s"""<text transform="translate(16 ${top + plotHeight / 2}) rotate(-90)" text-anchor="middle">"""
    out ++= s"""${escape(yLabel)}</text>\n"""
    series.zipWithIndex.foreach { case (s, i) =>
      val dash = if (s.dashed) """ stroke-dasharray="6 4"""" else ""
      val path = s.points.map { case (px, py) => s"${x(px)},${y(py)}" }.mkString(" ")
      out ++= s"""<polyline points="$path" fill="none" stroke="${s.color}" stroke-width="1.5"$dash/>\n"""
      val ly = top + 10 + i * 20
      val lx = left + plotWidth + 12
      out ++= s"""<line x1="$lx" y1="$ly" x2="${lx + 24}" y2="$ly" stroke="${s.color}" stroke-width="2"$dash/>"""
      out ++= s"""<text x="${lx + 30}" y="$ly" dy="4">${escape(s.name)}</text>\n"""
    }
    out.toString
  }

  /** Writes `bench/results/<name>` below the repository's root. */
  def save(name: String, svg: String): Unit = {
    val out = new File(new File(sys.props.getOrElse("kinesis.test.root", ".")), s"bench/results/$name")
    out.getParentFile.mkdirs()
    Files.write(out.toPath, svg.getBytes(UTF_8))
    println(s"Saved ${out.getPath}")
  }

  /** Round ticks from 0 to at least `max`: steps of 1, 2 or 5 times a power of ten, five to ten of them. */
  private[bench] def ticks(max: Double): Seq[Double] = {
    val top = if (max > 0) max else 1.0
    val magnitude = math.pow(10, math.floor(math.log10(top / 5)))
    val step = Seq(1.0, 2.0, 5.0, 10.0).map(_ * magnitude).find(top / _ <= 10).get
    (0 to math.ceil(top / step - 1e-9).toInt).map(_ * step)
  }

  private def label(v: Double): String =
    BigDecimal(v).setScale(6, BigDecimal.RoundingMode.HALF_UP).bigDecimal.stripTrailingZeros.toPlainString

  private def escape(text: String): String = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
}
