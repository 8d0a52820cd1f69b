package dev.ragretrieval.rerank;

import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import java.util.List;

/** Orders candidate texts by relevance to a query, most relevant first. */
public interface Reranker {

  /** The model named in responses ({@code search_params.rerank_model}). */
  String model();

  /** At most {@code topN} hits, most relevant first; every failure is a ServiceException. */
  Future<List<RerankHit>> rerank(String query, List<String> documents, int topN, Deadline deadline);

  Future<Void> close();
}
