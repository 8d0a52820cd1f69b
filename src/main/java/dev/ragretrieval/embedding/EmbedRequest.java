package dev.ragretrieval.embedding;

import java.util.List;

/**
 * What callers send to the embedding address: a list of texts, so caching and batching can sit
 * behind the address without touching callers. {@code deadline} is an absolute
 * {@link System#currentTimeMillis()} instant after which nobody waits for the answer.
 */
public record EmbedRequest(List<String> texts, InputType inputType, long deadline) {
  public EmbedRequest {
    texts = List.copyOf(texts);
  }
}
