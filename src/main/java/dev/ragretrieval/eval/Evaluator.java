package dev.ragretrieval.eval;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.retrieval.RetrievalResult;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.retrieval.RetrievedChunk;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Runs each case through the retrieval pipeline, one after another, and scores hit@k. */
public final class Evaluator {

  private final RetrievalService service;
  private final int k;
  private final String collection;

  public Evaluator(RetrievalService service, int k, String collection) {
    this.service = service;
    this.k = k;
    this.collection = collection;
  }

  public Future<EvalReport> run(List<EvalCase> cases) {
    List<EvalReport.Outcome> outcomes = new ArrayList<>();
    Future<Void> chain = Future.succeededFuture();
    for (EvalCase testCase : cases) {
      chain = chain.compose(v -> evaluate(testCase)).map(outcome -> {
        outcomes.add(outcome);
        return null;
      });
    }
    return chain.map(v -> new EvalReport(k, outcomes));
  }

  private Future<EvalReport.Outcome> evaluate(EvalCase testCase) {
    // threshold 0: accuracy is about ranking, not about the service's default cut-off
    JsonObject body = new JsonObject().put("query", testCase.query()).put("top_k", k).put("score_threshold", 0.0);
    if (collection != null) {
      body.put("collection", collection);
    }
    Deadline deadline = Deadline.in(java.time.Duration.ofMinutes(1));
    return service.validate(body)
        .compose(request -> service.retrieve(request, UUID.randomUUID().toString(), deadline))
        .map(result -> outcome(testCase, result));
  }

  static EvalReport.Outcome outcome(EvalCase testCase, RetrievalResult result) {
    List<RetrievedChunk> chunks = result.results();
    for (RetrievedChunk chunk : chunks) {
      if (testCase.expected().stream().anyMatch(e -> matches(chunk, e))) {
        return new EvalReport.Outcome(testCase, chunk.rank(), describe(chunks.get(0)));
      }
    }
    return new EvalReport.Outcome(testCase, 0, chunks.isEmpty() ? "nothing" : describe(chunks.get(0)));
  }

  /** source_url (exact or its path end), section title, chunk_id, or source_url#section. */
  static boolean matches(RetrievedChunk chunk, String expected) {
    String e = expected.strip();
    if (e.equals(chunk.chunkId())) {
      return true;
    }
    int hash = e.lastIndexOf('#');
    if (hash > 0) {
      return sameSource(chunk.sourceUrl(), e.substring(0, hash)) && sameText(chunk.section(), e.substring(hash + 1));
    }
    return sameSource(chunk.sourceUrl(), e) || sameText(chunk.section(), e);
  }

  private static boolean sameSource(String actual, String expected) {
    if (actual == null) {
      return false;
    }
    String a = normalize(actual);
    String e = normalize(expected);
    return !e.isEmpty() && (a.equals(e) || a.endsWith("/" + e));
  }

  private static String normalize(String url) {
    return url.strip().replaceFirst("^\\./", "").replaceFirst("/+$", "").replaceFirst("\\.mdx?$", "");
  }

  private static boolean sameText(String actual, String expected) {
    String e = expected.strip().replaceFirst("^#+\\s*", "");
    return actual != null && actual.strip().equalsIgnoreCase(e);
  }

  private static String describe(RetrievedChunk chunk) {
    return chunk.sourceUrl() + (chunk.section() == null ? "" : " > " + chunk.section());
  }
}
