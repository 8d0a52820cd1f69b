package dev.ragretrieval.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@DisplayName("RequestDeadlines: one timer for the deadlines of every request in flight")
class RequestDeadlinesTest {

  @Test
  @DisplayName("each request expires once, no earlier than its own deadline, oldest first; an answered one never")
  void expiresEachAtItsDeadline(Vertx vertx, VertxTestContext test) {
    List<String> expired = new CopyOnWriteArrayList<>();
    Map<String, Long> admitted = new ConcurrentHashMap<>();
    Map<String, Long> waited = new ConcurrentHashMap<>();
    vertx.runOnContext(start -> {
      RequestDeadlines deadlines = new RequestDeadlines(vertx, 300);
      Function<String, Runnable> admit = name -> {
        admitted.put(name, System.nanoTime());
        return deadlines.admit(() -> {
          waited.put(name, (System.nanoTime() - admitted.get(name)) / 1_000_000);
          expired.add(name);
        });
      };
      vertx.setTimer(1, id -> admit.apply("a"));
      vertx.setTimer(50, id -> {
        Runnable answered = admit.apply("answered");
        vertx.setTimer(20, done -> answered.run());
      });
      vertx.setTimer(120, id -> admit.apply("b"));
      vertx.setTimer(1_200, check -> test.verify(() -> {
        assertThat(expired).containsExactly("a", "b");
        assertThat(waited.get("a")).isBetween(300L, 900L);
        assertThat(waited.get("b")).isBetween(300L, 900L);
        test.completeNow();
      }));
    });
  }

  @Test
  @DisplayName("a thousand requests answered within their timeout set one timer, not a thousand")
  void oneTimerForManyRequests(Vertx vertx, VertxTestContext test) {
    vertx.runOnContext(start -> {
      RequestDeadlines deadlines = new RequestDeadlines(vertx, 100);
      for (int i = 0; i < 1_000; i++) {
        deadlines.admit(() -> test.failNow("expired")).run();
      }
      assertThat(deadlines.timersSet()).isEqualTo(1);
      // the timer fires over an empty set and is not set again until the next request
      vertx.setTimer(300, later -> test.verify(() -> {
        assertThat(deadlines.timersSet()).isEqualTo(1);
        Runnable answer = deadlines.admit(() -> test.failNow("expired"));
        assertThat(deadlines.timersSet()).isEqualTo(2);
        answer.run();
        test.completeNow();
      }));
    });
  }
}
