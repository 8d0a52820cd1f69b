package dev.ragretrieval.config;

/** A bad or missing setting: its message is the one line printed before start-up stops. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message, null, false, false);
  }
}
