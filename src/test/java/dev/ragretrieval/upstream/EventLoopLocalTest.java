package dev.ragretrieval.upstream;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("EventLoopLocal: an instance per event loop; a caller off every loop is moved onto one")
class EventLoopLocalTest {

  private Vertx vertx;
  private final AtomicInteger made = new AtomicInteger();
  private EventLoopLocal<String> local;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(4));
    local = new EventLoopLocal<>(vertx, () -> "instance " + made.incrementAndGet() + " of " + Thread.currentThread().getName());
  }

  @AfterEach
  void stop() {
    await(vertx.close());
  }

  /** {@code local.get()} on {@code context}'s loop. */
  private String getOn(Context context) {
    Promise<String> got = Promise.promise();
    context.runOnContext(ignored -> got.complete(local.get()));
    return await(got.future());
  }

  @Test
  @DisplayName("each loop makes its own instance once and gets it again; a thread off every loop may not ask")
  void onePerLoop() {
    // each made on the group's next loop
    Context first = ((VertxInternal) vertx).createEventLoopContext();
    Context second = ((VertxInternal) vertx).createEventLoopContext();
    String a = getOn(first);
    String b = getOn(second);
    assertThat(a).isNotEqualTo(b);
    assertThat(getOn(first)).isSameAs(a);
    assertThat(getOn(second)).isSameAs(b);
    assertThat(made).hasValue(2);
    assertThat(local.all()).containsExactlyInAnyOrder(a, b);
    assertThatThrownBy(local::get).isInstanceOf(IllegalStateException.class).hasMessageContaining("off an event loop");
  }

  @Test
  @DisplayName("call from a loop runs at once, with that loop's instance")
  void callOnALoop() {
    Context context = ((VertxInternal) vertx).createEventLoopContext();
    Promise<List<Object>> seen = Promise.promise();
    context.runOnContext(ignored -> {
      Thread caller = Thread.currentThread();
      boolean[] ran = {false};
      Future<String> answer = local.call(instance -> {
        ran[0] = Thread.currentThread() == caller;
        return Future.succeededFuture(instance);
      });
      seen.complete(List.of(ran[0], answer.result(), local.get()));
    });
    List<Object> result = await(seen.future());
    assertThat(result.get(0)).isEqualTo(true);
    assertThat(result.get(1)).isSameAs(result.get(2));
  }

  @Test
  @DisplayName("call from a thread off every loop runs on a Vert.x event loop context, the same one each time, with its loop's instance")
  void callOffEveryLoop() {
    Map<String, Object> first = await(local.call(instance -> Future.succeededFuture(where(instance))));
    assertThat(first.get("eventLoop")).isEqualTo(true);
    assertThat(first.get("context")).isNotNull();
    for (int i = 0; i < 5; i++) {
      Map<String, Object> again = await(local.call(instance -> Future.succeededFuture(where(instance))));
      assertThat(again.get("context")).isSameAs(first.get("context"));
      assertThat(again.get("thread")).isSameAs(first.get("thread"));
      assertThat(again.get("instance")).isSameAs(first.get("instance"));
    }
    assertThat(made).hasValue(1);
  }

  @Test
  @DisplayName("call off every loop: what the step throws fails the future, and what it answers later arrives")
  void callOffEveryLoopFails() throws Exception {
    Future<String> thrown = local.call(instance -> {
      throw new IllegalArgumentException("no such thing");
    });
    assertThatThrownBy(() -> thrown.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalArgumentException.class);
    Future<String> later = local.call(instance -> {
      Promise<String> answer = Promise.promise();
      vertx.setTimer(50, id -> answer.complete("later"));
      return answer.future();
    });
    assertThat(await(later)).isEqualTo("later");
  }

  @Test
  @DisplayName("call needs the Vertx: an EventLoopLocal made without one refuses a caller off every loop")
  void callWithoutVertx() {
    EventLoopLocal<String> loopOnly = new EventLoopLocal<>(() -> "x");
    assertThatThrownBy(() -> loopOnly.call(Future::succeededFuture)).isInstanceOf(IllegalStateException.class);
  }

  private static Map<String, Object> where(String instance) {
    return Map.of("eventLoop", Context.isOnEventLoopThread(), "context", Vertx.currentContext(),
        "thread", Thread.currentThread(), "instance", instance);
  }
}
