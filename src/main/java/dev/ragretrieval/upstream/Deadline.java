package dev.ragretrieval.upstream;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import java.time.Duration;

/**
 * When a request must be answered by, as absolute epoch millis. The HTTP verticle (or a CLI verb)
 * makes one per request and it goes unchanged to every upstream call, so "time left" and the
 * TIMEOUT error are computed in one place and name the upstream that was still working.
 */
public record Deadline(long epochMillis) {

  /** A deadline {@code timeout} from now. */
  public static Deadline in(Duration timeout) {
    return new Deadline(System.currentTimeMillis() + timeout.toMillis());
  }

  /** Milliseconds left; zero or negative once passed. */
  public long remainingMillis() {
    return epochMillis - System.currentTimeMillis();
  }

  public boolean expired() {
    return remainingMillis() <= 0;
  }

  /** The earlier of the two: a batch of requests is served within the first one's deadline. */
  public Deadline min(Deadline other) {
    return other.epochMillis < epochMillis ? other : this;
  }

  /** The TIMEOUT answer when the deadline passed while {@code upstream} ("Qdrant", "Cohere", ...) had the request. */
  public ServiceException timeout(String upstream) {
    return new ServiceException(ErrorCode.TIMEOUT, "the request deadline passed before " + upstream + " answered");
  }
}
