package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.upstream.EventLoopLocal;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.tracing.Spans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.qdrant.client.grpc.Collections.ListCollectionsRequest;
import io.qdrant.client.grpc.VxCollectionsGrpcClient;
import io.qdrant.client.grpc.VxPointsGrpcClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One unary gRPC call to Qdrant: picks a server, sends the api key as metadata, bounds the call
 * by the budget the upstream seam gives it, and turns every failure into a
 * {@link ServiceException}. A call that cannot reach its server, or hears UNAVAILABLE, is sent once
 * more to another server within the same budget (a Qdrant cluster's nodes all answer every
 * collection), so one node lost costs no request. A read that one server has not answered after the
 * hedge delay is sent to another as well ({@link #hedged}), so one slow node costs that delay, not
 * its seconds. The generated convenience stubs expose neither metadata nor
 * deadlines, so calls go through {@code GrpcClient.request(address, method)}.
 */
final class QdrantChannel {

  /** Qdrant answers with whole payloads; gRPC's 256 KiB default is too small for a batch. */
  private static final long MAX_MESSAGE_BYTES = 64L * 1024 * 1024;
  /**
   * How much of an answer Qdrant may send before this side acknowledges it (HTTP/2 flow control):
   * 1 MiB a call, as grpc-java allows, and 8 MiB over all of a connection's calls. HTTP/2's own
   * 64 KiB made this side send a WINDOW_UPDATE after nearly every search (a QueryBatch answer
   * carries each hit's payload, 40 to 200 KB for a few questions' chunks), and made Qdrant wait for
   * it before sending the rest of a larger answer.
   */
  static final int CALL_WINDOW_BYTES = 1024 * 1024;
  static final int CONNECTION_WINDOW_BYTES = 8 * 1024 * 1024;

  /** A probe of a node that left the rotation waits this long at most for its answer. */
  private static final long PROBE_TIMEOUT_MS = 1000;

  private static final Logger LOG = LoggerFactory.getLogger(QdrantChannel.class);

  /** The calls that change nothing, so that two nodes may both answer one: the only ones hedged. */
  private static final Set<ServiceMethod<?, ?>> READS = Set.of(VxPointsGrpcClient.Query, VxPointsGrpcClient.QueryBatch,
      VxPointsGrpcClient.Count, VxPointsGrpcClient.Facet, VxPointsGrpcClient.Scroll, VxCollectionsGrpcClient.Get,
      VxCollectionsGrpcClient.List);

  /** A client per event loop, so a call's HTTP/2 connection is on the caller's loop ({@link EventLoopLocal}). */
  private final EventLoopLocal<GrpcClient> clients;
  private final QdrantEndpoints endpoints;
  private final Optional<String> apiKey;
  private final Vertx vertx;
  /** 0: reads are never sent twice. */
  private final long hedgeAfterMillis;
  /** qdrant.timeout_ms: a call given all of it that goes unanswered has its node probed. */
  private final long timeoutMillis;
  private final HedgeBudget hedges = new HedgeBudget();
  /** Counts each read sent twice (a meter). */
  private final Runnable onHedge;

  /**
   * @param caCert with tls: PEM CA certificate(s) to trust instead of the JVM's default trust
   *     store (public CAs, right for Qdrant Cloud); host names are verified either way
   * @param hedgeAfter how long a read may go unanswered before another server is asked too; zero: never
   * @param onHedge told of each read sent to a second server
   */
  QdrantChannel(Vertx vertx, QdrantEndpoints endpoints, Optional<String> apiKey, boolean tls, Optional<Path> caCert,
      Duration timeout, Duration hedgeAfter, Runnable onHedge) {
    this.vertx = vertx;
    this.onHedge = onHedge;
    this.endpoints = endpoints;
    this.apiKey = apiKey;
    this.hedgeAfterMillis = hedgeAfter.toMillis();
    this.timeoutMillis = timeout.toMillis();
    HttpClientOptions http = new HttpClientOptions()
        .setProtocolVersion(HttpVersion.HTTP_2)
        .setHttp2ClearTextUpgrade(false) // h2c with prior knowledge, as Qdrant expects
        .setInitialSettings(new Http2Settings().setInitialWindowSize(CALL_WINDOW_BYTES))
        .setHttp2ConnectionWindowSize(CONNECTION_WINDOW_BYTES)
        .setConnectTimeout((int) Math.min(timeoutMillis, 10_000))
        .setSsl(tls)
        .setUseAlpn(tls)
        .setVerifyHost(true)
        // the call's own span (rpc.*, with traceparent in the metadata) stands for it; an HTTP/2
        // span under it would say the same again
        .setTracingPolicy(TracingPolicy.IGNORE);
    if (tls) {
      caCert.ifPresent(path -> http.setTrustOptions(new PemTrustOptions().addCertPath(path.toString())));
    }
    GrpcClientOptions grpc = new GrpcClientOptions()
        .setScheduleDeadlineAutomatically(true)
        .setMaxMessageSize(MAX_MESSAGE_BYTES);
    this.clients = new EventLoopLocal<>(vertx, () -> GrpcClient.client(vertx, new GrpcClientOptions(grpc),
        new HttpClientOptions(http)));
    long probeMillis = Math.max(1, Math.min(timeoutMillis, PROBE_TIMEOUT_MS));
    endpoints.probeWith(server -> probe(server, probeMillis));
  }

  /**
   * @param budgetMillis the most this call may take (the seam's per-attempt budget, within the request's deadline)
   * @param collection the collection the call is about, named in a COLLECTION_NOT_FOUND message
   */
  <Req, Resp> Future<Resp> call(ServiceMethod<Resp, Req> method, Req message, long budgetMillis, String collection) {
    Deadline callDeadline = Deadline.inMillis(budgetMillis);
    // each attempt's span is a child of the caller's, also when it starts in a callback
    io.opentelemetry.context.Context parent = Spans.parent();
    boolean wholeTimeout = budgetMillis >= timeoutMillis;
    return endpoints.next().compose(server -> {
      Future<Resp> answer = sent(parent, server, method, message, callDeadline, collection, wholeTimeout);
      return hedgeAfterMillis > 0 && READS.contains(method) && endpoints.several()
          ? hedged(answer, server, parent, method, message, callDeadline, collection, wholeTimeout)
          : answer;
    });
  }

  /**
   * The call to {@code server}, and once more to another server if that one cannot be reached.
   *
   * @param wholeTimeout the call has all of qdrant.timeout_ms (not less, as the rest of a request's
   *     deadline): if it goes unanswered, the server may be stalled, and is probed
   */
  private <Req, Resp> Future<Resp> sent(io.opentelemetry.context.Context parent, SocketAddress server,
      ServiceMethod<Resp, Req> method, Req message, Deadline callDeadline, String collection, boolean wholeTimeout) {
    return attempt(parent, server, method, message, callDeadline, collection, true)
        .recover(failure -> {
          ServiceException error = failed(server, method, failure, callDeadline, wholeTimeout);
          // one node down or unavailable: every call here may be sent again, so another node gets it
          SocketAddress other = error.code() == ErrorCode.CONNECTION_ERROR && error.retryable() && !callDeadline.expired()
              ? endpoints.other(server) : null;
          if (other == null) {
            return Future.failedFuture(error);
          }
          return attempt(parent, other, method, message, callDeadline, collection, true)
              .recover(again -> Future.failedFuture(failed(other, method, again, callDeadline, wholeTimeout)));
        });
  }

  /**
   * A read that {@code server} has not answered after the hedge delay is sent to another server
   * too, within the same deadline, and the first answer is used (hedged requests, as in "The Tail
   * at Scale"). The first call is not cancelled: its end tells {@link QdrantEndpoints#holding} that
   * the slow server answers again, and until then calls pass it over (with or without a second call
   * for this read). A failure is reported only
   * once every call sent has failed. {@link HedgeBudget} keeps a cluster that is slow everywhere from
   * getting every read twice.
   */
  private <Req, Resp> Future<Resp> hedged(Future<Resp> first, SocketAddress server,
      io.opentelemetry.context.Context parent, ServiceMethod<Resp, Req> method, Req message, Deadline callDeadline,
      String collection, boolean wholeTimeout) {
    if (first.isComplete()) {
      return first;
    }
    Race<Resp> race = new Race<>();
    long timer = vertx.setTimer(hedgeAfterMillis, fired -> {
      if (first.isComplete() || callDeadline.expired()) {
        return;
      }
      SocketAddress other = endpoints.other(server);
      if (other == null) {
        return;
      }
      // passed over until it answers, also when the budget allows no second call
      endpoints.holding(server, first);
      if (!hedges.take() || !race.another()) {
        return;
      }
      onHedge.run();
      sent(parent, other, method, message, callDeadline, collection, wholeTimeout).onComplete(race::ended);
    });
    first.onComplete(result -> {
      if (vertx.cancelTimer(timer) && result.succeeded()) {
        hedges.answeredInTime();
      }
      race.ended(result);
    });
    return race.answer.future();
  }

  /** The calls of one hedged read: the first success answers; the first failure once all failed. */
  private static final class Race<T> {
    final Promise<T> answer = Promise.promise();
    private int running = 1;
    private Throwable failure;

    /** One more call is sent, unless the read is already answered or has failed. */
    synchronized boolean another() {
      if (running == 0 || answer.future().isComplete()) {
        return false;
      }
      running++;
      return true;
    }

    void ended(AsyncResult<T> result) {
      Throwable failed = null;
      synchronized (this) {
        running--;
        if (result.failed()) {
          failure = failure == null ? result.cause() : failure;
          failed = running == 0 ? failure : null;
        }
      }
      // completed outside the lock: the answer's listeners are the rest of the request
      if (result.succeeded()) {
        answer.tryComplete(result.result());
      } else if (failed != null) {
        answer.tryFail(failed);
      }
    }
  }

  /**
   * How many reads may be sent twice: a token bucket, as gRPC's retry throttling. Ten to start
   * with, one spent per read sent twice, a tenth of one earned per read answered before its hedge
   * delay: so at most about one read in ten goes twice while every node is slow, and a single
   * slow node's first calls go elsewhere at once.
   */
  private static final class HedgeBudget {
    private static final int TENTHS = 10;
    private static final int FULL = 10 * TENTHS;
    private final AtomicInteger tenths = new AtomicInteger(FULL);

    boolean take() {
      while (true) {
        int now = tenths.get();
        if (now < TENTHS) {
          return false;
        }
        if (tenths.compareAndSet(now, now - TENTHS)) {
          return true;
        }
      }
    }

    void answeredInTime() {
      int now = tenths.get();
      // full is the usual state: a read, not a write, on the way of every call
      if (now < FULL) {
        tenths.compareAndSet(now, now + 1);
      }
    }
  }

  /**
   * The failure as the service's error. A server that could not be reached leaves the rotation; one
   * that left a call unanswered for all of qdrant.timeout_ms (with several addresses) is probed, and
   * leaves it if the probe goes unanswered too ({@link QdrantEndpoints#unanswered}): a frozen machine
   * or a stopped process keeps its connections open, and every call in turn would wait on it.
   */
  private ServiceException failed(SocketAddress server, ServiceMethod<?, ?> method, Throwable failure,
      Deadline callDeadline, boolean wholeTimeout) {
    ServiceException error = QdrantErrors.fromTransport(failure, callDeadline.expired());
    // a gRPC status is an answer: the node is up (its UNAVAILABLE is about shards elsewhere)
    boolean answered = failure instanceof ServiceException;
    if (error.code() == ErrorCode.CONNECTION_ERROR && !answered) {
      endpoints.unreachable(server);
    } else if (error.code() == ErrorCode.TIMEOUT && !answered && wholeTimeout && endpoints.several()) {
      endpoints.unanswered(server);
    }
    if (error.getMessage().equals(QdrantErrors.CLOSED_MID_CALL)) {
      // one line per closed call: under a graceful stop many calls end this way at once
      LOG.warn("Qdrant closed a {} call mid-way (stream reset, gRPC CANCELLED); it is sent again while attempts and time are left",
          method.methodName());
    }
    return error;
  }

  /** A cheap call to one server: it succeeds when the server answers at all, even with an error status. */
  private Future<?> probe(SocketAddress server, long timeoutMillis) {
    return clients.call(client -> client.request(server, VxCollectionsGrpcClient.List)
        .compose(request -> {
          apiKey.ifPresent(key -> request.headers().set("api-key", key));
          request.timeout(timeoutMillis, TimeUnit.MILLISECONDS);
          return request.send(ListCollectionsRequest.getDefaultInstance());
        })
        .compose(response -> response.last().transform(done -> {
          GrpcStatus status = response.status();
          return status == null || status == GrpcStatus.UNAVAILABLE
              ? Future.failedFuture("Qdrant at " + server + " is not serving") : Future.succeededFuture();
        })));
  }

  /**
   * One send. A pooled connection can receive the server's GOAWAY (Qdrant restarting, a rolling
   * update) after the pool handed it out: the call is then refused before Qdrant processed it.
   * Such a call is sent once more, on a fresh connection, within the same deadline; it does not
   * use up one of the retry policy's attempts, which are for failures Qdrant actually reported.
   */
  private <Req, Resp> Future<Resp> attempt(io.opentelemetry.context.Context parent, SocketAddress server,
      ServiceMethod<Resp, Req> method, Req message,
      Deadline callDeadline, String collection, boolean mayResend) {
    if (callDeadline.expired()) {
      return Future.failedFuture(QdrantErrors.timeout());
    }
    // rounded up: a timer of the rounded-down millis can fire just before the deadline, and the
    // call it cancels would then read as a lost connection (CONNECTION_ERROR) instead of TIMEOUT
    long budget = Math.floorDiv(callDeadline.remainingNanos() + 999_999L, 1_000_000L);
    return Spans.around(parent, method.serviceName().fullyQualifiedName() + "/" + method.methodName(),
        SpanKind.CLIENT, span -> {
          describe(span, method, server, collection);
          return clients.call(client -> client.request(server, method).compose(request -> {
            apiKey.ifPresent(key -> request.headers().set("api-key", key));
            Spans.inject(span, request.headers());
            request.timeout(budget, TimeUnit.MILLISECONDS);
            return request.send(message)
                // no response headers yet: the failure may be a refusal of a call never processed
                .recover(failure -> Future.failedFuture(QdrantErrors.isRefusedUnprocessed(failure)
                    ? new Refused(failure) : failure))
                .compose(response -> response.last()
                    .onSuccess(last -> span.setAttribute(Spans.RPC_GRPC_STATUS, (long) GrpcStatus.OK.code))
                    .recover(failure -> Future.failedFuture(statusFailure(span, response, failure, collection))));
          }));
        })
        .recover(failure -> {
          if (failure instanceof Refused refused) {
            return mayResend
                ? attempt(parent, server, method, message, callDeadline, collection, false)
                : Future.failedFuture(refused.getCause());
          }
          return Future.failedFuture(failure);
        });
  }

  /** The semantic conventions' RPC attributes, and the database ones: Qdrant is the store. */
  private static void describe(Span span, ServiceMethod<?, ?> method, SocketAddress server, String collection) {
    if (!span.isRecording()) {
      return;
    }
    span.setAttribute(Spans.RPC_SYSTEM, "grpc");
    span.setAttribute(Spans.RPC_SERVICE, method.serviceName().fullyQualifiedName());
    span.setAttribute(Spans.RPC_METHOD, method.methodName());
    span.setAttribute(Spans.SERVER_ADDRESS, server.host() != null ? server.host() : String.valueOf(server));
    span.setAttribute(Spans.SERVER_PORT, (long) server.port());
    span.setAttribute(Spans.DB_SYSTEM, "qdrant");
    span.setAttribute(Spans.DB_OPERATION, method.methodName());
    if (collection != null) {
      span.setAttribute(Spans.DB_COLLECTION, collection);
    }
  }

  /** Marks a call the server refused before processing it, so it is safe to send again. */
  private static final class Refused extends RuntimeException {
    Refused(Throwable cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  Future<Void> close() {
    endpoints.close();
    return Future.join(clients.all().stream().map(GrpcClient::close).toList()).mapEmpty();
  }

  /** A status becomes its error; anything else is left to {@link QdrantErrors#fromTransport}. */
  private static Throwable statusFailure(Span span, GrpcClientResponse<?, ?> response, Throwable failure,
      String collection) {
    if (failure instanceof InvalidStatusException invalid) {
      span.setAttribute(Spans.RPC_GRPC_STATUS, (long) invalid.actualStatus().code);
      // the exception carries the status only; the text is on the response
      return QdrantErrors.fromStatus(invalid.actualStatus(), response.statusMessage(), response.headers(),
          response.trailers(), collection);
    }
    return failure;
  }
}
