package dev.ragretrieval.embedding;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.tracing.Spans;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import java.util.List;

/**
 * The caller's side of {@link EmbeddingVerticle#ADDRESS}: what the HTTP pipeline, ingestion and
 * the CLI use to embed texts. Every failure is a {@link ServiceException} carrying the code,
 * message and retry-after the provider reported; TIMEOUT when the deadline passes first. Query
 * texts that are all in the verticle's {@link QueryCache} are answered here, on the caller's
 * event loop, without the event bus.
 */
public final class EmbeddingClient {

  private final Vertx vertx;
  private final QueryCache queryCache;
  private final EmbeddingLanes lanes;

  /** A client that always asks the verticle. */
  public EmbeddingClient(Vertx vertx) {
    this(vertx, QueryCache.off());
  }

  /** A client that first reads {@code queryCache}, the one the verticle fills. */
  public EmbeddingClient(Vertx vertx, QueryCache queryCache) {
    this(vertx, queryCache, EmbeddingLanes.none());
  }

  /**
   * As {@link #EmbeddingClient(Vertx, QueryCache)}, asking the verticle of the caller's own event
   * loop when {@code lanes} has one ({@link EmbeddingVerticle#deployPerEventLoop}).
   */
  public EmbeddingClient(Vertx vertx, QueryCache queryCache, EmbeddingLanes lanes) {
    this.vertx = vertx;
    this.queryCache = queryCache;
    this.lanes = lanes;
    EmbeddingCodecs.register(vertx);
  }

  /**
   * Embeds {@code texts} (one vector per text, in order). The event-bus send timeout is the time
   * left to {@code deadline}. Vectors are shared, not copied: do not
   * modify them.
   */
  public Future<EmbedResponse> embed(List<String> texts, InputType type, Deadline deadline) {
    if (texts == null || type == null || texts.stream().anyMatch(t -> t == null)) {
      return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, "texts to embed must not be null"));
    }
    long left = deadline.remainingMillis();
    if (left <= 0) {
      return Future.failedFuture(timeout());
    }
    if (type == InputType.SEARCH_QUERY) {
      EmbedResponse cached = queryCache.answer(texts);
      if (queryCache.enabled() && Spans.enabled()) {
        Spans.instant("query cache").setAttribute(Spans.CACHE_HIT, cached != null)
            .setAttribute(Spans.TEXTS, texts.size()).end();
      }
      if (cached != null) {
        return Future.succeededFuture(cached);
      }
    }
    // the event bus's own spans (send, receive) and the provider's nest under this one
    return Spans.around("embed", span -> {
      span.setAttribute(Spans.TEXTS, texts.size());
      span.setAttribute(Spans.INPUT_TYPE, type.name());
      DeliveryOptions options = new DeliveryOptions().setSendTimeout(left).setLocalOnly(true);
      return vertx.eventBus()
          .<EmbedResponse>request(lanes.address(), new EmbedRequest(texts, type, deadline), options)
          .map(Message::body)
          .recover(failure -> Future.failedFuture(toServiceException(failure)));
    });
  }

  /** Whether query vectors are cached at all (RAG_QUERY_CACHE_SIZE above 0). */
  public boolean cachesQueries() {
    return queryCache.enabled();
  }

  /** Whether {@code query}'s vector (as a SEARCH_QUERY) is in the query cache now; counts nothing. */
  public boolean cached(String query) {
    return queryCache.enabled() && queryCache.get(QueryKey.of(query)) != null;
  }

  static ServiceException toServiceException(Throwable failure) {
    if (failure instanceof EmbeddingFailure carried) {
      return carried.error();
    }
    if (failure instanceof ReplyException reply) {
      return switch (reply.failureType()) {
        case TIMEOUT -> timeout();
        case NO_HANDLERS -> new ServiceException(ErrorCode.CONNECTION_ERROR, "the embedding service is not running");
        default -> new ServiceException(ErrorCode.UPSTREAM_ERROR, "embedding failed");
      };
    }
    return ServiceException.from(failure);
  }

  private static ServiceException timeout() {
    return new ServiceException(ErrorCode.TIMEOUT, "the request deadline passed before embedding finished");
  }
}
