package io.github.sparkkinesis.errors;

import java.util.Collections;
import java.util.Map;

/**
 * An argument the connector refuses before it does anything: an option at {@code .load()} or {@code .save()},
 * a DataFrame the sink cannot write, a row that cannot be a Kinesis record, a consumer name. An
 * {@link IllegalArgumentException}, as Spark's own sources raise for such mistakes. Made by
 * {@code KinesisErrors}.
 */
public class KinesisIllegalArgumentException extends IllegalArgumentException implements KinesisThrowable {

  private final String condition;
  private final Map<String, String> parameters;

  public KinesisIllegalArgumentException(String condition, Map<String, String> parameters, Throwable cause) {
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
