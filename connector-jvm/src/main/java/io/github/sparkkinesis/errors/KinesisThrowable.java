// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors;

import java.util.Map;
import org.apache.spark.SparkThrowable;

/**
 * What every error the connector raises is: a Spark error condition ({@code KINESIS_...}, from
 * {@link ErrorConditions}) with its SQLSTATE and message parameters, so that Spark, PySpark and users' code
 * can tell errors apart by condition rather than by their text. Java, because {@link SparkThrowable}'s
 * abstract method is {@code getErrorClass} on Spark 3.5 and {@code getCondition} on Spark 4, and a Java
 * interface implements both alike on every line.
 */
public interface KinesisThrowable extends SparkThrowable {

  /** The condition and its message's parameters. */
  ErrorDetails details();

  /** The condition, e.g. {@code KINESIS_STREAM_NOT_FOUND}: SparkThrowable's own from Spark 4 on. */
  default String getCondition() {
    return details().condition;
  }

  @Override
  @SuppressWarnings("deprecation")
  default String getErrorClass() {
    return getCondition();
  }

  @Override
  default String getSqlState() {
    return ErrorConditions.sqlState(getCondition());
  }

  @Override
  default Map<String, String> getMessageParameters() {
    return details().parameters;
  }
}
