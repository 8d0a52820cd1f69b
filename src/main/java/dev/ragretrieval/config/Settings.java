package dev.ragretrieval.config;

import static dev.ragretrieval.config.Setting.bool;
import static dev.ragretrieval.config.Setting.choice;
import static dev.ragretrieval.config.Setting.file;
import static dev.ragretrieval.config.Setting.integer;
import static dev.ragretrieval.config.Setting.list;
import static dev.ragretrieval.config.Setting.mapping;
import static dev.ragretrieval.config.Setting.millis;
import static dev.ragretrieval.config.Setting.number;
import static dev.ragretrieval.config.Setting.optional;
import static dev.ragretrieval.config.Setting.optionalInt;
import static dev.ragretrieval.config.Setting.secret;
import static dev.ragretrieval.config.Setting.string;
import static dev.ragretrieval.config.Setting.url;

import java.util.ArrayList;
import java.util.List;

/**
 * Every setting the service reads, in one table: YAML path, environment variable, default, range
 * and meaning. {@link ConfigLoader} parses from it, and the README's configuration table is
 * {@link #markdownTable()} (SettingsTableTest keeps them equal).
 */
public final class Settings {

  private static final List<Setting> ALL = new ArrayList<>();

  private static Setting add(Setting setting) {
    ALL.add(setting);
    return setting;
  }

  // --- HTTP ---
  public static final Setting HTTP_PORT = add(integer("http.port", "RAG_HTTP_PORT", 8080, 0, 65535, "HTTP port"));
  public static final Setting HTTP_HOST = add(string("http.host", null, "0.0.0.0", "address the HTTP server binds"));
  public static final Setting HTTP_INSTANCES = add(integer("http.instances", "RAG_HTTP_INSTANCES", 0, 0, 1024,
      "HTTP verticle instances, one per event loop, sharing the port; 0 = one per available processor."
          + " Trade-off: while the load is far below the CPUs, fewer instances cost less CPU a request (a busier"
          + " loop sleeps and wakes less often per request: on bench/'s 2 cores, one instance took about a fifth less"
          + " CPU for a new question at 64 clients than two), and at full load they serve fewer requests a second"
          + " (about a fifth fewer at 256 clients, at the same or a higher CPU a request)")
      .shownAs("available processors"));
  public static final Setting MAX_IN_FLIGHT = add(integer("http.max_in_flight", "RAG_MAX_IN_FLIGHT", 256, 1, 1_000_000,
      "requests served at once; beyond it 503 `OVERLOADED` with `Retry-After`"));
  public static final Setting REQUEST_TIMEOUT = add(millis("http.request_timeout_ms", "RAG_REQUEST_TIMEOUT_MS", 15000,
      "a request's deadline (504 `TIMEOUT`); upstream retries never outlive it"));
  public static final Setting SHUTDOWN_GRACE = add(millis("http.shutdown_grace_ms", "RAG_SHUTDOWN_GRACE_MS", 20000,
      "on SIGTERM, how long in-flight requests and streams may finish"));
  public static final Setting BODY_LIMIT = add(integer("http.body_limit_bytes", "RAG_BODY_LIMIT_BYTES", 65536, 1024,
      64 * 1024 * 1024, "larger bodies get 413 `PAYLOAD_TOO_LARGE`"));
  public static final Setting CORS_ORIGINS = add(list("http.cors_origins", "RAG_CORS_ORIGINS", List.of("*"),
      "allowed browser origins: `*`, or each as scheme://host[:port] (`https://docs.example.com`)"));
  public static final Setting MAX_CONNECTIONS = add(integer("http.max_connections", "RAG_MAX_CONNECTIONS", 4096, 1,
      1_000_000, "open connections; at the cap a new one closes the longest-idle one (see \"Limits at the HTTP edge\")"));
  public static final Setting CONNECTION_RESERVE = add(integer("http.connection_reserve", null, 64, 0, 100_000,
      "beyond max_connections, when every connection is busy: one answer each, then closed"));
  public static final Setting HEADER_TIMEOUT = add(millis("http.header_timeout_ms", "RAG_HEADER_TIMEOUT_MS", 10000,
      "a new connection's first request head must arrive within it, else it is closed (slowloris)"));
  public static final Setting IDLE_TIMEOUT = add(millis("http.idle_timeout_ms", "RAG_IDLE_TIMEOUT_MS", 75000,
      "a kept-alive connection idle this long between requests is closed"));
  public static final Setting URI_LIMIT = add(integer("http.uri_limit_bytes", "RAG_URI_LIMIT_BYTES", 32768, 1024,
      16 * 1024 * 1024, "longest request line, else 414; at least 12 bytes per allowed query character + 4096"));
  public static final Setting HEADER_LIMIT = add(integer("http.header_limit_bytes", "RAG_HEADER_LIMIT_BYTES", 32768,
      1024, 16 * 1024 * 1024, "largest header block, else 431; same lower bound"));

