package dev.ragretrieval.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.atlassian.oai.validator.report.ValidationReport;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.http.Readiness;
import dev.ragretrieval.search.embedded.EmbeddedVectorStore;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The readiness answer given while start-up still prepares the collection matches the published schema. */
@ExtendWith(VertxExtension.class)
class ReadinessSpecTest {

  @Test
  @DisplayName("the start-up DOWN report (check 'startup') is a valid Readiness document")
  void startingUpReportMatchesTheSpec(Vertx vertx, VertxTestContext test, @TempDir Path dataDir) {
    AppConfig config = ConfigLoader.fromJson(new JsonObject(),
        Map.of("RAG_DATA_DIR", dataDir.toString(), "EMBEDDING_PROVIDER", "local"));
    EmbeddedVectorStore store = new EmbeddedVectorStore(vertx, dataDir, dev.ragretrieval.observability.RagMetrics.detached());
    Readiness readiness = new Readiness(store,
        dev.ragretrieval.embedding.EmbeddingProviders.create(vertx, config.embedding(), dev.ragretrieval.observability.RagMetrics.detached()),
        config);
    readiness.startingUp("loading the sample book");
    readiness.check()
        .onComplete(test.succeeding(report -> test.verify(() -> {
          JsonObject json = report.toJson();
          assertThat(json.getString("status")).isEqualTo("DOWN");
          // plain maps and lists all the way down, as the schema validator's Jackson expects
          Object plain = new ObjectMapper().readValue(json.encode(), Map.class);
          ValidationReport validation = OpenApiSpec.validate(plain, OpenApiSpec.component("Readiness"));
          assertThat(validation.getMessages().stream()
              .filter(m -> m.getLevel() == ValidationReport.Level.ERROR)
              .map(m -> m.getKey() + ": " + m.getMessage()).toList())
              .as("validation of %s", json.encode()).isEmpty();
        })))
        .eventually(store::close)
        .onComplete(test.succeedingThenComplete());
  }
}
