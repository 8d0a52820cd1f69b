package dev.ragretrieval.embedding;

import dev.ragretrieval.upstream.Coalescer;
import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.tracing.Spans;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import java.time.Duration;
import java.util.List;

/**
 * The caller's side of {@link EmbeddingVerticle#ADDRESS}: what the HTTP pipeline, ingestion and
 * the CLI use to embed texts. Every failure is a {@link ServiceException} carrying the code,
 * message and retry-after the provider reported; TIMEOUT when the deadline passes first. Query
 * texts that are all in the verticle's {@link QueryCache} are answered here, on the caller's
 * event loop, without the event bus. Given a coalescing window, the questions that one event loop
 * asks in one turn, or within the window while its last request is out, go to the verticle as one
 * request: an event-bus request costs a reply address, a timer and two hand-offs, about 4% of a
 * new question's CPU when each question made its own (bench/HISTORY.md, thirteenth pass).
 */
public final class EmbeddingClient {

  private final Vertx vertx;
  private final QueryCache queryCache;
  private final EmbeddingLanes lanes;
  /** Questions of one loop sent together; null: each request is sent as it comes. */
  private final Coalescer<EmbedRequest, EmbedResponse> questions;

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
    this(vertx, queryCache, lanes, null);
  }

  /**
   * As {@link #EmbeddingClient(Vertx, QueryCache, EmbeddingLanes)}, sending the questions
   * ({@link InputType#SEARCH_QUERY}) asked on one event loop in one turn as one request, and, while
   * a request of that loop is out, those of the next {@code coalesceWindow} too
   * (RAG_COALESCE_WINDOW_MS; {@link Coalescer}).
   */
  public EmbeddingClient(Vertx vertx, QueryCache queryCache, EmbeddingLanes lanes, Duration coalesceWindow) {
    this.vertx = vertx;
    this.queryCache = queryCache;
    this.lanes = lanes;
    this.questions = coalesceWindow == null ? null
        : new Coalescer<>(this::send, this::sendTogether, Coalescer::permanentRefusal, coalesceWindow);
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
      if (questions != null) {
        return questions.call(new EmbedRequest(texts, type, deadline));
      }
    }
    return send(new EmbedRequest(texts, type, deadline));
  }

  /** One event-bus request to the verticle; the send timeout is the time left to the request's deadline. */
  private Future<EmbedResponse> send(EmbedRequest request) {
    long left = request.deadline().remainingMillis();
    if (left <= 0) {
      return Future.failedFuture(timeout());
    }
    // the event bus's own spans (send, receive) and the provider's nest under this one
    return Spans.around("embed", span -> {
      span.setAttribute(Spans.TEXTS, request.texts().size());
      span.setAttribute(Spans.INPUT_TYPE, request.inputType().name());
      DeliveryOptions options = new DeliveryOptions().setSendTimeout(left).setLocalOnly(true);
      return vertx.eventBus()
          .<EmbedResponse>request(lanes.address(), request, options)
          .map(Message::body)
          .recover(failure -> Future.failedFuture(toServiceException(failure)));
    });
  }

  /** Several questions' texts in one request, until the latest deadline; each gets its own vectors back. */
  private Future<List<EmbedResponse>> sendTogether(List<EmbedRequest> requests) {
    return send(EmbedRequest.together(requests)).map(all -> all.split(requests));
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