  // --- security ---
  public static final Setting API_KEYS = add(list("security.api_keys", "RAG_API_KEYS", List.of(),
      "client keys; set = every `/v1/*` call needs one (`Authorization: Bearer` or `X-API-Key`)"));

  // --- Qdrant ---
  public static final Setting QDRANT_HOST = add(optional("qdrant.host", "QDRANT_HOST",
      "Qdrant host name or address (not a URL: the port is QDRANT_GRPC_PORT); unset = embedded vector store. A name"
          + " with several addresses (a headless Service) gets its searches spread over all of them"));
  public static final Setting QDRANT_GRPC_PORT = add(integer("qdrant.grpc_port", "QDRANT_GRPC_PORT", 6334, 1, 65535,
      "Qdrant gRPC port"));
  public static final Setting QDRANT_API_KEY = add(secret("qdrant.api_key", "QDRANT_API_KEY",
      "sent as gRPC metadata `api-key`"));
  public static final Setting QDRANT_TLS = add(bool("qdrant.tls", "QDRANT_TLS", false, "TLS to Qdrant (Qdrant Cloud)"));
  public static final Setting QDRANT_CA_CERT = add(file("qdrant.ca_cert", "QDRANT_CA_CERT",
      "PEM file with the CA certificate(s) of a self-hosted Qdrant behind a private CA; needs `QDRANT_TLS=true`;"
          + " unset = the JVM's default trust store. Host names are always verified"));
  public static final Setting QDRANT_COLLECTION = add(string("qdrant.collection", "QDRANT_COLLECTION",
      "textbook_chunks", "default collection"));
  public static final Setting QDRANT_COLLECTIONS = add(list("qdrant.collections", "QDRANT_COLLECTIONS", List.of(),
      "optional allow-list: unset = a request may name any collection in the store; set = only the default and these"));
  public static final Setting QDRANT_TIMEOUT = add(millis("qdrant.timeout_ms", null, 5000,
      "per-call deadline (never beyond the request's own); with several Qdrant addresses, a node that leaves a call"
          + " unanswered for all of it is probed, and leaves the rotation if the probe goes unanswered too (a frozen or"
          + " stopped node)"));
  public static final Setting QDRANT_MAX_ATTEMPTS = add(integer("qdrant.max_attempts", null, 3, 1, 20,
      "RESOURCE_EXHAUSTED / UNAVAILABLE are retried this many times in all"));
  public static final Setting QDRANT_CIRCUIT_FAILURES = add(integer("qdrant.circuit_breaker.failures", null, 5, 0,
      1_000_000, "calls that cannot reach Qdrant within the window that open its circuit (0 = no breaker)"));
  public static final Setting QDRANT_CIRCUIT_WINDOW = add(millis("qdrant.circuit_breaker.window_ms", null, 10000,
      "the circuit's counting window"));
  public static final Setting QDRANT_CIRCUIT_OPEN = add(millis("qdrant.circuit_breaker.open_ms", null, 5000,
      "how long an open circuit fails calls at once (503 `CONNECTION_ERROR` with `Retry-After`)"));
  public static final Setting QDRANT_SHARD_NUMBER = add(optionalInt("qdrant.layout.shard_number",
      "QDRANT_SHARD_NUMBER", 1, 1_000, "shards of a collection the service creates; unset = Qdrant's default"));
  public static final Setting QDRANT_REPLICATION_FACTOR = add(optionalInt("qdrant.layout.replication_factor",
      "QDRANT_REPLICATION_FACTOR", 1, 100, "replicas of each shard of a new collection; unset = Qdrant's default (1)"));
  public static final Setting QDRANT_WRITE_CONSISTENCY_FACTOR = add(optionalInt(
      "qdrant.layout.write_consistency_factor", "QDRANT_WRITE_CONSISTENCY_FACTOR", 1, 100,
      "replicas that must acknowledge a write to a new collection; unset = Qdrant's default (1)"));
  public static final Setting QDRANT_ON_DISK_PAYLOAD = add(bool("qdrant.layout.on_disk_payload",
      "QDRANT_ON_DISK_PAYLOAD", false, "keep a new collection's payloads on disk (for collections larger than memory)"));
  public static final Setting QDRANT_QUANTIZATION = add(choice("qdrant.layout.quantization", "QDRANT_QUANTIZATION",
      "none", List.of("none", "int8"), "`int8`: scalar quantization of a new collection's vectors, searched with"
          + " rescoring (less memory; scores move slightly)"));
  public static final Setting QDRANT_WRITE_ORDERING = add(choice("qdrant.write_ordering", "QDRANT_WRITE_ORDERING",
      null, List.of("weak", "medium", "strong"), "ordering of every write; unset = Qdrant's default (weak)"));
  public static final Setting QDRANT_READ_CONSISTENCY = add(optional("qdrant.read_consistency",
      "QDRANT_READ_CONSISTENCY", "replicas every search must agree with: a number, or `majority`, `quorum`, `all`;"
          + " unset = Qdrant's default (1)"));
  public static final Setting QDRANT_RESOLVE_INTERVAL = add(millis("qdrant.resolve_interval_ms",
      "QDRANT_RESOLVE_INTERVAL_MS", 10000, "how often QDRANT_HOST is resolved again (pods come back with new addresses)"));
  public static final Setting QDRANT_PROBE_INTERVAL = add(millis("qdrant.probe_interval_ms", null, 1000,
      "how often an address that failed is probed until it answers again"));
  public static final Setting QDRANT_HEDGE_AFTER = add(integer("qdrant.hedge_after_ms", null, 300, 0, 60_000,
      "with several Qdrant addresses: a search or other read that one node has not answered after this long is also"
          + " sent to another node, and the first answer is used; that node gets no other calls until it answers the one"
          + " it holds (a node just restarted can hold calls for seconds). Writes are never sent twice; while every node"
          + " is slow, at most about one read in ten is (0 = never)"));

