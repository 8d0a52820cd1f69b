package dev.ragretrieval.embedding.http;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** Reads an HTTP {@code Retry-After} header: delay-seconds or an HTTP-date (RFC 9110 section 10.2.3). */
public final class RetryAfter {

  /** Longer waits than this are treated as this: nobody holds a request for a day. */
  static final int MAX_SECONDS = 3600;

  private RetryAfter() {}

  /** Whole seconds to wait (rounded up, at least 0), or null when the header is absent or unreadable. */
  public static Integer seconds(String header, Instant now) {
    if (header == null || header.isBlank()) {
      return null;
    }
    String value = header.trim();
    if (value.chars().allMatch(Character::isDigit)) {
      try {
        return (int) Math.min(Long.parseLong(value), MAX_SECONDS);
      } catch (NumberFormatException tooLong) {
        return MAX_SECONDS;
      }
    }
    try {
      Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      long millis = at.toEpochMilli() - now.toEpochMilli();
      return (int) Math.min(Math.max(0, (millis + 999) / 1000), MAX_SECONDS);
    } catch (DateTimeParseException unreadable) {
      return null;
    }
  }
}
