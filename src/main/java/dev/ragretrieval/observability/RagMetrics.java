package dev.ragretrieval.observability;

import dev.ragretrieval.error.ErrorCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The service's own meters, one instance per running service, handed to the parts that record
 * (constructor parameters). Label values come from closed sets (provider names, store kinds,
 * error codes, route templates, "success" or the error code in lower case as outcome): never query
 * text or client-chosen collection names.
 */
public final class RagMetrics {

  private final MeterRegistry registry;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger openStreams = new AtomicInteger();
  /**
   * Meters already registered, by name and label values: a registry look-up builds an id and sorts
   * its tags, and every request records several meters (2.7% of the uncached path's samples).
   */
  private final ConcurrentMap<Key, Meter> meters = new ConcurrentHashMap<>();

  private record Key(String name, String first, String second, String third) {}

  public RagMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("rag_requests_in_flight", inFlight, AtomicInteger::get)
        .description("Requests being served").register(registry);
    Gauge.builder("rag_streams_open", openStreams, AtomicInteger::get)
        .description("SSE and NDJSON responses still open").register(registry);
  }

  /** Meters on a registry of their own, scraped by no one: for tools and tests that serve no /metrics. */
  public static RagMetrics detached() {
    return new RagMetrics(new SimpleMeterRegistry());
  }

  public MeterRegistry registry() {
    return registry;
  }

  public AtomicInteger inFlight() {
    return inFlight;
  }

  public AtomicInteger openStreams() {
    return openStreams;
  }

  /** One call to an embedding provider; {@code texts} were sent. */
  public void embedding(String provider, Duration latency, int texts, String outcome) {
    embeddingInputs(provider, texts);
    this.<Timer>meter(new Key("rag_embedding_duration_seconds", provider, outcome, null), () ->
        Timer.builder("rag_embedding_duration_seconds")
            .description("Latency of one embedding provider call")
            .tags("provider", provider, "outcome", outcome)
            .serviceLevelObjectives(ms(5), ms(10), ms(25), ms(50), ms(100), ms(250), ms(500), ms(1000), ms(2500),
                ms(5000), ms(10000))
            .minimumExpectedValue(ms(1)).maximumExpectedValue(Duration.ofSeconds(30))
            .register(registry)).record(latency);
    this.<DistributionSummary>meter(new Key("rag_embedding_texts_per_call", provider, null, null), () ->
        DistributionSummary.builder("rag_embedding_texts_per_call")
            .description("Texts sent in one embedding call")
            .tags("provider", provider)
            .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64, 96)
            .register(registry)).record(texts);
  }

  /** Texts sent to an embedding provider: Cohere's rate limit counts inputs per minute, not calls. */
  public void embeddingInputs(String provider, int inputs) {
    counter(new Key("rag_embedding_inputs_total", provider, null, null), () ->
        Counter.builder("rag_embedding_inputs_total").tags("provider", provider)
            .description("Texts sent to the embedding provider (retries included)").register(registry))
        .increment(inputs);
  }

  /** One run of the local model over {@code texts} waiting texts (its count = model runs). */
  public void localModelRun(int texts) {
    this.<DistributionSummary>meter(new Key("rag_local_embedding_batch_texts", null, null, null), () ->
        DistributionSummary.builder("rag_local_embedding_batch_texts")
            .description("Texts embedded together in one run of the local model")
            .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64, 128)
            .register(registry)).record(texts);
  }

  /** An upstream answered 429 (or Qdrant's RESOURCE_EXHAUSTED). */
  public void rateLimited(String upstream) {
    counter(new Key("rag_upstream_rate_limited_total", upstream, null, null), () ->
        Counter.builder("rag_upstream_rate_limited_total").tags("upstream", upstream)
            .description("Upstream calls answered with a rate limit (429)").register(registry)).increment();
  }

  /** A read was sent to a second node because the first had not answered it in time. */
  public void hedged(String upstream) {
    counter(new Key("rag_upstream_hedged_total", upstream, null, null), () ->
        Counter.builder("rag_upstream_hedged_total").tags("upstream", upstream)
            .description("Reads sent to a second node because the first had not answered in time").register(registry))
        .increment();
  }

  /** One vector-store operation (search, batch, upsert, ...). */
  public void vectorStore(String store, String operation, Duration latency, String outcome) {
    this.<Timer>meter(new Key("rag_vector_store_duration_seconds", store, operation, outcome), () ->
        Timer.builder("rag_vector_store_duration_seconds")
            .description("Latency of one vector store call")
            .tags("store", store, "operation", operation, "outcome", outcome)
            .serviceLevelObjectives(ms(1), ms(2), ms(5), ms(10), ms(25), ms(50), ms(100), ms(250), ms(1000))
            .minimumExpectedValue(ms(1)).maximumExpectedValue(Duration.ofSeconds(30))
            .register(registry)).record(latency);
  }

  /** An upstream call that will be tried again. */
  public void upstreamRetry(String upstream, ErrorCode code) {
    counter(new Key("rag_upstream_retries_total", upstream, code.name(), null), () ->
        Counter.builder("rag_upstream_retries_total").tags("upstream", upstream, "code", code.name())
            .description("Upstream calls retried").register(registry)).increment();
  }

  /** An upstream call that failed for good. */
  public void upstreamFailure(String upstream, ErrorCode code) {
    counter(new Key("rag_upstream_failures_total", upstream, code.name(), null), () ->
        Counter.builder("rag_upstream_failures_total").tags("upstream", upstream, "code", code.name())
            .description("Upstream calls that failed after retries").register(registry)).increment();
  }

  /** A circuit breaker opened: its upstream kept failing. */
  public void circuitOpened(String upstream) {
    Counter.builder("rag_upstream_circuit_opened_total").tags("upstream", upstream)
        .description("Times an upstream's circuit breaker opened").register(registry).increment();
  }

  /** A call failed at once because its upstream's circuit was open. */
  public void circuitRejected(String upstream) {
    Counter.builder("rag_upstream_circuit_rejected_total").tags("upstream", upstream)
        .description("Calls refused by an open circuit breaker").register(registry).increment();
  }

  /** An error answered to a client. {@code route} is the route template, never the raw path. */
  public void error(String route, ErrorCode code) {
    counter(new Key("rag_errors_total", route, code.name(), null), () ->
        Counter.builder("rag_errors_total").tags("route", route, "code", code.name())
            .description("Errors answered to clients").register(registry)).increment();
  }

  public void cache(String cache, boolean hit) {
    String result = hit ? "hit" : "miss";
    counter(new Key("rag_cache_requests_total", cache, result, null), () ->
        Counter.builder("rag_cache_requests_total").tags("cache", cache, "result", result)
            .description("Cache look-ups").register(registry)).increment();
  }

  private Counter counter(Key key, Supplier<Counter> register) {
    return meter(key, register);
  }

  @SuppressWarnings("unchecked")
  private <M extends Meter> M meter(Key key, Supplier<M> register) {
    Meter found = meters.get(key);
    return (M) (found != null ? found : meters.computeIfAbsent(key, k -> register.get()));
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
