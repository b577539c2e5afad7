package io.github.sparkkinesis.errors;

import java.util.Collections;
import java.util.Map;

/**
 * An error of the connector while it runs: Kinesis could not be reached or refused a call, records are lost,
 * a checkpoint does not fit the stream, a write failed. Its message is {@code [CONDITION] what happened and
 * what to do}, and never carries a secret. Raised on the driver and on executors (it is serializable, so an
 * executor's error reaches the driver whole). Made by {@code KinesisErrors}.
 */
public class KinesisException extends RuntimeException implements KinesisThrowable {

  private final String condition;
  private final Map<String, String> parameters;

  public KinesisException(String condition, Map<String, String> parameters, Throwable cause) {
    super(ErrorConditions.message(condition, parameters), cause);
    this.condition = condition;
    this.parameters = Collections.unmodifiableMap(new java.util.LinkedHashMap<>(parameters));
  }

  @Override
  public String getCondition() {
    return condition;
  }

  @Override
  public Map<String, String> getMessageParameters() {
    return parameters;
  }
}
