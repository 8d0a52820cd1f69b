package dev.ragretrieval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.Main;
import dev.ragretrieval.testing.CohereTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line, run in-process. Embeddings come from the in-process Cohere server, the store
 * is the embedded one in a temporary folder, so every verb runs its real code path.
 */
class MainTest {

  private static Vertx vertx;
  private static CohereTestServer cohere;

  @TempDir
  Path dataDir;

  @TempDir
  Path work;

  @BeforeAll
  static void startCohere() throws Exception {
    vertx = Vertx.vertx();
    cohere = CohereTestServer.start(vertx, "cli-key", 48).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stopCohere() throws Exception {
    cohere.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  record Run(int code, String out, String err) {}

  private Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("RAG_DATA_DIR", dataDir.toString());
    env.put("EMBEDDING_PROVIDER", "cohere");
    env.put("COHERE_API_KEY", "cli-key");
    env.put("COHERE_BASE_URL", cohere.baseUrl());
    env.put("COHERE_EMBED_DIMENSION", "48");
    return env;
  }

  private Run run(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new CliEnvironment(env, new PrintWriter(out, true), new PrintWriter(err, true), false), args);
    return new Run(code, out.toString(), err.toString());
  }

  private Run run(String... args) {
    return run(env(), args);
  }

  @Test
  @DisplayName("--help lists the verbs and exits 0; every verb has its own --help")
  void help() {
    Run root = run("--help");
    assertThat(root.code()).isZero();
    assertThat(root.out()).contains("serve", "ingest", "query", "eval");
    for (String verb : new String[] {"serve", "ingest", "query", "eval"}) {
      Run help = run(verb, "--help");
      assertThat(help.code()).as(verb).isZero();
      assertThat(help.out()).as(verb).contains("Usage:");
    }
    assertThat(run("query", "--help").out()).contains("--top-k", "--json");
    assertThat(run("ingest", "--help").out()).contains("--collection", "--recreate");
    assertThat(run("eval", "--help").out()).contains("--min-accuracy");
  }

  @Test
  @DisplayName("an unknown option or a missing argument is a usage error: exit 2 and one line on stderr")
  void usageErrors() {
    for (String[] args : new String[][] {{"--bogus"}, {"query"}, {"query", "x", "--top-k", "many"}, {"nope"}}) {
      Run r = run(args);
      assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(r.err().strip()).startsWith("error: ").doesNotContain("\n").doesNotContain("Exception");
    }
  }

  @Test
  @DisplayName("query --json loads the sample book into the empty store and prints the API's JSON")
  void queryJson() {
    Run r = run("query", "What is domain randomization?", "--json", "--top-k", "3");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("loaded sample book: 21 pages");
    JsonObject json = new JsonObject(r.out());
    assertThat(json.getString("query")).isEqualTo("What is domain randomization?");
    assertThat(json.getString("collection")).isEqualTo("textbook_chunks");
    assertThat(json.getString("embedding_model")).isEqualTo("embed-english-v3.0");
    assertThat(json.getString("status")).isEqualTo("success");
    assertThat(json.getInteger("count")).isEqualTo(3);
    assertThat(json.getJsonObject("search_params").getInteger("top_k")).isEqualTo(3);
    assertThat(json.getJsonObject("timings_ms").fieldNames()).contains("embed", "search");
    JsonArray results = json.getJsonArray("results");
    JsonObject first = results.getJsonObject(0);
    assertThat(first.getInteger("rank")).isEqualTo(1);
    assertThat(first.getString("section")).isEqualTo("Domain Randomization");
    assertThat(first.getString("source_url")).isEqualTo("docs/module-2-simulation/04-sim-to-real");
    assertThat(first.getString("chapter")).isEqualTo("module-2-simulation");
    assertThat(first.getJsonObject("metadata").getString("source_type")).isEqualTo("markdown");

    Run human = run("query", "What is domain randomization?");
    assertThat(human.code()).isZero();
    assertThat(human.err()).doesNotContain("loaded sample book");
    assertThat(human.out()).contains("1. [", "Sim-to-Real Transfer > Domain Randomization", "result(s) from 'textbook_chunks'");
  }

