package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.netty.handler.codec.http2.Http2Exception;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.StreamResetException;
import io.vertx.grpc.common.GrpcErrorException;
import io.vertx.grpc.common.GrpcStatus;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;

/** Maps gRPC statuses and transport failures to the service's error codes. Messages never carry the api key. */
final class QdrantErrors {

  private static final int MAX_MESSAGE = 300;
  private static final long REFUSED_STREAM = 0x7;

  private QdrantErrors() {}

  static ServiceException fromStatus(GrpcStatus status, String message, MultiMap headers, MultiMap trailers,
      String collection) {
    return switch (status) {
      case NOT_FOUND -> collection == null
          ? ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, "Qdrant: " + clip(message))
          : collectionNotFound(collection);
      case UNAVAILABLE -> new ServiceException(ErrorCode.CONNECTION_ERROR, "Qdrant is unavailable");
      case DEADLINE_EXCEEDED -> timeout();
      // Qdrant cancels the calls it still holds when it stops gracefully: not an answer, an outage
      case CANCELLED -> closedMidCall();
      case RESOURCE_EXHAUSTED -> new ServiceException(ErrorCode.RATE_LIMIT, "Qdrant is rate limiting requests",
          null, retryAfter(headers, trailers));
      // about the request or the key, not Qdrant's health: permanent, so they never open the circuit
      case UNAUTHENTICATED, PERMISSION_DENIED -> ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, "Qdrant rejected the api key");
      case INVALID_ARGUMENT -> ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, "Qdrant rejected the request: " + clip(message));
      case INTERNAL, UNKNOWN, DATA_LOSS, ABORTED -> shardUnreachable(message)
          // permanent: asking again (or another node) meets the same dead shard, and Qdrant itself is up, so no circuit either
          ? ServiceException.permanent(ErrorCode.CONNECTION_ERROR, "Qdrant cannot reach every shard of "
              + (collection == null ? "the collection" : "collection '" + collection + "'")
              + ": a node holding a shard's only live replica is down (a collection needs replication_factor 2"
              + " or more to survive a node); Qdrant: " + clip(message))
          : new ServiceException(ErrorCode.UPSTREAM_ERROR, answered(status, message));
      default -> ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, answered(status, message));
    };
  }

  /**
   * Qdrant's answer when the node it asked for a shard could not be reached, e.g. "Service internal
   * error: 1 of 1 read operations failed: ... status: Unavailable, ... tcp connect error" (1.18): the
   * cluster lost a node that held the only live replica of a shard.
   */
  static boolean shardUnreachable(String message) {
    return message != null && message.contains("operations failed")
        && (message.contains("Unavailable") || message.contains("connect error"));
  }

  private static String answered(GrpcStatus status, String message) {
    return "Qdrant answered " + status.name() + (message == null || message.isBlank() ? "" : ": " + clip(message));
  }

  /** A failure that is not a gRPC status: the connection, the deadline, or something unexpected. */
  static ServiceException fromTransport(Throwable failure, boolean deadlinePassed) {
    if (failure instanceof ServiceException e) {
      // our own deadline also ends the call with CANCELLED: then it is a timeout, not an outage
      return deadlinePassed && e.code() == ErrorCode.CONNECTION_ERROR ? timeout() : e;
    }
    if (deadlinePassed || failure instanceof TimeoutException) {
      return timeout();
    }
    if (isReset(failure)) {
      return closedMidCall();
    }
    if (isConnectionFailure(failure)) {
      return new ServiceException(ErrorCode.CONNECTION_ERROR, "cannot reach Qdrant");
    }
    return new ServiceException(ErrorCode.UPSTREAM_ERROR, "unexpected failure talking to Qdrant");
  }

  static boolean isConnectionFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof ClosedChannelException
          || t instanceof HttpClosedException || t instanceof StreamResetException || t instanceof IOException
          // a call sent on a connection the server is closing (GOAWAY): it was never processed
          || t instanceof Http2Exception
          // the peer hung up before HTTP/2 started, e.g. a TLS-only server met by a plaintext client;
          // Vert.x's public API has no type for it, only this message (QdrantTlsTest pins it)
          || t instanceof io.vertx.core.VertxException && "Connection was closed".equals(t.getMessage())) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * The server turned the call away: its stream was closed by the server's GOAWAY, could no
   * longer be opened on a connection that had received GOAWAY, or was reset with REFUSED_STREAM
   * (RFC 9113, 8.7). Callers check this only before any response arrived, so the call can be
   * sent again on another connection.
   */
  static boolean isRefusedUnprocessed(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof HttpClosedException closed && closed.goAway() != null
          || t instanceof Http2Exception
          || t instanceof StreamResetException reset && reset.getCode() == REFUSED_STREAM) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** The call's stream was reset by the server mid-call (RST_STREAM; vert.x reports gRPC CANCELLED). */
  static boolean isReset(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof GrpcErrorException || t instanceof StreamResetException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** 503 with a Retry-After: the call never finished, another Qdrant (or this one, restarted) can answer it. */
  static ServiceException closedMidCall() {
    return new ServiceException(ErrorCode.CONNECTION_ERROR, CLOSED_MID_CALL, null, 1);
  }

  static final String CLOSED_MID_CALL = "Qdrant closed the call (restarting?)";

  static ServiceException collectionNotFound(String collection) {
    return new ServiceException(ErrorCode.COLLECTION_NOT_FOUND, "collection '" + collection + "' does not exist");
  }

  static ServiceException timeout() {
    return new ServiceException(ErrorCode.TIMEOUT, "Qdrant did not answer within the deadline");
  }

  /** retry-after in whole seconds (fractions round up); HTTP dates and junk are ignored. */
  static Integer retryAfter(MultiMap headers, MultiMap trailers) {
    String raw = headers == null ? null : headers.get("retry-after");
    if (raw == null && trailers != null) {
      raw = trailers.get("retry-after");
    }
    if (raw == null) {
      return null;
    }
    try {
      double seconds = Double.parseDouble(raw.trim());
      return seconds < 0 ? null : (int) Math.min(3600, Math.ceil(seconds));
    } catch (NumberFormatException notSeconds) {
      return null;
    }
  }

  private static String clip(String message) {
    if (message == null || message.isBlank()) {
      return "no reason given";
    }
    String oneLine = message.replaceAll("\\s+", " ").trim();
    return oneLine.length() <= MAX_MESSAGE ? oneLine : oneLine.substring(0, MAX_MESSAGE) + "...";
  }
}
