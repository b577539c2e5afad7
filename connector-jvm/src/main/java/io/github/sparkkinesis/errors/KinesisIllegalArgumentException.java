// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors;

import java.util.Map;

/**
 * An argument the connector refuses before it does anything: an option at {@code .load()} or {@code .save()},
 * a DataFrame the sink cannot write, a row that cannot be a Kinesis record, a consumer name. An
 * {@link IllegalArgumentException}, as Spark's own sources raise for such mistakes. Made by
 * {@code KinesisErrors}.
 */
public class KinesisIllegalArgumentException extends IllegalArgumentException implements KinesisThrowable {

  private final ErrorDetails details;

  public KinesisIllegalArgumentException(String condition, Map<String, String> parameters, Throwable cause) {
    this(new ErrorDetails(condition, parameters), cause);
  }

  private KinesisIllegalArgumentException(ErrorDetails details, Throwable cause) {
    super(details.message(), cause);
    this.details = details;
  }

  @Override
  public ErrorDetails details() {
    return details;
  }
}
