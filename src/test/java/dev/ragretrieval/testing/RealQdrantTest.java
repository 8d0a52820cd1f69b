package dev.ragretrieval.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The harness itself: a three-node cluster forms, and a killed node rejoins on its storage. */
class RealQdrantTest {

  @Test
  @DisplayName("three real Qdrant nodes on 127.0.0.1-3 form one cluster; a killed node comes back into it")
  void clusterFormsAndANodeRejoins() {
    try (RealQdrant cluster = RealQdrant.cluster(3)) {
      assertThat(cluster.hostsValue("qdrant.test"))
          .isEqualTo("127.0.0.1 qdrant.test\n127.0.0.2 qdrant.test\n127.0.0.3 qdrant.test\n");
      JsonObject created = cluster.rest("PUT", "/collections/probe", new JsonObject()
          .put("vectors", new JsonObject().put("size", 4).put("distance", "Cosine"))
          .put("shard_number", 3).put("replication_factor", 2));
      assertThat(created.getBoolean("result")).as(created.encode()).isTrue();

      cluster.node(3).kill();
      assertThat(cluster.node(3).isAlive()).isFalse();
      JsonObject info = cluster.node(1).rest("GET", "/collections/probe/cluster", null);
      assertThat(info.getInteger("http_status")).isEqualTo(200);

      cluster.node(3).start();
      cluster.node(3).awaitReady(Duration.ofSeconds(90));
      cluster.node(3).awaitPeers(3, Duration.ofSeconds(30));
      JsonObject seenByThird = cluster.node(3).rest("GET", "/collections/probe", null);
      assertThat(seenByThird.getJsonObject("result").getJsonObject("config").getJsonObject("params")
          .getInteger("replication_factor")).isEqualTo(2);
    }
  }
}
