package dev.ragretrieval.testing;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.qdrant.client.grpc.Collections.ListCollectionsRequest;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Points.CountPoints;
import io.qdrant.client.grpc.Points.ScrollPoints;
import io.qdrant.client.grpc.VxCollectionsGrpcClient;
import io.qdrant.client.grpc.VxPointsGrpcClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.junit5.VertxExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The test server itself, through the plain generated Vert.x stubs. */
@ExtendWith(VertxExtension.class)
class QdrantTestServerTest {

  private QdrantTestServer qdrant;
  private GrpcClient client;
  private VxPointsGrpcClient points;
  private VxCollectionsGrpcClient collections;

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    qdrant = QdrantTestServer.start(vertx).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    client = GrpcClient.client(vertx, new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
    SocketAddress address = SocketAddress.inetSocketAddress(qdrant.port(), "127.0.0.1");
    points = VxPointsGrpcClient.create(client, address);
    collections = VxCollectionsGrpcClient.create(client, address);
  }

  @AfterEach
  void stop() throws Exception {
    await(client.close());
    await(qdrant.stop());
  }

  @Test
  @DisplayName("an RPC the server does not implement answers UNIMPLEMENTED")
  void unimplemented() {
    Throwable failure = failure(points.get(io.qdrant.client.grpc.Points.GetPoints.newBuilder().setCollectionName("docs").build()));

    assertThat(failure).isInstanceOf(InvalidStatusException.class);
    assertThat(((InvalidStatusException) failure).actualStatus()).isEqualTo(GrpcStatus.UNIMPLEMENTED);
  }

  @Test
  @DisplayName("Scroll pages through the filtered points in id order (numbers first), with only the payload asked for")
  void scrollPages() throws Exception {
    qdrant.createCollection("docs", 2);
    String uuidLow = "00000000-0000-0000-0000-00000000000a";
    String uuidHigh = "ffffffff-0000-0000-0000-000000000001";
    qdrant.upsert("docs", uuidHigh, new float[] {1, 0}, new JsonObject().put("page", "p").put("hash", "h1"));
    qdrant.upsert("docs", "7", new float[] {1, 0}, new JsonObject().put("page", "p").put("hash", "h2"));
    qdrant.upsert("docs", uuidLow, new float[] {1, 0}, new JsonObject().put("page", "p").put("hash", "h3"));
    qdrant.upsert("docs", "3", new float[] {0, 1}, new JsonObject().put("page", "other").put("hash", "h4"));
    Filter pageP = Filter.newBuilder().addMust(io.qdrant.client.grpc.Common.Condition.newBuilder()
        .setField(io.qdrant.client.grpc.Common.FieldCondition.newBuilder().setKey("page")
            .setMatch(io.qdrant.client.grpc.Common.Match.newBuilder().setKeyword("p")))).build();
    ScrollPoints.Builder scroll = ScrollPoints.newBuilder().setCollectionName("docs").setFilter(pageP).setLimit(2)
        .setWithPayload(io.qdrant.client.grpc.Points.WithPayloadSelector.newBuilder()
            .setInclude(io.qdrant.client.grpc.Points.PayloadIncludeSelector.newBuilder().addFields("hash")));

    var first = await(points.scroll(scroll.build()));
    var second = await(points.scroll(scroll.setOffset(first.getNextPageOffset()).build()));

    assertThat(first.getResultList()).extracting(p -> p.getId().hasNum() ? String.valueOf(p.getId().getNum())
        : p.getId().getUuid()).containsExactly("7", uuidLow);
    assertThat(first.getResult(0).getPayloadMap()).containsOnlyKeys("hash");
    assertThat(first.getResult(0).hasVectors()).isFalse();
    assertThat(first.getNextPageOffset().getUuid()).isEqualTo(uuidHigh);
    assertThat(second.getResultList()).extracting(p -> p.getId().getUuid()).containsExactly(uuidHigh);
    assertThat(second.hasNextPageOffset()).isFalse();
  }

  @Test
  @DisplayName("Count with a filter counts only matching points; List names the collections")
  void countAndList() throws Exception {
    qdrant.createCollection("docs", 2);
    qdrant.upsert("docs", "1", new float[] {1, 0}, new JsonObject().put("chapter", "a"));
    qdrant.upsert("docs", "2", new float[] {0, 1}, new JsonObject().put("chapter", "b"));
    Filter onlyA = Filter.newBuilder().addMust(io.qdrant.client.grpc.Common.Condition.newBuilder()
        .setField(io.qdrant.client.grpc.Common.FieldCondition.newBuilder().setKey("chapter")
            .setMatch(io.qdrant.client.grpc.Common.Match.newBuilder().setKeyword("a")))).build();

    long counted = await(points.count(CountPoints.newBuilder().setCollectionName("docs").setFilter(onlyA).build()))
        .getResult().getCount();
    var listed = await(collections.list(ListCollectionsRequest.getDefaultInstance()));

    assertThat(counted).isEqualTo(1);
    assertThat(listed.getCollectionsList()).extracting(c -> c.getName()).containsExactly("docs");
    assertThat(qdrant.callCount("Count")).isEqualTo(1);
    assertThat(qdrant.callCount("Collections/List")).isEqualTo(1);
  }

  @Test
  @DisplayName("a missing collection answers NOT_FOUND with Qdrant's message")
  void notFound() {
    Throwable failure = failure(points.count(CountPoints.newBuilder().setCollectionName("nope").build()));

    assertThat(((InvalidStatusException) failure).actualStatus()).isEqualTo(GrpcStatus.NOT_FOUND);
  }

  private static Throwable failure(Future<?> future) {
    try {
      future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    throw new AssertionError("expected a failure");
  }
}