  // --- embedding ---
  public static final Setting EMBEDDING_PROVIDER = add(choice("embedding.provider", "EMBEDDING_PROVIDER", "auto",
      List.of("auto", "cohere", "local", "openai"),
      "`cohere`, `local`, `openai` (any OpenAI-compatible `/v1/embeddings`), or `auto` (Cohere when a key is set,"
          + " else local)"));
  public static final Setting EMBED_TIMEOUT = add(millis("embedding.timeout_ms", null, 10000,
      "per-call deadline (never beyond the request's own)"));
  public static final Setting EMBED_MAX_ATTEMPTS = add(integer("embedding.max_attempts", null, 4, 1, 20,
      "429, 5xx and connection failures are retried this many times in all"));
  public static final Setting EMBED_INITIAL_BACKOFF = add(millis("embedding.initial_backoff_ms", null, 200,
      "first wait before a retry (doubled each time)"));
  public static final Setting EMBED_MAX_BACKOFF = add(millis("embedding.max_backoff_ms", null, 4000,
      "longest wait before a retry"));
  public static final Setting QUERY_CACHE_SIZE = add(integer("embedding.query_cache_size", "RAG_QUERY_CACHE_SIZE",
      10_000, 0, 10_000_000, "query vectors kept in memory (0 = off); questions differing only in case, spacing or"
          + " trailing punctuation share one entry"));
  public static final Setting EMBEDDING_CA_CERT = add(file("embedding.ca_cert", "EMBEDDING_CA_CERT",
      "PEM file with the CA certificate(s) of an https embedding endpoint behind a private CA; unset = the JVM's"
          + " default trust store, which is what Cohere and OpenAI need. Host names are always verified"));
  public static final Setting EMBED_CIRCUIT_FAILURES = add(integer("embedding.circuit_breaker.failures", null, 5, 0,
      1_000_000, "connection failures and 5xx within the window that open the embedder's circuit (0 = no breaker)"));
  public static final Setting EMBED_CIRCUIT_WINDOW = add(millis("embedding.circuit_breaker.window_ms", null, 10000,
      "the circuit's counting window"));
  public static final Setting EMBED_CIRCUIT_OPEN = add(millis("embedding.circuit_breaker.open_ms", null, 5000,
      "how long an open circuit fails calls at once"));
  public static final Setting COHERE_API_KEY = add(secret("embedding.cohere.api_key", "COHERE_API_KEY",
      "Cohere key; unset and no other provider = local model"));
  public static final Setting COHERE_BASE_URL = add(url("embedding.cohere.base_url", "COHERE_BASE_URL",
      "https://api.cohere.com", "Cohere endpoint (the service calls its /v2/embed)"));
  public static final Setting COHERE_MODEL = add(string("embedding.cohere.model", "COHERE_EMBED_MODEL",
      "embed-english-v3.0", "Cohere embedding model"));
  public static final Setting COHERE_DIMENSION = add(integer("embedding.cohere.dimension", "COHERE_EMBED_DIMENSION",
      1024, 1, 65536, "its vector size"));
  public static final Setting COHERE_MAX_TEXTS = add(integer("embedding.cohere.max_texts_per_call", null, 96, 1, 96,
      "texts per Cohere call (Cohere's limit is 96)"));
  public static final Setting OPENAI_API_KEY = add(secret("embedding.openai.api_key", "OPENAI_API_KEY",
      "key of the `openai` provider"));
  public static final Setting OPENAI_BASE_URL = add(url("embedding.openai.base_url", "OPENAI_BASE_URL",
      "https://api.openai.com", "any OpenAI-compatible `/v1/embeddings` endpoint"));
  public static final Setting OPENAI_MODEL = add(string("embedding.openai.model", "OPENAI_EMBED_MODEL",
      "text-embedding-3-small", "the `openai` provider's model"));
  public static final Setting OPENAI_DIMENSIONS = add(integer("embedding.openai.dimensions", "OPENAI_EMBED_DIMENSIONS",
      1536, 1, 65536, "its vector size"));
  public static final Setting OPENAI_MAX_TEXTS = add(integer("embedding.openai.max_texts_per_call", null, 256, 1, 2048,
      "texts per call"));
  public static final Setting LOCAL_MODEL = add(string("embedding.local.model", null, "bge-small-en-v1.5-q",
      "the ONNX model bundled from Maven Central"));
  public static final Setting LOCAL_DIMENSION = add(integer("embedding.local.dimension", null, 384, 1, 65536,
      "its vector size"));
  public static final Setting LOCAL_MAX_TEXTS = add(integer("embedding.local.max_texts_per_call", null, 32, 1, 1024,
      "texts per call to the local model"));
  public static final Setting LOCAL_BATCH = add(integer("embedding.local.batch_size", "RAG_LOCAL_EMBED_BATCH", 32, 1,
      1024, "local model: the most waiting questions one run takes together; 1 runs every question alone, for"
          + " vectors that never depend on what else was asked"));

