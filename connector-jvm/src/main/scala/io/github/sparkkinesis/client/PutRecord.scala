package io.github.sparkkinesis.client

/** One record of a PutRecords call. */
final case class PutRecord(partitionKey: String, data: Array[Byte], explicitHashKey: Option[String] = None)
