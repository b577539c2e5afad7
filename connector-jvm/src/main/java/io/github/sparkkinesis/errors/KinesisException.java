// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors;

import java.util.Map;

/**
 * An error of the connector while it runs: Kinesis could not be reached or refused a call, records are lost,
 * a checkpoint does not fit the stream, a write failed. Its message is {@code [CONDITION] what happened and
 * what to do}, and never carries a secret. Raised on the driver and on executors (it is serializable, so an
 * executor's error reaches the driver whole). Made by {@code KinesisErrors}.
 */
public class KinesisException extends RuntimeException implements KinesisThrowable {

  private final ErrorDetails details;

  public KinesisException(String condition, Map<String, String> parameters, Throwable cause) {
    this(new ErrorDetails(condition, parameters), cause);
  }

  private KinesisException(ErrorDetails details, Throwable cause) {
    super(details.message(), cause);
    this.details = details;
  }

  @Override
  public ErrorDetails details() {
    return details;
  }
}