  // --- retrieval ---
  public static final Setting MAX_QUERY_CHARS = add(integer("retrieval.max_query_chars", null, 1000, 1, 100_000,
      "longest query (`QUERY_TOO_LONG`)"));
  public static final Setting MAX_TOP_K = add(integer("retrieval.max_top_k", null, 100, 1, 1000, "largest top_k"));
  public static final Setting DEFAULT_TOP_K = add(integer("retrieval.default_top_k", null, 5, 1, 1000,
      "top_k when a request gives none (at most max_top_k)"));
  public static final Setting CLAMP_TOP_K = add(bool("retrieval.clamp_top_k", null, false,
      "true: an out-of-range top_k is clamped instead of `INVALID_TOP_K`"));
  public static final Setting DEFAULT_SCORE_THRESHOLD = add(number("retrieval.default_score_threshold", null, 0.1, 0, 1,
      "score_threshold when a request gives none"));
  public static final Setting MAX_CONTEXT_CHARS = add(integer("retrieval.max_context_chars", null, 12000, 100,
      10_000_000, "default max_context_chars of `/v1/context`"));
  public static final Setting MAX_BATCH_QUERIES = add(integer("retrieval.max_batch_queries", null, 32, 1, 1024,
      "most queries in one batch"));
  public static final Setting MAX_TEXT_CHARS = add(integer("retrieval.max_text_chars", null, 10000, 100, 10_000_000,
      "longer chunk texts are cut and flagged `\"truncated\": true`"));
  public static final Setting RESULT_CACHE_TTL = add(integer("retrieval.result_cache_ttl_ms", "RAG_RESULT_CACHE_TTL_MS",
      10_000, 0, 3_600_000, "how long a question's ranked chunks are kept (from its second asking on) and given to"
          + " the same question again, with no embedding and no search (0 = off); the key is collection, question, top_k,"
          + " score_threshold, filter, search mode, fusion and rerank. Trade-off: for up to this long after an ingest, a"
          + " repeated question may get the chunks from before it"));
  public static final Setting COALESCE_WINDOW = add(integer("retrieval.coalesce_window_ms", "RAG_COALESCE_WINDOW_MS",
      2, 0, 100, "new questions that reach an event loop together share one embedding call and one Qdrant QueryBatch;"
          + " while such a call is already in flight on that loop, a new question waits this long for others to share"
          + " the next one: until the loop next has a question or an answer after that, and at most half as long again"
          + " (a lone question never waits; 0 = share only what arrives in the same turn of the loop). Trade-off: up to"
          + " 1.5 times this much latency under load, for fewer upstream calls per question (about half as many Cohere"
          + " calls at 64 clients in bench/; the CPU a question is about the same)"));
  public static final Setting SEARCH_MODE = add(choice("retrieval.search_mode", "RAG_SEARCH_MODE", "hybrid",
      List.of("hybrid", "dense"), "default `search_mode` of requests: `hybrid` (where the collection has a BM25 index,"
          + " else dense) or `dense`"));
  public static final Setting FUSION_RRF_K = add(integer("retrieval.fusion.rrf_k", "RAG_FUSION_RRF_K", 4, 1, 1000,
      "hybrid: reciprocal rank fusion constant k (a list's hit at rank r adds 1 / (k + r / weight)), the same on"
          + " both stores"));
  public static final Setting FUSION_DENSE_WEIGHT = add(number("retrieval.fusion.dense_weight",
      "RAG_FUSION_DENSE_WEIGHT", 1.0, 0, 10, "hybrid: weight of the dense (vector) list in the fusion (0 leaves it out)"));
  public static final Setting FUSION_KEYWORD_WEIGHT = add(number("retrieval.fusion.keyword_weight",
      "RAG_FUSION_KEYWORD_WEIGHT", 0.25, 0, 10, "hybrid: weight of the keyword (BM25) list in the fusion (0 leaves it out);"
          + " the keyword list ranks the dense candidates only"));
  public static final Setting FUSION_CANDIDATES = add(integer("retrieval.fusion.candidates", "RAG_FUSION_CANDIDATES",
      40, 1, 10_000, "hybrid: the dense list gives max(top_k x 4, this many) candidates, which BM25 ranks again"));
  public static final Setting RERANK_PROVIDER = add(choice("retrieval.rerank.provider", "RERANK_PROVIDER", "none",
      List.of("none", "cohere"), "`cohere`: rerank the first `top_k` x 4 hits (at most 1000) with Cohere Rerank into"
          + " the top_k; uses `COHERE_API_KEY` and `COHERE_BASE_URL`"));
  public static final Setting RERANK_MODEL = add(string("retrieval.rerank.model", "COHERE_RERANK_MODEL",
      "rerank-v3.5", "the rerank model"));
  public static final Setting RERANK_PER_RESULT = add(integer("retrieval.rerank.candidates_per_result", null, 4, 1, 100,
      "top_k x this many candidates are reranked ..."));
  public static final Setting RERANK_MAX_CANDIDATES = add(integer("retrieval.rerank.max_candidates", null, 1000, 1,
      1000, "... at most this many (Cohere's limit per call)"));
  public static final Setting FILTER_KEYS = add(list("retrieval.filter_keys", null,
      List.of("chapter", "section", "page_title", "source_url", "document_id", "source_type", "module"),
      "payload keys a request's filter may name"));
  public static final Setting PAYLOAD_KEYS = add(mapping("retrieval.payload_keys",
      "result field -> payload keys tried in order (API reference, section 3)"));

