package dev.ragretrieval.http;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Admission through the process-wide {@link RequestGate}, the request's one {@link Deadline}
 * (created here, read by every later step through {@link #deadline}) and the request log line.
 * What admission took is given back exactly once, when the response is over.
 */
final class AdmissionHandler implements Handler<RoutingContext> {

  private static final String DEADLINE = "rag.deadline";

  private final Vertx vertx;
  private final RequestGate gate;
  private final Duration timeout;
  private final RagMetrics metrics;
  /** This event loop's requests in flight, one timer for all (one handler per verticle instance). */
  private final RequestDeadlines deadlines;

  private AdmissionHandler(Vertx vertx, RequestGate gate, Duration timeout, RagMetrics metrics) {
    this.vertx = vertx;
    this.gate = gate;
    this.timeout = timeout;
    this.metrics = metrics;
    this.deadlines = new RequestDeadlines(vertx, timeout.toMillis());
  }

  /** One per router: it keeps the deadlines of its own event loop. */
  static AdmissionHandler create(Vertx vertx, RequestGate gate, Duration timeout, RagMetrics metrics) {
    return new AdmissionHandler(vertx, gate, timeout, metrics);
  }

  /** The deadline admission gave the request: every /v1 route is admitted first. */
  static Deadline deadline(RoutingContext ctx) {
    return Objects.requireNonNull(ctx.get(DEADLINE), "admission runs before every /v1 handler");
  }

  @Override
  public void handle(RoutingContext ctx) {
    Exchange exchange = Exchange.of(ctx, metrics);
    RequestGate.Admission admission = gate.enter();
    if (admission != RequestGate.Admission.ADMITTED) {
      exchange.fail(new ServiceException(ErrorCode.OVERLOADED, admission == RequestGate.Admission.DRAINING
          ? "the service is shutting down; retry on another instance"
          : "too many requests in flight; retry shortly", null, 1));
      exchange.log();
      return;
    }
    Deadline deadline = Deadline.in(timeout);
    ctx.put(DEADLINE, deadline);
    Runnable forgetDeadline = deadlines.admit(deadline, () -> exchange.fail(new ServiceException(ErrorCode.TIMEOUT,
        "the request took longer than " + timeout.toMillis() + " ms")));
    Runnable forgetExpiry = gate.onGraceExpiry(vertx.getOrCreateContext(), () -> exchange.fail(
        new ServiceException(ErrorCode.OVERLOADED, "the service is shutting down; retry on another instance", null, 1)));
    AtomicBoolean released = new AtomicBoolean();
    ctx.addEndHandler(done -> {
      if (released.compareAndSet(false, true)) {
        forgetDeadline.run();
        forgetExpiry.run();
        gate.leave();
        exchange.log();
      }
    });
    ctx.next();
  }
}
