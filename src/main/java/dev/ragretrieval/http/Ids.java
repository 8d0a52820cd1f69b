package dev.ragretrieval.http;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Random version-4 UUIDs for request and query ids. They name log lines and feedback, they guard
 * nothing, so they come from {@link ThreadLocalRandom}: {@link UUID#randomUUID()} draws from the
 * shared SecureRandom, which cost 3% of an uncached request on the event loop.
 */
final class Ids {

  private Ids() {}

  static String random() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long high = (random.nextLong() & ~0xF000L) | 0x4000L; // version 4
    long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
    return new UUID(high, low).toString();
  }
}
