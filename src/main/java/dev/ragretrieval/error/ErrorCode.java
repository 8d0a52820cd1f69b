package dev.ragretrieval.error;

/** Every failure the service reports ends in one of these codes (docs/API.md section 7). */
public enum ErrorCode {
  INVALID_REQUEST(400),
  EMPTY_QUERY(400),
  QUERY_TOO_LONG(400),
  INVALID_TOP_K(400),
  INVALID_THRESHOLD(400),
  UNAUTHORIZED(401),
  NOT_FOUND(404),
  COLLECTION_NOT_FOUND(404),
  PAYLOAD_TOO_LARGE(413),
  UNSUPPORTED_MEDIA_TYPE(415),
  RATE_LIMIT(429),
  /** A bug of ours (a NullPointerException, say): never retried, never held against an upstream. */
  INTERNAL(500),
  UPSTREAM_ERROR(502),
  CONNECTION_ERROR(503),
  OVERLOADED(503),
  TIMEOUT(504);

  private final int httpStatus;

  ErrorCode(int httpStatus) {
    this.httpStatus = httpStatus;
  }

  public int httpStatus() {
    return httpStatus;
  }

  /**
   * The code named in an error body our service sent (eval and query over {@code --url}); a missing
   * or unknown name, say from a newer server, is UPSTREAM_ERROR: the server answered wrongly for us.
   */
  public static ErrorCode fromWire(String name) {
    if (name != null) {
      for (ErrorCode code : values()) {
        if (code.name().equals(name)) {
          return code;
        }
      }
    }
    return UPSTREAM_ERROR;
  }

  /** Failures worth another attempt against the same upstream. */
  public boolean retryable() {
    return this == RATE_LIMIT || this == UPSTREAM_ERROR || this == CONNECTION_ERROR;
  }
}
