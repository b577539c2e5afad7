// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.nio.charset.StandardCharsets
import java.util.UUID

import io.github.sparkkinesis.offsets.KinesisSourceOffset
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/**
 * Keeps a query's initial offset in its checkpoint (`<checkpoint>/sources/<n>/initial-offset.json`), so that
 * a query restarted before its first batch was committed starts from the very positions it chose the first
 * time, `latest` included. Driver side; used from the query's thread only.
 */
private[sparkkinesis] final class InitialOffsetStore(metadataPath: String, hadoopConf: Configuration) {
  private val path = new Path(metadataPath, "initial-offset.json")

  /** The stored offset; or `resolve`'s, stored first. If two writers race, the first stored wins. */
  def getOrCreate(resolve: => KinesisSourceOffset): KinesisSourceOffset = {
    val fs = path.getFileSystem(hadoopConf)
    if (fs.exists(path)) read()
    else {
      val offset = resolve
      fs.mkdirs(path.getParent)
      val temporary = new Path(path.getParent, s".initial-offset-${UUID.randomUUID()}.tmp")
      val out = fs.create(temporary, false)
      try out.write(offset.json.getBytes(StandardCharsets.UTF_8))
      finally out.close()
      if (fs.rename(temporary, path)) offset
      else {
        fs.delete(temporary, false)
        read()
      }
    }
  }

  private def read(): KinesisSourceOffset = {
    val fs = path.getFileSystem(hadoopConf)
    val in = fs.open(path)
    try KinesisSourceOffset.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8), s" in file $path")
    finally in.close()
  }
}
