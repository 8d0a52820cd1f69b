package dev.ragretrieval.eval;

import dev.ragretrieval.client.RetrievalClient;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A running service over HTTP (POST /v1/retrieve/batch through {@link RetrievalClient}), so the eval
 * runs beside a server, or against production, without opening its store.
 */
public final class HttpRetriever implements Retriever {

  private final RetrievalClient client;
  private final int batchSize;

  /** Asks {@code client}'s server {@code batchSize} questions a call; whoever made the client closes it. */
  public HttpRetriever(RetrievalClient client, int batchSize) {
    this.client = client;
    this.batchSize = batchSize;
  }

  @Override
  public int batchSize() {
    return batchSize;
  }

  @Override
  public Future<List<Answer>> retrieve(List<JsonObject> requests) {
    return client.retrieveBatch(requests).map(slots -> slots.stream()
        .map(slot -> slot.containsKey("error") ? Answer.failed(slot.getJsonObject("error")) : Answer.of(slot))
        .toList());
  }

  @Override
  public String target() {
    return client.baseUrl();
  }
}
