package dev.ragretrieval.error;

/**
 * A failure with its contract code. The message is safe to show a client: it never carries a
 * secret, a class name or a stack trace. No stack trace is captured: these travel through Futures
 * on hot paths and are never logged with one.
 */
public final class ServiceException extends RuntimeException {

  private final ErrorCode code;
  private final Object details;
  private final Integer retryAfterSeconds;
  private final boolean retryable;

  public ServiceException(ErrorCode code, String message) {
    this(code, message, null, null);
  }

  public ServiceException(ErrorCode code, String message, Object details) {
    this(code, message, details, null);
  }

  public ServiceException(ErrorCode code, String message, Object details, Integer retryAfterSeconds) {
    this(code, message, details, retryAfterSeconds, code.retryable());
  }

  private ServiceException(ErrorCode code, String message, Object details, Integer retryAfterSeconds,
      boolean retryable) {
    this(code, message, details, retryAfterSeconds, retryable, null);
  }

  private ServiceException(ErrorCode code, String message, Object details, Integer retryAfterSeconds,
      boolean retryable, Throwable cause) {
    super(message, cause, false, false);
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds;
    this.retryable = retryable;
  }

  /** A failure another attempt cannot mend (a rejected key, malformed JSON), whatever its code. */
  public static ServiceException permanent(ErrorCode code, String message) {
    return new ServiceException(code, message, null, null, false);
  }

  public ErrorCode code() {
    return code;
  }

  /** JSON-compatible extra information (a JsonObject, JsonArray, String or null). */
  public Object details() {
    return details;
  }

  /** Whether the same call may succeed when tried again: the code's default unless made {@link #permanent}. */
  public boolean retryable() {
    return retryable;
  }

  /** Seconds a client should wait, for RATE_LIMIT and OVERLOADED; null otherwise. */
  public Integer retryAfterSeconds() {
    return retryAfterSeconds;
  }

  /**
   * A bug of ours: INTERNAL, never retryable. The message names no class and carries no text of
   * the bug; the bug stays the cause, so the one place that logs it (the HTTP exchange) has its stack trace.
   */
  public static ServiceException internal(Throwable bug) {
    return new ServiceException(ErrorCode.INTERNAL, "internal error", null, null, false, bug);
  }

  /**
   * Maps any failure to a ServiceException. What is not one already is a bug of ours (INTERNAL):
   * adapters map their transport and protocol failures to contract codes before they get here.
   */
  public static ServiceException from(Throwable failure) {
    if (failure instanceof ServiceException e) {
      return e;
    }
    return internal(failure);
  }
}
