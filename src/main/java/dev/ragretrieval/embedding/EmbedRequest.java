package dev.ragretrieval.embedding;

import dev.ragretrieval.upstream.Deadline;
import java.util.ArrayList;
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

  /**
   * The texts of {@code requests} (two or more, of one input type) in one request, in order, until
   * the latest of their deadlines; {@link EmbedResponse#split} gives each its vectors back.
   */
  static EmbedRequest together(List<EmbedRequest> requests) {
    List<String> texts = new ArrayList<>();
    Deadline deadline = requests.get(0).deadline();
    for (EmbedRequest request : requests) {
      texts.addAll(request.texts());
      deadline = deadline.max(request.deadline());
    }
    return new EmbedRequest(texts, requests.get(0).inputType(), deadline);
  }
}
