package dev.ragretrieval.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** QDRANT_HOST is a name or an address; a URL or host:port is refused at start, not on every search. */
class QdrantHostSettingTest {

  private static AppConfig config(String host) {
    return ConfigLoader.fromJson(new JsonObject(), Map.of("QDRANT_HOST", host));
  }

  @Test
  @DisplayName("names, IPv4 and IPv6 addresses are taken as they are")
  void hosts() {
    for (String host : new String[] {"qdrant", "qdrant-headless.rag.svc.cluster.local", "10.0.0.7", "::1", "fe80::1"}) {
      assertThat(config(host).qdrant().host()).contains(host);
    }
  }

  @Test
  @DisplayName("a URL or host:port stops start-up, naming where the port and TLS go (it failed as 'cannot resolve'"
      + " on every call)")
  void urlsAreRefused() {
    for (String host : new String[] {"http://localhost:6334", "https://xyz.cloud.qdrant.io", "localhost:6334", "qdrant/"}) {
      assertThatThrownBy(() -> config(host))
          .isInstanceOf(ConfigException.class)
          .hasMessage("QDRANT_HOST must be a host name or address (got '" + host + "'): the port goes in"
              + " QDRANT_GRPC_PORT (gRPC, 6334 unless changed) and https in QDRANT_TLS=true");
    }
  }
}
