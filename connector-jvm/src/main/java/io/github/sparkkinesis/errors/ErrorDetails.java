// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors;

import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What tells one of the connector's errors from another: its condition and the values of its message's
 * parameters. Both of its exception classes hold one, so that what they are is written once.
 */
public final class ErrorDetails implements Serializable {

  private static final long serialVersionUID = 1L;

  final String condition;
  final Map<String, String> parameters;

  ErrorDetails(String condition, Map<String, String> parameters) {
    this.condition = condition;
    this.parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
  }

  /** {@code [CONDITION] message}, the condition's template filled in. */
  String message() {
    return ErrorConditions.message(condition, parameters);
  }
}
