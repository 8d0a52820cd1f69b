package dev.ragretrieval.observability;

import static net.logstash.logback.argument.StructuredArguments.kv;

import dev.ragretrieval.error.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per answered request on logger {@code rag.request}. The fields are structured
 * arguments: real JSON fields with the JSON encoder, {@code key=value} pairs after the message on
 * a plain line ({@link StructuredFieldsConverter}). The message itself is only {@code "request"}:
 * with the fields in it as well, a JSON line carried each of them twice, and formatting and
 * escaping that copy took about 4% of a cached answer's samples (bench/HISTORY.md, ninth pass).
 * Headers are not part of an {@link Entry}, so API keys cannot reach this log; query text appears
 * only when {@code logging.log_query_text} is true.
 */
public final class RequestLog {

  static final Logger LOG = LoggerFactory.getLogger("rag.request");
  private static final String MESSAGE = "request";

  private static volatile boolean logQueryText;

  private RequestLog() {}

  /**
   * One request. {@code requestId} is the caller's X-Request-Id (or the one the service gave it), so
   * a line can be matched with the ingress's access log. {@code route} is the route template ("/v1/retrieve"), never the raw path;
   * {@code code} is null on success; timings and count are null when the request never got there.
   */
  public record Entry(
      String queryId,
      String requestId,
      String method,
      String route,
      int status,
      ErrorCode code,
      double durationMs,
      Double embedMs,
      Double searchMs,
      Integer resultCount,
      boolean streamed,
      String queryText) {}

  /** Set once at start-up by {@link Logging#configure}. */
  public static void configure(boolean includeQueryText) {
    logQueryText = includeQueryText;
  }

  public static void log(Entry e) {
    if (!LOG.isInfoEnabled()) {
      return;
    }
    Object[] fields = {
        kv("query_id", e.queryId()),
        kv("request_id", e.requestId()),
        kv("method", e.method()),
        kv("route", e.route()),
        kv("status", e.status()),
        kv("code", e.code() == null ? null : e.code().name()),
        kv("duration_ms", round(e.durationMs())),
        kv("embed_ms", e.embedMs() == null ? null : round(e.embedMs())),
        kv("search_ms", e.searchMs() == null ? null : round(e.searchMs())),
        kv("result_count", e.resultCount()),
        kv("streamed", e.streamed())};
    if (logQueryText && e.queryText() != null) {
      Object[] withQuery = java.util.Arrays.copyOf(fields, fields.length + 1);
      withQuery[fields.length] = kv("query", oneLine(e.queryText()));
      LOG.info(MESSAGE, withQuery);
    } else {
      LOG.info(MESSAGE, fields);
    }
  }

  private static double round(double millis) {
    return Math.round(millis * 10) / 10.0;
  }

  // a query with line breaks must not start a forged line in the plain format
  private static String oneLine(String text) {
    return text.replaceAll("[\\p{Cntrl}]", " ");
  }
}
