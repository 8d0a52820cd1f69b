package dev.ragretrieval.search.qdrant;

import dev.ragretrieval.upstream.Deadline;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Shared bits of the Qdrant tests: config, blocking waits on futures, vectors. */
final class QdrantTestSupport {

  private QdrantTestSupport() {}

  static AppConfig.Qdrant config(String host, int port, String apiKey, int maxAttempts) {
    return new AppConfig.Qdrant(Optional.of(host), port, Optional.ofNullable(apiKey), false, "docs", Set.of(),
        Duration.ofSeconds(3), maxAttempts);
  }

  /** Waits on the test thread (never an event loop) so a test reads top to bottom. */
  static <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The ServiceException a future fails with. */
  static ServiceException failure(Future<?> future) {
    try {
      await(future);
    } catch (ServiceException e) {
      return e;
    }
    throw new AssertionError("expected a ServiceException");
  }

  static float[] randomVector(Random random, int dimension) {
    float[] v = new float[dimension];
    for (int i = 0; i < dimension; i++) {
      v[i] = (float) random.nextGaussian();
    }
    return v;
  }

  static Deadline in(Duration d) {
    return Deadline.in(d);
  }
}
