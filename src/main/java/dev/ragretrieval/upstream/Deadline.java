package dev.ragretrieval.upstream;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import java.time.Duration;

/**
 * When a request must be answered by, on the monotonic clock ({@link System#nanoTime()}), so a
 * wall-clock step (NTP) neither cuts requests short nor stretches them. The HTTP edge makes one per
 * request at admission and it goes unchanged to every upstream call and every vector-store method,
 * so "time left" and the TIMEOUT error are computed in one place and name the upstream that was
 * still working.
 */
public record Deadline(long nanos) {

  /** A deadline {@code timeout} from now. */
  public static Deadline in(Duration timeout) {
    return new Deadline(System.nanoTime() + timeout.toNanos());
  }

  /** A deadline {@code millis} from now. */
  public static Deadline inMillis(long millis) {
    return in(Duration.ofMillis(millis));
  }

  /** A deadline that has already passed (tests of the TIMEOUT path). */
  public static Deadline passed() {
    return new Deadline(System.nanoTime() - 1);
  }

  /** Milliseconds left, rounded down; zero or negative once passed. */
  public long remainingMillis() {
    return Math.floorDiv(remainingNanos(), 1_000_000L);
  }

  /** Nanoseconds left; zero or negative once passed. */
  public long remainingNanos() {
    return nanos - System.nanoTime();
  }

  public boolean expired() {
    return remainingNanos() <= 0;
  }

  /** The earlier of the two: a batch of requests is served within the first one's deadline. */
  public Deadline min(Deadline other) {
    return other.nanos - nanos < 0 ? other : this;
  }

  /** The later of the two: a call made for several requests may run until the last one's deadline. */
  public Deadline max(Deadline other) {
    return other.nanos - nanos > 0 ? other : this;
  }

  /** The TIMEOUT answer when the deadline passed while {@code upstream} ("Qdrant", "Cohere", ...) had the request. */
  public ServiceException timeout(String upstream) {
    return new ServiceException(ErrorCode.TIMEOUT, "the request deadline passed before " + upstream + " answered");
  }
}
