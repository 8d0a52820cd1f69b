package dev.ragretrieval.testing;

import dev.ragretrieval.app.Application;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.embedding.Vectors;
import dev.ragretrieval.observability.RagMetrics;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The whole service against in-process Qdrant and Cohere stand-ins: a seeded collection of
 * {@link #CHUNKS} whose vectors are {@link CohereTestServer#vectorFor}, so real queries rank by
 * shared words and the expected answer can be computed by brute force.
 */
public final class TestStack {

  public static final String COLLECTION = "textbook_chunks";
  public static final String EMPTY_COLLECTION = "empty_but_allowed";
  public static final String COHERE_KEY = "test-cohere-key-123";
  public static final int DIM = 64;

  /** chapter, section, text. */
  public static final String[][] CHUNKS = {
      {"module-1-ros2", "Introduction", "ROS 2 is the second generation of the Robot Operating System for robot software"},
      {"module-1-ros2", "Nodes", "A ROS 2 node is a process that performs computation and talks to other nodes"},
      {"module-1-ros2", "Nodes", "Nodes are started with ros2 run and inspected with ros2 node list"},
      {"module-1-ros2", "Topics", "Topics carry messages between nodes with a publisher and a subscriber"},
      {"module-1-ros2", "Topics", "A publisher sends messages on a topic at a fixed rate"},
      {"module-1-ros2", "Services", "Services give a request and response call between two nodes"},
      {"module-1-ros2", "Actions", "Actions run long goals with feedback and can be cancelled"},
      {"module-1-ros2", "Parameters", "Parameters configure a node at launch time from YAML files"},
      {"module-1-ros2", "QoS", "Quality of service profiles set reliability and durability of topics"},
      {"module-2-simulation", "URDF", "URDF describes links and joints of a robot model in XML"},
      {"module-2-simulation", "Gazebo", "Gazebo simulates physics sensors and worlds for robots"},
      {"module-2-simulation", "Isaac Sim", "Isaac Sim renders photorealistic scenes on the GPU for synthetic data"},
      {"module-2-simulation", "Sim to real", "Domain randomization narrows the gap between simulation and the real robot"},
      {"module-3-perception", "TF2", "TF2 keeps track of coordinate frames and transforms over time"},
      {"module-3-perception", "Sensors", "Lidar cameras and IMU sensors feed perception pipelines"},
      {"module-3-perception", "SLAM", "SLAM builds a map while localizing the robot in it"},
      {"module-3-perception", "Nav2", "Nav2 plans paths and follows them with controllers and recovery behaviors"},
      {"module-4-humanoid-control", "Kinematics", "Jacobians relate joint velocities to end effector velocities"},
      {"module-4-humanoid-control", "Locomotion", "Bipedal locomotion balances the zero moment point while walking"},
      {"module-5-vla", "VLA", "Vision language action models map camera images and instructions to robot actions"},
  };

  public final Vertx vertx;
  public QdrantTestServer qdrant;
  public CohereTestServer cohere;
  public Application app;
  public WebClient client;
  public final List<String> ids = new ArrayList<>();

  private TestStack(Vertx vertx) {
    this.vertx = vertx;
  }

  public static String url(int i) {
    return "https://example.org/docs/" + CHUNKS[i][0] + "/" + CHUNKS[i][1].toLowerCase().replace(' ', '-');
  }

  public static JsonObject payload(int i) {
    return new JsonObject()
        .put("text", CHUNKS[i][2])
        .put("source_url", url(i))
        .put("page_title", CHUNKS[i][1])
        .put("chapter", CHUNKS[i][0])
        .put("section", CHUNKS[i][1])
        .put("chunk_index", i)
        .put("chunk_id", CHUNKS[i][0] + "#" + i)
        .put("document_id", CHUNKS[i][0])
        .put("source_type", "markdown");
  }

  /** Starts the stand-ins, seeds them and starts the application with {@code settings} laid over the defaults. */
  public static Future<TestStack> start(Vertx vertx, Map<String, String> settings) {
    return start(vertx, settings, new JsonObject(), null);
  }

  public static Future<TestStack> start(Vertx vertx, Map<String, String> settings, JsonObject yaml,
      Handler<RoutingContext> metrics) {
    return start(vertx, settings, yaml, RagMetrics.detached(), metrics);
  }

  /** As above, recording in {@code meters} (which {@code metrics}, when not null, serves at /metrics). */
  public static Future<TestStack> start(Vertx vertx, Map<String, String> settings, JsonObject yaml,
      RagMetrics meters, Handler<RoutingContext> metrics) {
    TestStack stack = new TestStack(vertx);
    return QdrantTestServer.start(vertx)
        .compose(q -> {
          stack.qdrant = q;
          return CohereTestServer.start(vertx, COHERE_KEY, DIM);
        })
        .compose(c -> {
          stack.cohere = c;
          stack.seed();
          return Application.start(vertx, stack.config(settings, yaml), meters, metrics);
        })
        .map(app -> {
          stack.app = app;
          stack.client = WebClient.create(vertx, new WebClientOptions()
              .setDefaultHost("127.0.0.1").setDefaultPort(app.httpPort()));
          return stack;
        });
  }

  private void seed() {
    qdrant.createCollection(COLLECTION, DIM);
    for (int i = 0; i < CHUNKS.length; i++) {
      String id = UUID.nameUUIDFromBytes(("chunk-" + i).getBytes(StandardCharsets.UTF_8)).toString();
      ids.add(id);
      qdrant.upsert(COLLECTION, id, CohereTestServer.vectorFor(CHUNKS[i][2], DIM), payload(i));
    }
  }

  private AppConfig config(Map<String, String> settings, JsonObject yaml) {
    Map<String, String> env = new HashMap<>();
    env.put("QDRANT_HOST", "127.0.0.1");
    env.put("QDRANT_GRPC_PORT", String.valueOf(qdrant.port()));
    env.put("QDRANT_COLLECTIONS", EMPTY_COLLECTION);
    env.put("COHERE_API_KEY", COHERE_KEY);
    env.put("COHERE_BASE_URL", cohere.baseUrl());
    env.put("COHERE_EMBED_DIMENSION", String.valueOf(DIM));
    env.put("EMBEDDING_PROVIDER", "cohere");
    env.put("RAG_HTTP_PORT", "0");
    env.putAll(settings);
    JsonObject tree = new JsonObject()
        .put("http", new JsonObject().put("host", "127.0.0.1"))
        .put("embedding", new JsonObject().put("max_attempts", 2).put("initial_backoff_ms", 10).put("max_backoff_ms", 50))
        .put("qdrant", new JsonObject().put("max_attempts", 2))
        .put("retrieval", new JsonObject()
            .put("filter_keys", new JsonArray().add("chapter").add("section").add("source_type").add("document_id")))
        .mergeIn(yaml, true);
    return ConfigLoader.fromJson(tree, env);
  }

  /** The answer Qdrant must give: every chunk's cosine with the query, at or above the threshold, best first. */
  public static List<Map.Entry<Integer, Double>> bruteForce(String query, int topK, double threshold) {
    float[] q = CohereTestServer.vectorFor(query, DIM);
    List<Map.Entry<Integer, Double>> scored = new ArrayList<>();
    for (int i = 0; i < CHUNKS.length; i++) {
      // the reference is Vectors.cosine, not the Qdrant test server's own scoring, so one slip cannot hide in both
      double score = Vectors.cosine(q, CohereTestServer.vectorFor(CHUNKS[i][2], DIM));
      if (score >= threshold) {
        scored.add(Map.entry(i, score));
      }
    }
    scored.sort(Comparator.comparing((Map.Entry<Integer, Double> e) -> e.getValue()).reversed());
    return scored.subList(0, Math.min(topK, scored.size()));
  }

  public Future<Void> close() {
    Future<Void> stopped = app == null ? Future.succeededFuture() : app.shutdown();
    return stopped
        .eventually(() -> client == null ? Future.succeededFuture() : Future.succeededFuture(closeClient()))
        .eventually(() -> cohere == null ? Future.succeededFuture() : cohere.stop())
        .eventually(() -> qdrant == null ? Future.succeededFuture() : qdrant.stop());
  }

  private Void closeClient() {
    client.close();
    return null;
  }
}
