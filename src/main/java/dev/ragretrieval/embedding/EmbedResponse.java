package dev.ragretrieval.embedding;

import java.util.ArrayList;
import java.util.List;

/** One vector per input text, in input order. */
public record EmbedResponse(List<float[]> vectors, String model, int dimension) {
  public EmbedResponse {
    vectors = List.copyOf(vectors);
  }

  /** The answer to {@link EmbedRequest#together}{@code (requests)} cut into each request's own. */
  List<EmbedResponse> split(List<EmbedRequest> requests) {
    List<EmbedResponse> each = new ArrayList<>(requests.size());
    int from = 0;
    for (EmbedRequest request : requests) {
      int to = from + request.texts().size();
      each.add(new EmbedResponse(vectors.subList(from, to), model, dimension));
      from = to;
    }
    return each;
  }
}
