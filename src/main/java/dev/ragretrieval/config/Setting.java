package dev.ragretrieval.config;

import java.util.List;

/**
 * One row of the settings table ({@link Settings}): where it lives in {@code conf/config.yaml}, the
 * environment variable that overrides it (if any), its default, what values it takes and what it
 * means. {@link ConfigLoader} reads and checks every setting from this row, its error messages name
 * the setting the way the row does, and the README's configuration table is rendered from the same
 * rows (a test keeps them equal), so a setting is described in one place.
 *
 * @param path dotted YAML path, e.g. {@code http.port}
 * @param env the overriding environment variable, or null for a file-only setting
 * @param kind how the value is read
 * @param defaultValue the value when neither file nor environment sets it; null = unset
 * @param min lower bound of a number (inclusive)
 * @param max upper bound of a number (inclusive)
 * @param choices the accepted words of a {@link Kind#CHOICE}, lower case
 * @param defaultText the default as the README shows it (e.g. "available processors")
 * @param meaning one line for the README
 */
public record Setting(
    String path,
    String env,
    Kind kind,
    Object defaultValue,
    double min,
    double max,
    List<String> choices,
    String defaultText,
    String meaning) {

  /** How a setting's text is read. */
  public enum Kind {
    /** A whole number within [min, max]. */
    INT,
    /** A whole number of milliseconds, at least 1. */
    MILLIS,
    /** A number within [min, max]. */
    NUMBER,
    BOOL,
    STRING,
    /** A string that may be unset. */
    OPTIONAL,
    /** Like OPTIONAL, but never shown or logged. */
    SECRET,
    /** A list: a YAML sequence, or comma-separated in the environment. */
    LIST,
    /** One of {@link Setting#choices()}, case-insensitive. */
    CHOICE,
    /** An http(s) URL; a trailing slash is dropped. */
    URL,
    /** A readable file; may be unset. */
    FILE,
    /** A YAML mapping read by its own code (e.g. retrieval.payload_keys). */
    MAPPING
  }

  /** The name errors use: the environment variable where there is one, else the YAML path. */
  public String name() {
    return env != null ? env : path;
  }

  static Setting integer(String path, String env, int def, int min, int max, String meaning) {
    return new Setting(path, env, Kind.INT, def, min, max, List.of(), String.valueOf(def), meaning);
  }

  /** A whole number that may be left unset (no default). */
  static Setting optionalInt(String path, String env, int min, int max, String meaning) {
    return new Setting(path, env, Kind.INT, null, min, max, List.of(), "unset", meaning);
  }

  static Setting millis(String path, String env, int def, String meaning) {
    return new Setting(path, env, Kind.MILLIS, def, 1, Integer.MAX_VALUE, List.of(), String.valueOf(def), meaning);
  }

  static Setting number(String path, String env, double def, double min, double max, String meaning) {
    return new Setting(path, env, Kind.NUMBER, def, min, max, List.of(), trim(def), meaning);
  }

  static Setting bool(String path, String env, boolean def, String meaning) {
    return new Setting(path, env, Kind.BOOL, def, 0, 0, List.of(), String.valueOf(def), meaning);
  }

  static Setting string(String path, String env, String def, String meaning) {
    return new Setting(path, env, Kind.STRING, def, 0, 0, List.of(), def, meaning);
  }

  static Setting optional(String path, String env, String meaning) {
    return new Setting(path, env, Kind.OPTIONAL, null, 0, 0, List.of(), "unset", meaning);
  }

  static Setting secret(String path, String env, String meaning) {
    return new Setting(path, env, Kind.SECRET, null, 0, 0, List.of(), "unset", meaning);
  }

  static Setting list(String path, String env, List<String> def, String meaning) {
    return new Setting(path, env, Kind.LIST, def, 0, 0, List.of(), def.isEmpty() ? "unset" : String.join(",", def),
        meaning);
  }

  /** {@code def} null = unset; the first choice is not special. */
  static Setting choice(String path, String env, String def, List<String> choices, String meaning) {
    return new Setting(path, env, Kind.CHOICE, def, 0, 0, List.copyOf(choices), def == null ? "unset" : def, meaning);
  }

  static Setting url(String path, String env, String def, String meaning) {
    return new Setting(path, env, Kind.URL, def, 0, 0, List.of(), def, meaning);
  }

  static Setting file(String path, String env, String meaning) {
    return new Setting(path, env, Kind.FILE, null, 0, 0, List.of(), "unset", meaning);
  }

  static Setting mapping(String path, String meaning) {
    return new Setting(path, null, Kind.MAPPING, null, 0, 0, List.of(), "see conf/config.yaml", meaning);
  }

  /** The same row with another README default text (e.g. a default computed at start-up). */
  Setting shownAs(String text) {
    return new Setting(path, env, kind, defaultValue, min, max, choices, text, meaning);
  }

  /** What values the README says the setting takes. */
  public String allowed() {
    return switch (kind) {
      case INT -> (long) min + "-" + (long) max;
      case MILLIS -> "ms, >= 1";
      case NUMBER -> trim(min) + "-" + trim(max);
      case BOOL -> "true, false";
      case CHOICE -> String.join(", ", choices);
      case LIST -> "comma-separated";
      case URL -> "http(s) URL";
      case FILE -> "readable file";
      case STRING, OPTIONAL, SECRET, MAPPING -> "";
    };
  }

  private static String trim(double value) {
    return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
  }
}