  @Test
  @DisplayName("ingest a folder into a named collection, query it, and re-ingest without duplicates")
  void ingestAndQuery() throws Exception {
    Path docs = Files.createDirectories(work.resolve("docs/garden"));
    Files.writeString(docs.resolve("tomatoes.md"), "---\ntitle: Tomatoes\n---\n\n## Watering Tomatoes\n\n"
        + "Water tomatoes deeply twice a week at the base of the plant.\n");
    Run first = run("ingest", work.toString(), "--collection", "garden");
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.err()).contains("ingesting 1 page into 'garden'");
    assertThat(first.out()).contains("garden: 1 page (1 new, 0 changed, 0 unchanged, 0 removed),"
        + " 1 chunk (1 embedded, 0 reused, 0 stale deleted, 0 failed), 1 text embedded in");
    Path report = work.resolve("reports/unchanged.json");
    Run unchanged = run("ingest", work.toString(), "--collection", "garden", "--output", report.toString());
    assertThat(unchanged.code()).as(unchanged.err()).isZero();
    assertThat(unchanged.out()).contains("(0 new, 0 changed, 1 unchanged, 0 removed)", "(0 embedded, 1 reused,");
    JsonObject written = new JsonObject(Files.readString(report));
    assertThat(written.getBoolean("ok")).isTrue();
    assertThat(written.getJsonObject("pages").getInteger("unchanged")).isEqualTo(1);
    assertThat(written.getJsonObject("chunks").getInteger("reused")).isEqualTo(1);
    assertThat(written.getLong("texts_sent")).isZero();
    assertThat(written.getJsonArray("failed_pages")).isEmpty();
    Run again = run("ingest", work.toString(), "--collection", "garden", "--recreate");
    assertThat(again.code()).isZero();
    assertThat(again.out()).contains("(1 embedded, 0 reused,");
    Map<String, String> env = env();
    env.put("QDRANT_COLLECTIONS", "garden");
    Run query = run(env, "query", "how often to water tomatoes", "--collection", "garden", "--json");
    assertThat(query.code()).as(query.err()).isZero();
    JsonObject json = new JsonObject(query.out());
    assertThat(json.getInteger("count")).isEqualTo(1);
    assertThat(json.getJsonArray("results").getJsonObject(0).getString("section")).isEqualTo("Watering Tomatoes");
  }

  @Test
  @DisplayName("failures exit 1 with one line: a missing folder, a folder without Markdown, a bad configuration value")
  void failures() throws Exception {
    Run missing = run("ingest", work.resolve("nope").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err().strip()).startsWith("error: ").contains("nope", "is missing").doesNotContain("\n");

    // a Texinfo manual's sources are no pages this reader knows: the error says what to ingest instead
    Path texinfo = work.resolve("texinfo-manual");
    Files.createDirectories(texinfo);
    Files.writeString(texinfo.resolve("manual.texi"), "@node Top\n@top Welcome\n\nA page.\n");
    Run texi = run("ingest", texinfo.toString());
    assertThat(texi.code()).isEqualTo(1);
    assertThat(texi.err().strip()).startsWith("error: no pages with text found at").contains("ingest the built site")
        .doesNotContain("\n");

    Map<String, String> env = env();
    env.put("EMBEDDING_PROVIDER", "bogus");
    Run config = run(env, "query", "hello");
    assertThat(config.code()).isEqualTo(1);
    assertThat(config.err().strip()).isEqualTo("error: EMBEDDING_PROVIDER must be auto, cohere, local or openai (got 'bogus')");
  }

  @Test
  @DisplayName("eval reports hit@k and exits 1 only when accuracy is below --min-accuracy")
  void eval() throws Exception {
    Path cases = work.resolve("cases.jsonl");
    Files.writeString(cases, """
        {"query": "What is domain randomization?", "expected": "Domain Randomization"}
        {"query": "What does transient local durability do?", "expected": "docs/module-1-ros2/05-qos-profiles"}
        {"query": "What is the zero moment point?", "expected": ["docs/module-4-humanoid-control/02-bipedal-locomotion#The Zero Moment Point"]}
        {"query": "Which sauce goes with pasta?", "expected": "Cooking With Basil"}
        """);
    Run pass = run("eval", cases.toString(), "--min-accuracy", "0.7");
    assertThat(pass.code()).as(pass.err()).isZero();
    assertThat(pass.out()).contains("hit@5: 3/4 = 0.750", "MISS").contains("HIT");
    Run fail = run("eval", cases.toString(), "--min-accuracy", "0.8");
    assertThat(fail.code()).isEqualTo(1);
    assertThat(fail.err()).contains("below --min-accuracy");
    assertThat(run("eval", cases.toString(), "--min-accuracy", "2").code()).isEqualTo(2);
  }

  @Test
  @DisplayName("ingest --crawl: the pages that links lead to from a page, mirrored like a sitemap, robots.txt obeyed"
      + " unless --ignore-robots; with a folder, a sitemap or --max-pages 0 it is a usage error, and so are"
      + " --ignore-robots without --crawl, a URL without a host and a scheme other than http(s)")
  void crawl() throws Exception {
    assertThat(run("ingest", work.toString(), "--crawl").code()).isEqualTo(2);
    assertThat(run("ingest", "http://127.0.0.1:1/sitemap.xml", "--crawl").code()).isEqualTo(2);
    Run zero = run("ingest", "http://127.0.0.1:1/docs/a.html", "--crawl", "--max-pages", "0");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("--max-pages must be at least 1");
    Run rude = run("ingest", "http://127.0.0.1:1/sitemap.xml", "--ignore-robots");
    assertThat(rude.code()).isEqualTo(2);
    assertThat(rude.err()).contains("--ignore-robots goes with --crawl");
    Run hostless = run("ingest", "http://");
    assertThat(hostless.code()).isEqualTo(2);
    assertThat(hostless.err()).contains("not a valid URL (http(s)://host/path): http://").doesNotContain("Exception");
    Run ftp = run("ingest", "ftp://example.com/docs/");
    assertThat(ftp.code()).isEqualTo(2);
    assertThat(ftp.err()).contains("not an http(s) URL: ftp://example.com/docs/").doesNotContain("is missing");

    Map<String, String> site = new java.util.concurrent.ConcurrentHashMap<>();
    site.put("/docs/index.html", crawlPage("Garden", "<p>Notes on a small kitchen garden.</p>"
        + "<a href='tomatoes.html'>Tomatoes</a> <a href='basil.html#sun'>Basil</a> <a href='/blog/'>Blog</a>"));
    site.put("/docs/tomatoes.html", crawlPage("Tomatoes", "<p>Water tomatoes deeply twice a week.</p><a href='./'>Up</a>"));
    site.put("/docs/basil.html", crawlPage("Basil", "<p>Basil wants six hours of sun.</p>"));
    site.put("/blog/", crawlPage("Blog", "<p>Not part of the docs.</p>"));
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      String body = site.get(exchange.getRequestURI().getPath());
      byte[] bytes = (body == null ? "not found" : body).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type",
          exchange.getRequestURI().getPath().endsWith(".txt") ? "text/plain" : "text/html; charset=utf-8");
      exchange.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    server.start();
    try {
      String start = "http://127.0.0.1:" + server.getAddress().getPort() + "/docs/index.html";
      Run first = run("ingest", start, "--crawl", "--collection", "site");
      assertThat(first.code()).as(first.err()).isZero();
      assertThat(first.err()).contains("crawling " + start, "ingesting 3 pages into 'site'");
      assertThat(first.out()).contains("site: 3 pages (3 new");

      site.put("/docs/index.html", crawlPage("Garden", "<p>Notes on a small kitchen garden.</p>"
          + "<a href='tomatoes.html'>Tomatoes</a>"));
      Run second = run("ingest", start, "--crawl", "--collection", "site");
      assertThat(second.code()).as(second.err()).isZero();
      assertThat(second.out()).contains("2 pages (0 new, 1 changed, 1 unchanged, 1 removed)", "1 document removed");

      Run cut = run("ingest", start, "--crawl", "--collection", "site", "--max-pages", "1");
      assertThat(cut.code()).as(cut.err()).isZero();
      assertThat(cut.err()).contains("the crawl stopped at 1 page (--max-pages)");
      assertThat(cut.out()).contains("1 page (0 new, 0 changed, 1 unchanged, 0 removed)");

      site.put("/docs/index.html", crawlPage("Garden", "<p>Notes on a small kitchen garden.</p>"
          + "<a href='tomatoes.html'>Tomatoes</a> <a href='basil.html'>Basil</a>"));
      site.put("/robots.txt", "User-agent: *\nDisallow: /docs/basil\n");
      Run polite = run("ingest", start, "--crawl", "--collection", "site");
      assertThat(polite.code()).as(polite.err()).isZero();
      assertThat(polite.err()).contains("note: the site's robots.txt disallows 1 linked page, not fetched"
          + " (--ignore-robots fetches them): http://127.0.0.1:" + server.getAddress().getPort() + "/docs/basil.html");
      assertThat(polite.out()).contains("2 pages (0 new, 1 changed, 1 unchanged, 0 removed)");
      Run all = run("ingest", start, "--crawl", "--ignore-robots", "--collection", "site");
      assertThat(all.code()).as(all.err()).isZero();
      assertThat(all.out()).contains("3 pages (1 new, 0 changed, 2 unchanged, 0 removed)");

      // a site written in the browser (Docsify): its HTML is a shell with a script, no text to read
      site.put("/shell/index.html", "<html><head><title>Garden Book</title></head><body><div id='app'>Loading...</div>"
          + "<script>window.$docsify = {name: 'Garden Book', loadSidebar: true}</script></body></html>");
      Run shell = run("ingest", "http://127.0.0.1:" + server.getAddress().getPort() + "/shell/index.html", "--crawl",
          "--collection", "shell");
      assertThat(shell.code()).isEqualTo(1);
      assertThat(shell.err()).contains("no pages with text found at",
          "renders its pages in the browser (Docsify, a single-page app): ingest its Markdown folder instead");
    } finally {
      server.stop(0);
    }
  }

  private static String crawlPage(String title, String body) {
    return "<html><head><title>" + title + " - Garden Book</title></head><body><main><h1>" + title + "</h1>"
        + body + "</main></body></html>";
  }

  @Test
  @DisplayName("query names its own options in errors: -k/--top-k, not top_k")
  void optionNamesInErrors() {
    Run r = run("query", "hello", "-k", "0");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("-k/--top-k must be between 1 and").doesNotContain("'top_k'");
  }

  @Test
  @DisplayName("query's --url must be an http(s) URL and --api-key needs --url: usage errors, as in eval")
  void queryServerOptions() {
    for (String[] args : new String[][] {{"query", "hello", "--url", "not a url"}, {"query", "hello", "--api-key", "k"}}) {
      Run bad = run(args);
      assertThat(bad.code()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(bad.err().strip()).startsWith("error: --").doesNotContain("\n");
    }
  }

  @Test
  @DisplayName("ingest checks first: an invalid collection name gives the rule, an unreachable Qdrant its host:port,"
      + " a failing embedder says so; nothing is stored")
  void checksFirst() throws Exception {
    Path docs = Files.createDirectories(work.resolve("docs"));
    Files.writeString(docs.resolve("a.md"), "# A\n\nSome text.\n");
    Run badName = run("ingest", docs.toString(), "--collection", "bad/name");
    assertThat(badName.code()).isEqualTo(1);
    assertThat(badName.err()).contains("invalid collection name 'bad/name'", "letters, digits");

    Map<String, String> qdrant = env();
    qdrant.put("QDRANT_HOST", "127.0.0.1");
    qdrant.put("QDRANT_GRPC_PORT", "1");
    qdrant.put("QDRANT_MAX_ATTEMPTS", "1");
    Run unreachable = run(qdrant, "ingest", docs.toString(), "--collection", "x");
    assertThat(unreachable.code()).isEqualTo(1);
    assertThat(unreachable.err()).contains("127.0.0.1:1").doesNotContain("ingesting");

    Map<String, String> wrongKey = env();
    wrongKey.put("COHERE_API_KEY", "wrong-key");
    Run embedder = run(wrongKey, "ingest", docs.toString(), "--collection", "y");
    assertThat(embedder.code()).isEqualTo(1);
    assertThat(embedder.err()).contains("the embedding provider does not answer").doesNotContain("ingesting");
    assertThat(dataDir.resolve("collections").resolve("y")).doesNotExist();
  }

  @Test
  @DisplayName("delete a page and re-ingest the folder: its chunks are gone, the summary counts it; --keep-missing keeps"
      + " it; an MkDocs repository's notes beside its docs are not read")
  void reingestMirrorsTheFolder() throws Exception {
    Path docs = Files.createDirectories(work.resolve("docs/garden"));
    Files.writeString(docs.resolve("tomatoes.md"), "# Tomatoes\n\n## Watering\n\nWater tomatoes twice a week.\n");
    Files.writeString(docs.resolve("roses.md"), "# Roses\n\n## Pruning\n\nPrune roses in early spring.\n");
    assertThat(run("ingest", work.toString(), "--collection", "garden").code()).isZero();
    Files.delete(docs.resolve("roses.md"));
    Run kept = run("ingest", work.toString(), "--collection", "garden", "--keep-missing");
    assertThat(kept.out()).contains("1 unchanged, 0 removed)");
    Run mirrored = run("ingest", work.toString(), "--collection", "garden");
    assertThat(mirrored.code()).as(mirrored.err()).isZero();
    assertThat(mirrored.out()).contains("1 document removed (1 chunk)");
    assertThat(mirrored.err()).doesNotContain("only what it publishes");
    // the same folder as an MkDocs repository: its notes beside docs/ are not pages, and the run says why
    Files.writeString(work.resolve("mkdocs.yml"), "site_name: Garden\n");
    Files.writeString(work.resolve("NOTES.md"), "# Notes\n\nBuy more roses.\n");
    Run mkdocs = run("ingest", work.toString(), "--collection", "garden");
    assertThat(mkdocs.err()).contains("note: MkDocs site: only what it publishes is read (docs/)",
        "note: 1 page file beside what the site publishes not ingested (ingest their folder for them): NOTES.md");
    assertThat(mkdocs.out()).contains("1 page (0 new, 0 changed, 1 unchanged, 0 removed)");
    Map<String, String> env = env();
    env.put("QDRANT_COLLECTIONS", "garden");
    Run query = run(env, "query", "prune roses", "--collection", "garden", "--json");
    JsonArray results = new JsonObject(query.out()).getJsonArray("results");
    assertThat(results).allSatisfy(r -> assertThat(((JsonObject) r).getString("source_url")).doesNotContain("roses"));
    // as a Quarto project: the whole folder, not its rendered output in _site/
    Files.delete(work.resolve("mkdocs.yml"));
    Files.writeString(work.resolve("_quarto.yml"), "project:\n  type: website\n");
    Files.createDirectories(work.resolve("_site/docs/garden"));
    Files.writeString(work.resolve("_site/docs/garden/tomatoes.md"), "# Tomatoes\n\nA rendered copy.\n");
    Run quarto = run("ingest", work.toString(), "--collection", "garden");
    assertThat(quarto.err()).contains("note: Quarto site: only what it publishes is read (./)");
    // NOTES.md is a page of it now, and tomatoes.md changed chapter: the first folder below the project, docs
    assertThat(quarto.out()).contains("2 pages (1 new, 1 changed, 0 unchanged, 0 removed)");
  }

  @Test
  @DisplayName("ingest of a repository whose book is a Docusaurus site in book/: the book's pages only, and the run"
      + " names the site and the page files beside it that it left out")
  void siteInASubfolder() throws Exception {
    Path repo = work.resolve("repo");
    Files.createDirectories(repo.resolve("book/docs/module-1"));
    Files.createDirectories(repo.resolve("specs/001-book"));
    Files.writeString(repo.resolve("book/docusaurus.config.ts"), "export default {};\n");
    Files.writeString(repo.resolve("book/docs/module-1/gait.md"), "# Gait\n\n## Zero moment point\n\nKeep the ZMP inside"
        + " the support polygon.\n");
    Files.writeString(repo.resolve("specs/001-book/spec.md"), "# Spec\n\nThe book explains the zero moment point.\n");
    Files.writeString(repo.resolve("CLAUDE.md"), "# Agent rules\n\nWrite about the zero moment point.\n");

    Run ingest = run("ingest", repo.toString(), "--collection", "nested");
    assertThat(ingest.code()).as(ingest.err()).isZero();
    assertThat(ingest.err()).contains("note: Docusaurus site: only what it publishes is read (book/docs/, book/blog/,"
        + " book/src/pages/)", "note: 2 page files beside what the site publishes not ingested (ingest their folder for them):"
        + " CLAUDE.md, specs/001-book/spec.md");
    assertThat(ingest.out()).contains("1 page (1 new");
  }

  @Test
  @DisplayName("ingest a built site's folder (HTML; a Sphinx build's copies of its sources are not pages): its pages at"
      + " their paths in the folder, unchanged on a second run, a page gone from the build removed; a build with a"
      + " sitemap and Markdown copies of its pages is read for its HTML pages, also through its sitemap; one saved page")
  void builtSite() throws Exception {
    Path build = Files.createDirectories(work.resolve("build/guide"));
    Files.writeString(build.resolve("tomatoes.html"), crawlPage("Tomatoes", "<p>Water tomatoes deeply twice a week.</p>"));
    Files.writeString(build.resolve("basil.html"), crawlPage("Basil", "<p>Basil wants six hours of sun.</p>"));
    Files.writeString(build.resolveSibling("index.html"), crawlPage("Garden", "<p>Notes on a small kitchen garden.</p>"));
    Files.writeString(build.resolveSibling("404.html"), crawlPage("Page Not Found", "<p>We could not find it.</p>"));
    // as Sphinx builds a Jupyter Book: the sources copied into _sources/, the build's marker file
    Files.createDirectories(build.resolveSibling("_sources/guide"));
    Files.writeString(build.resolveSibling("_sources/guide/tomatoes.md"), "# Tomatoes\n\nWater tomatoes deeply twice a week.\n");
    Files.writeString(build.resolveSibling(".buildinfo"), "# Sphinx build info version 1\n");
    String folder = build.getParent().toString();
    Run first = run("ingest", folder, "--collection", "built");
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.err()).contains("note: a built site (HTML): reading every HTML page file, each at its"
        + " path in the folder (--base-url gives them the site's address)", "ingesting 3 pages into 'built'");
    assertThat(first.out()).contains("built: 3 pages (3 new");
    Map<String, String> env = env();
    env.put("QDRANT_COLLECTIONS", "built");
    Run query = run(env, "query", "how often to water tomatoes", "--collection", "built", "--json");
    JsonObject best = new JsonObject(query.out()).getJsonArray("results").getJsonObject(0);
    assertThat(best.getString("source_url")).isEqualTo("guide/tomatoes.html");
    assertThat(best.getString("page_title")).isEqualTo("Tomatoes");

    Run again = run("ingest", folder, "--collection", "built");
    assertThat(again.out()).contains("3 pages (0 new, 0 changed, 3 unchanged, 0 removed)");
    Files.delete(build.resolve("basil.html"));
    Run removed = run("ingest", folder, "--collection", "built");
    assertThat(removed.code()).as(removed.err()).isZero();
    assertThat(removed.out()).contains("2 pages (0 new, 0 changed, 2 unchanged, 1 removed)", "1 document removed");

    // a build that keeps a Markdown copy of each page (for language models) and a sitemap: its HTML pages
    Path llmBuild = Files.createDirectories(work.resolve("llm-build/assets/md")).getParent().getParent();
    Files.writeString(llmBuild.resolve("assets/md/tomatoes.md"), "# Tomatoes\n\nWater tomatoes deeply twice a week.\n");
    Files.writeString(llmBuild.resolve("index.html"), crawlPage("Tomatoes", "<p>Water tomatoes deeply twice a week.</p>"));
    Files.writeString(llmBuild.resolve("sitemap.xml"), "<urlset><url><loc>https://garden.example.org/</loc></url></urlset>");
    Run llm = run("ingest", llmBuild.toString(), "--collection", "llm");
    assertThat(llm.code()).as(llm.err()).isZero();
    assertThat(llm.err()).contains("note: a built site (HTML): reading the pages its sitemap.xml lists, at the"
        + " addresses it gives");
    env.put("QDRANT_COLLECTIONS", "llm");
    Run fromSitemap = run(env, "query", "how often to water tomatoes", "--collection", "llm", "--json");
    assertThat(new JsonObject(fromSitemap.out()).getJsonArray("results").getJsonObject(0).getString("source_url"))
        .isEqualTo("https://garden.example.org/");
    // its sitemap named instead of its folder: the same source, so nothing to do
    Run sitemap = run("ingest", llmBuild.resolve("sitemap.xml").toString(), "--collection", "llm");
    assertThat(sitemap.code()).as(sitemap.err()).isZero();
    assertThat(sitemap.out()).contains("llm: 1 page (0 new, 0 changed, 1 unchanged, 0 removed)");

    // one saved page: at its file name, or under --base-url
    Run one = run("ingest", build.resolve("tomatoes.html").toString(), "--collection", "one");
    assertThat(one.code()).as(one.err()).isZero();
    assertThat(one.out()).contains("one: 1 page (1 new");
    env.put("QDRANT_COLLECTIONS", "one");
    Run page = run(env, "query", "how often to water tomatoes", "--collection", "one", "--json");
    assertThat(new JsonObject(page.out()).getJsonArray("results").getJsonObject(0).getString("source_url"))
        .isEqualTo("tomatoes.html");
    Run based = run("ingest", build.resolve("tomatoes.html").toString(), "--collection", "one", "--recreate",
        "--base-url", "https://garden.example.org/guide/");
    assertThat(based.code()).as(based.err()).isZero();
    Run there = run(env, "query", "how often to water tomatoes", "--collection", "one", "--json");
    assertThat(new JsonObject(there.out()).getJsonArray("results").getJsonObject(0).getString("source_url"))
        .isEqualTo("https://garden.example.org/guide/tomatoes.html");
  }

  @Test
  @DisplayName("eval writes a JSON report and exits 1 when a test misses its own success_criteria")
  void evalReportAndCriteria() throws Exception {
    Path tests = work.resolve("tests.json");
    Files.writeString(tests, """
        [{"test_id": "dr", "query_text": "What is domain randomization?", "test_category": "conceptual",
          "expected_results": [{"source_url": "docs/module-2-simulation/04-sim-to-real", "section": "Domain Randomization"}]},
         {"test_id": "zmp", "query_text": "What is the zero moment point?", "test_category": "factual",
          "expected_results": "The Zero Moment Point", "success_criteria": {"min_similarity_score": 0.999}}]
        """);
    Path report = work.resolve("report.json");
    Run r = run("eval", tests.toString(), "--output", report.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().lines().filter(l -> l.startsWith("error: ")).toList())
        .containsExactly("error: 1 test(s) below their success_criteria or failed: zmp");
    assertThat(r.out()).contains("| conceptual | 1 | 1.000 | 1.000 | 1.000 | 1.000 |", "[below criteria: first right result scored");
    JsonObject json = new JsonObject(Files.readString(report));
    assertThat(json.getString("collection")).isEqualTo("textbook_chunks");
    assertThat(json.getJsonObject("overall").getInteger("tests")).isEqualTo(2);
    assertThat(json.getJsonObject("overall").getInteger("below_criteria")).isEqualTo(1);
    assertThat(json.getJsonObject("categories").fieldNames()).containsExactlyInAnyOrder("conceptual", "factual");
    JsonObject zmp = json.getJsonArray("tests").getJsonObject(1);
    assertThat(zmp.getString("test_id")).isEqualTo("zmp");
    assertThat(zmp.getBoolean("passed")).isFalse();
    assertThat(zmp.getInteger("first_relevant_rank")).isBetween(1, 5);
  }

  @Test
  @DisplayName("eval --collection accepts a collection outside the configured list and does not load the sample book")
  void evalOtherCollection() throws Exception {
    Path docs = Files.createDirectories(work.resolve("docs/garden"));
    Files.writeString(docs.resolve("tomatoes.md"), "---\ntitle: Tomatoes\n---\n\n## Watering Tomatoes\n\n"
        + "Water tomatoes deeply twice a week at the base of the plant.\n");
    assertThat(run("ingest", work.toString(), "--collection", "garden").code()).isZero();
    Path tests = work.resolve("garden.jsonl");
    Files.writeString(tests, "{\"query_text\": \"how often to water tomatoes\", \"expected_results\": \"Watering Tomatoes\"}\n");
    Run r = run("eval", tests.toString(), "--collection", "garden", "--min-accuracy", "1");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).doesNotContain("sample book");
    assertThat(r.out()).contains("collection 'garden'", "hit@5: 1/1 = 1.000");
    Run missing = run("eval", tests.toString(), "--collection", "nothing_here");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err().strip()).startsWith("error: ").contains("nothing_here").doesNotContain("\n");
  }

  @Test
  @DisplayName("eval finds the bundled sample-book set by its short name; bad options are usage errors")
  void evalBundledSetAndUsage() {
    Run r = run("eval", "sample-book", "--top-k", "3", "--search-mode", "dense");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("58 tests against in-process", "top 3", "| keyword |", "| **all** | 58 |");
    for (String[] args : new String[][] {{"eval", "sample-book", "--search-mode", "sparse"},
        {"eval", "sample-book", "--url", "not a url"}, {"eval", "sample-book", "--top-k", "0"},
        {"eval", "sample-book", "--api-key", "k"}, {"eval", "sample-book", "--collection", "bad name!"}}) {
      Run bad = run(args);
      assertThat(bad.code()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(bad.err().strip()).startsWith("error: ").doesNotContain("\n");
    }
    Run missing = run("eval", work.resolve("none.json").toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err().strip()).contains("no such file");
  }

  @Test
  @DisplayName("eval --search-mode dense,hybrid runs each mode on the same tests, side by side, each scored as"
      + " a run of that mode alone; the JSON report holds each mode")
  void evalSeveralModes() throws Exception {
    Path report = work.resolve("modes.json");
    Run both = run("eval", "sample-book", "--top-k", "3", "--search-mode", "dense,hybrid", "--output", report.toString());
    assertThat(both.code()).as(both.err()).isZero();
    assertThat(both.out()).contains("58 tests against in-process", "search modes: dense, hybrid",
        "| category | tests | hit@1 dense | hit@1 hybrid | hit@3 dense | hit@3 hybrid | MRR@3 dense | MRR@3 hybrid |");
    JsonObject json = new JsonObject(Files.readString(report));
    assertThat(json.getJsonArray("search_modes").getList()).containsExactly("dense", "hybrid");
    for (String mode : new String[] {"dense", "hybrid"}) {
      JsonObject inBoth = json.getJsonObject("modes").getJsonObject(mode);
      assertThat(inBoth.getString("search_mode_used")).isEqualTo(mode);
      Path alone = work.resolve(mode + ".json");
      Run single = run("eval", "sample-book", "--top-k", "3", "--search-mode", mode, "--output", alone.toString());
      assertThat(single.code()).as(single.err()).isZero();
      JsonObject aloneJson = new JsonObject(Files.readString(alone));
      assertThat(inBoth.getJsonObject("overall")).isEqualTo(aloneJson.getJsonObject("overall"));
      assertThat(inBoth.getJsonObject("categories")).isEqualTo(aloneJson.getJsonObject("categories"));
      String summary = single.out().lines().filter(l -> l.startsWith("hit@3: ")).findFirst().orElseThrow();
      assertThat(both.out()).contains(mode + ": ").contains(summary);
    }
  }

  @Test
  @DisplayName("eval with several modes fails when any mode is below --min-accuracy, naming each such mode;"
      + " an unknown mode in the list is a usage error")
  void evalSeveralModesExitStatus() throws Exception {
    Path tests = work.resolve("two.jsonl");
    Files.writeString(tests, """
        {"test_id": "dr", "query_text": "What is domain randomization?", "expected_results": "Domain Randomization"}
        {"test_id": "none", "query_text": "How long do I boil an egg?", "expected_results": "Cooking"}
        """);
    Run r = run("eval", tests.toString(), "--search-mode", "hybrid,dense", "--min-accuracy", "0.9");
    assertThat(r.code()).isEqualTo(1);
    String error = r.err().lines().filter(l -> l.startsWith("error: ")).findFirst().orElseThrow();
    assertThat(error).contains(" in hybrid is below --min-accuracy 0.900", " in dense is below --min-accuracy 0.900");
    assertThat(r.out()).contains("search modes: hybrid, dense").containsPattern("hybrid \\S+ +dense \\S+ +\\S+ +none ");

    Run bad = run("eval", tests.toString(), "--search-mode", "dense,sparse");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err().strip()).startsWith("error: ").contains("--search-mode").doesNotContain("\n");
  }
}
