package dev.ragretrieval.embedding;

import dev.ragretrieval.upstream.Deadline;
import java.util.List;

/**
 * What callers send to the embedding address: a list of texts, so caching and batching can sit
 * behind the address without touching callers. Nobody waits for the answer
 * after {@code deadline}.
 */
public record EmbedRequest(List<String> texts, InputType inputType, Deadline deadline) {
  public EmbedRequest {
    texts = List.copyOf(texts);
  }
}
