// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The connector's error conditions, read from {@code error/kinesis-error-conditions.json} in the jar: each
 * condition's message template, whose {@code <parameter>}s a message fills in, and its SQLSTATE. The file has
 * the layout of Spark's own error-conditions files: a condition may have sub-conditions, named
 * {@code CONDITION.SUB}, whose message is the condition's followed by their own. Java, so that the Spark-line check can word its error
 * before any Scala class is loaded.
 */
final class ErrorConditions {

  private ErrorConditions() {}

  static final String RESOURCE = "error/kinesis-error-conditions.json";

  private static final Pattern PARAMETER = Pattern.compile("<([a-zA-Z]+)>");

  /** A condition's message template and SQLSTATE. */
  static final class Condition {
    final String template;
    final String sqlState;

    Condition(String template, String sqlState) {
      this.template = template;
      this.sqlState = sqlState;
    }
  }

  private static final class Holder {
    static final Map<String, Condition> ALL = load();
  }

  /** Every condition and sub-condition by name, in name order. */
  static Map<String, Condition> all() {
    return Holder.ALL;
  }

  /**
   * {@code [CONDITION] message}: the condition's template with each parameter filled in.
   *
   * @throws IllegalStateException if the condition is unknown or a parameter of its template is not given,
   *     a mistake of the connector's own
   */
  static String message(String condition, Map<String, String> parameters) {
    Condition c = Holder.ALL.get(condition);
    if (c == null) throw new IllegalStateException("Unknown error condition " + condition);
    Matcher m = PARAMETER.matcher(c.template);
    StringBuilder out = new StringBuilder("[").append(condition).append("] ");
    while (m.find()) {
      String value = parameters.get(m.group(1));
      if (value == null) {
        throw new IllegalStateException(
            "Error condition " + condition + " needs the parameter " + m.group(1) + ", given " + parameters.keySet());
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The parameters a condition's template names, in order of first use. */
  static List<String> parameters(String condition) {
    List<String> names = new ArrayList<>();
    Matcher m = PARAMETER.matcher(Holder.ALL.get(condition).template);
    while (m.find()) if (!names.contains(m.group(1))) names.add(m.group(1));
    return names;
  }

  /** The SQLSTATE of a condition, or null for one that is not the connector's. */
  static String sqlState(String condition) {
    Condition c = Holder.ALL.get(condition);
    return c == null ? null : c.sqlState;
  }

  /** A condition's or sub-condition's message: its lines, joined. */
  @SuppressWarnings("unchecked")
  private static String template(Map<String, Object> declared) {
    return String.join("\n", (List<String>) declared.get("message"));
  }

  private static Map<String, Condition> load() {
    try (InputStream in = ErrorConditions.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the connector jar");
      Map<String, Map<String, Object>> declared =
          new ObjectMapper().readValue(in, new TypeReference<TreeMap<String, Map<String, Object>>>() {});
      Map<String, Condition> conditions = new TreeMap<>();
      for (Map.Entry<String, Map<String, Object>> e : declared.entrySet()) {
        String template = template(e.getValue());
        String sqlState = (String) e.getValue().get("sqlState");
        conditions.put(e.getKey(), new Condition(template, sqlState));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> subClasses = (Map<String, Map<String, Object>>) e.getValue().get("subClass");
        if (subClasses != null) {
          for (Map.Entry<String, Map<String, Object>> sub : subClasses.entrySet()) {
            conditions.put(
                e.getKey() + "." + sub.getKey(), new Condition(template + " " + template(sub.getValue()), sqlState));
          }
        }
      }
      return Collections.unmodifiableMap(conditions);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + RESOURCE, e);
    }
  }
}
