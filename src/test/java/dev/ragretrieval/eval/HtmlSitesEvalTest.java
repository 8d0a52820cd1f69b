package dev.ragretrieval.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.embedding.EmbeddingClient;
import dev.ragretrieval.embedding.EmbeddingProvider;
import dev.ragretrieval.embedding.EmbeddingProviders;
import dev.ragretrieval.embedding.EmbeddingVerticle;
import dev.ragretrieval.ingest.HtmlReader;
import dev.ragretrieval.ingest.Ingestor;
import dev.ragretrieval.ingest.Page;
import dev.ragretrieval.ingest.Progress;
import dev.ragretrieval.observability.RagMetrics;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.search.VectorStore;
import dev.ragretrieval.search.embedded.EmbeddedVectorStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small version of the PostgreSQL-manual run (bench/postgres-manual): the real pages under
 * src/test/resources/html (DocBook, Sphinx, MkDocs, Docusaurus) read, chunked, embedded with the
 * local model into the embedded store, then their questions (html/eval.jsonl) evaluated.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 3, timeUnit = TimeUnit.MINUTES)
class HtmlSitesEvalTest {

  private static final String COLLECTION = "doc_sites";
  private static final List<String> PAGES = List.of("docbook/indexes-expressional.html",
      "docbook/jit-extensibility.html", "docbook/logicaldecoding-synchronous.html", "docbook/indexes.html",
      "docbook/passwordcheck.html", "sphinx/markdown.html", "mkdocs/installation.html", "docusaurus/qos-profiles.html");

  private EmbeddingProvider provider;
  private VectorStore store;

  @TempDir
  Path dataDir;

  private static String resource(String path) {
    try (InputStream in = HtmlSitesEvalTest.class.getResourceAsStream("/html/" + path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  @DisplayName("questions about real DocBook, Sphinx, MkDocs and Docusaurus pages find their page and section in the top 3")
  void realPagesAreFound(Vertx vertx, VertxTestContext test) {
    AppConfig config = ConfigLoader.fromJson(new JsonObject(), Map.of("RAG_DATA_DIR", dataDir.toString(),
        "EMBEDDING_PROVIDER", "local", "QDRANT_COLLECTION", COLLECTION, "RAG_LOAD_SAMPLE_BOOK", "false"));
    List<Page> pages = new ArrayList<>();
    PAGES.forEach(p -> pages.add(HtmlReader.read("https://docs.example.org/" + p, resource(p))));
    vertx.executeBlocking(() -> EmbeddingProviders.create(vertx, config.embedding(), RagMetrics.detached()))
        .compose(created -> {
          provider = created;
          return EmbeddingVerticle.deploy(vertx, created);
        })
        .compose(id -> {
          EmbeddingClient client = new EmbeddingClient(vertx);
          store = new EmbeddedVectorStore(vertx, config.store().dataDir(), RagMetrics.detached());
          Ingestor ingestor = new Ingestor(vertx, store, client::embed, Progress.NONE);
          RetrievalService service = new RetrievalService(client, store, config);
          return ingestor.ingest(pages, Ingestor.Options.of(COLLECTION, false, config.retrieval().filterKeys()))
              .compose(summary -> new Evaluator(new InProcessRetriever(service, 32, 120_000),
                  new Evaluator.Options(3, COLLECTION, null)).run(EvalCase.parse(resource("eval.jsonl"))));
        })
        .compose(report -> Future.join(store.close(), provider.close()).map(closed -> report))
        .onComplete(test.succeeding(report -> test.verify(() -> {
          report.lines().forEach(System.out::println);
          System.out.println(report.summary());
          assertThat(report.overall().errors()).isZero();
          // measured: every question's page and section ranked first
          assertThat(report.overall().hitAtK()).as("hit@3").isEqualTo(1.0);
          assertThat(report.overall().hitAt1()).as("hit@1").isGreaterThanOrEqualTo(0.85);
          test.completeNow();
        })));
  }
}