  // --- ingest ---
  public static final Setting INGEST_EMBED_CONCURRENCY = add(integer("ingest.embed_concurrency",
      "RAG_INGEST_EMBED_CONCURRENCY", 4, 1, 64, "embed calls in flight at once during ingest"));
  public static final Setting INGEST_EMBED_RATE = add(optionalInt("ingest.embed_rate", "RAG_INGEST_EMBED_RATE", 1,
      100_000_000, "texts per minute ingest may send to the embedder; unset = no limit"));

  // --- embedded store ---
  public static final Setting DATA_DIR = add(string("store.data_dir", "RAG_DATA_DIR", "./data",
      "where the embedded vector store keeps its files"));
  public static final Setting LOAD_SAMPLE_BOOK = add(bool("store.load_sample_book", "RAG_LOAD_SAMPLE_BOOK", true,
      "embedded mode: fill an empty collection from the sample book"));

  // --- logs and traces ---
  public static final Setting LOG_LEVEL = add(string("logging.level", "RAG_LOG_LEVEL", "INFO", "log level"));
  public static final Setting LOG_FORMAT = add(choice("logging.format", "RAG_LOG_FORMAT", "auto",
      List.of("auto", "json", "plain"), "plain on a terminal, JSON lines otherwise (`auto`)"));
  public static final Setting LOG_QUERY_TEXT = add(bool("logging.log_query_text", "RAG_LOG_QUERY_TEXT", false,
      "query texts stay out of logs unless true"));
  public static final Setting TRACE_QUERY_TEXT = add(bool("tracing.query_text", "RAG_TRACE_QUERY_TEXT", false,
      "query texts stay out of trace attributes unless true (tracing itself is on with the standard `OTEL_*`"
          + " variables)"));

  private Settings() {}

  /** Every setting, in table order. */
  public static List<Setting> all() {
    return List.copyOf(ALL);
  }

  /** The README's configuration table: every setting, environment variable first where there is one. */
  public static String markdownTable() {
    StringBuilder out = new StringBuilder();
    out.append("| variable | `conf/config.yaml` | default | values | meaning |\n");
    out.append("|---|---|---|---|---|\n");
    out.append("| `RAG_CONFIG` | | conf/config.yaml | file path | the configuration file |\n");
    for (Setting s : ALL) {
      out.append("| ").append(s.env() == null ? "" : "`" + s.env() + "`")
          .append(" | `").append(s.path()).append('`')
          .append(" | ").append(s.defaultText().isEmpty() ? "\"\"" : s.defaultText().replace("|", "\\|"))
          .append(" | ").append(s.allowed())
          .append(" | ").append(s.meaning().replace("|", "\\|"))
          .append(" |\n");
    }
    return out.toString();
  }
}
