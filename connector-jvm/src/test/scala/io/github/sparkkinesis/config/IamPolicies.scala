// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.config

import io.github.sparkkinesis.client.ClientUse

/** The IAM policies of docs/guides/credentials.md, one per side of the connector, generated from [[ClientUse]]'s actions. */
object IamPolicies {

  /** The policy that grants `use` its actions on one stream, as JSON (REGION, ACCOUNT, STREAM to fill in). */
  def policy(use: ClientUse): String = {
    val stream = "arn:aws:kinesis:REGION:ACCOUNT:stream/STREAM"
    val resources =
      if (use.actions.exists(_.onConsumers)) s"""["$stream", "$stream/consumer/*"]""" else s""""$stream""""
    val actions = use.actions.map(a => s""""kinesis:${a.name}"""").distinct.mkString(",\n        ")
    s"""{
       |  "Version": "2012-10-17",
       |  "Statement": [
       |    {
       |      "Effect": "Allow",
       |      "Action": [
       |        $actions
       |      ],
       |      "Resource": $resources
       |    }
       |  ]
       |}""".stripMargin
  }

  /** Each side's policy under a line that names the side and the actions it calls only with some options. */
  def markdown: String = ClientUse.all
    .map { use =>
      // The largest group first, groups of a size in the order of their first action: the same on every line.
      val sometimes = use.actions
        .filter(_.when.isDefined)
        .groupBy(_.when.get)
        .toSeq
        .sortBy { case (_, actions) => (-actions.size, use.actions.indexOf(actions.head)) }
        .map { case (when, actions) => s" Only with $when: ${actions.map(a => s"`${a.name}`").mkString(", ")}." }
      s"**${heading(use)}**${sometimes.mkString}\n\n```json\n${policy(use)}\n```"
    }
    .mkString("\n\n")

  private def heading(use: ClientUse): String = s"${use.title.capitalize}."

  /** The actions each side's policy in `page` (docs/guides/credentials.md) grants, by the side's name. */
  def documented(page: String): Map[String, Set[String]] = {
    val block = DocsTables
      .documented(page, "iam-policies")
      .getOrElse(sys.error(s"${DocsTables.CredentialsPage} has no IAM policies"))
    ClientUse.all.flatMap { use =>
      val at = block.indexOf(s"**${heading(use)}**")
      if (at < 0) None
      else {
        val from = block.indexOf("```json", at)
        val json = block.substring(from, block.indexOf("\n```", from))
        Some(use.name -> "\"kinesis:([A-Za-z]+)\"".r.findAllMatchIn(json).map(_.group(1)).toSet)
      }
    }.toMap
  }
}
