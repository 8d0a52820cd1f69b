package dev.ragretrieval.ingest;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.embedding.EmbedResponse;
import dev.ragretrieval.embedding.InputType;
import io.vertx.core.Future;
import java.util.List;

/** What ingestion needs from embedding: {@code EmbeddingClient::embed} fits. */
@FunctionalInterface
public interface Embedder {
  Future<EmbedResponse> embed(List<String> texts, InputType type, Deadline deadline);
}
