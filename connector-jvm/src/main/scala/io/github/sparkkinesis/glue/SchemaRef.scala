// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.glue

/** A schema of the Glue Schema Registry, by the names of its registry and of itself. Immutable. */
private[sparkkinesis] final case class SchemaRef(registryName: String, schemaName: String) {

  /** As messages name it: "schema 'orders' of registry 'payments'". */
  def describe: String = s"schema '$schemaName' of registry '$registryName'"
}
