package dev.ragretrieval.embedding;

import java.util.List;

/** One vector per input text, in input order. */
public record EmbedResponse(List<float[]> vectors, String model, int dimension) {
  public EmbedResponse {
    vectors = List.copyOf(vectors);
  }
}
