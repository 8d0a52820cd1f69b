package dev.ragretrieval.embedding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.embedding.http.RetryAfter;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RetryAfterTest {

  private static final Instant NOW = Instant.parse("2025-06-01T12:00:00Z");

  @Test
  @DisplayName("Retry-After in seconds is read as is")
  void seconds() {
    assertThat(RetryAfter.seconds("3", NOW)).isEqualTo(3);
    assertThat(RetryAfter.seconds(" 0 ", NOW)).isZero();
  }

  @Test
  @DisplayName("Retry-After as an HTTP date becomes the seconds until then, rounded up")
  void httpDate() {
    assertThat(RetryAfter.seconds("Sun, 01 Jun 2025 12:00:05 GMT", NOW)).isEqualTo(5);
    assertThat(RetryAfter.seconds("Sun, 01 Jun 2025 11:59:00 GMT", NOW)).isZero();
  }

  @Test
  @DisplayName("an absent or unreadable Retry-After is null; a huge one is capped")
  void unreadable() {
    assertThat(RetryAfter.seconds(null, NOW)).isNull();
    assertThat(RetryAfter.seconds("soon", NOW)).isNull();
    assertThat(RetryAfter.seconds("99999999999999999999", NOW)).isEqualTo(3600);
  }
}
