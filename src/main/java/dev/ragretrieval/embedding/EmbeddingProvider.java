package dev.ragretrieval.embedding;

import dev.ragretrieval.upstream.Deadline;
import io.vertx.core.Future;
import java.util.List;

/**
 * One embedding backend (Cohere, an OpenAI-compatible endpoint, the local ONNX model). Only the
 * embedding verticle calls it. Failures are {@link dev.ragretrieval.error.ServiceException}s.
 */
public interface EmbeddingProvider {

  /** The model name results report as {@code embedding_model}. */
  String model();

  /** The size of every vector this provider returns. */
  int dimension();

  /** The most texts one {@link #embed} call may carry; the embedding verticle splits larger requests. */
  default int maxTextsPerCall() {
    return Integer.MAX_VALUE;
  }

  /** Embeds texts in order, within {@code deadline}. */
  Future<List<float[]>> embed(List<String> texts, InputType inputType, Deadline deadline);

  /** Whether its circuit breaker is open: it kept failing, calls fail at once, readiness is DOWN. */
  default boolean circuitOpen() {
    return false;
  }

  /**
   * Gets ready for the first call (the local model loads its files here); start-up waits for it
   * before readiness goes UP, so a new pod's first questions do not wait for the load.
   */
  default Future<Void> warmUp() {
    return Future.succeededFuture();
  }

  default Future<Void> close() {
    return Future.succeededFuture();
  }
}
