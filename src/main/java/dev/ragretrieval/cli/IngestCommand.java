package dev.ragretrieval.cli;

import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.embedding.EmbedResponse;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.ingest.BuiltSite;
import dev.ragretrieval.ingest.Ingestor;
import dev.ragretrieval.ingest.MarkdownFolder;
import dev.ragretrieval.ingest.MarkdownReader;
import dev.ragretrieval.ingest.Page;
import dev.ragretrieval.ingest.Preflight;
import dev.ragretrieval.ingest.Progress;
import dev.ragretrieval.ingest.SiteCrawler;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Loads a Markdown folder, a sitemap's pages or one web page into a collection. */
@Command(name = "ingest", mixinStandardHelpOptions = true,
    description = "Chunk, embed and store a Markdown/MDX folder, a built site's folder (HTML), a sitemap.xml's pages,"
        + " one page URL, or (--crawl)"
        + " the pages that links lead to from it."
        + " Re-ingesting embeds only new or changed chunks (each stores a content hash), leaves unchanged"
        + " ones untouched, removes stale chunks and, for a folder, sitemap or crawl, the pages no longer in it"
        + " (unless --keep-missing). A killed run is completed by running it again."
        + " The store, the collection name and the embedder are checked before anything is written."
        + " Pace: RAG_INGEST_EMBED_CONCURRENCY calls at once, RAG_INGEST_EMBED_RATE texts a minute.")
public final class IngestCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<dir|sitemap-url|page-url>",
      description = "a docs folder (or a built site's), a page file, https://site/sitemap.xml, or a page URL")
  String source;

  @Option(names = "--collection", paramLabel = "C", description = "target collection (default: QDRANT_COLLECTION)")
  String collection;

  @Option(names = "--recreate", description = "drop the collection first")
  boolean recreate;

  @Option(names = "--keep-missing",
      description = "keep the documents an earlier ingest of this folder, sitemap or crawl stored that are no longer in it")
  boolean keepMissing;

  @Option(names = "--output", paramLabel = "FILE",
      description = "also write the report as JSON to FILE")
  Path output;

  @Option(names = "--crawl",
      description = "for a page URL: also every page of the site under that page's folder that links lead to,"
          + " breadth first (for sites without a sitemap); mirrored like a sitemap")
  boolean crawl;

  @Option(names = "--ignore-robots",
      description = "with --crawl: fetch the pages the site's robots.txt disallows too (by default a crawl obeys it)")
  boolean ignoreRobots;

  @Option(names = "--max-pages", paramLabel = "N", defaultValue = "1000",
      description = "with --crawl: stop after N pages (default ${DEFAULT-VALUE}); a crawl cut short removes no page")
  int maxPages;

  @Spec
  CommandSpec spec;

  @Option(names = "--base-url", paramLabel = "URL",
      description = "for folders: the folder's published address (the site's, for a folder holding docs/); source_url"
          + " is then each page's address there, by Docusaurus' rules (number prefixes dropped, slug, id, index pages),"
          + " or those of MkDocs, mdBook, Starlight or VitePress in their repositories; in a built site's folder, each"
          + " page file's path under URL; default: the path in the folder (a built site's sitemap addresses)")
  String baseUrl;

  /** A large site under a tight embed budget takes long; a run stuck for a day is broken. */
  private static final Duration RUN_LIMIT = Duration.ofHours(24);

  private final CliEnvironment cli;

  public IngestCommand(CliEnvironment cli) {
    this.cli = cli;
  }

  /**
   * Under a texts-per-minute budget the embedder retries nothing itself: the ingest sends each call
   * again (after a 429's Retry-After, or a backoff), and books every send in the budget, retries
   * included. The provider's own retries would send texts the budget never saw.
   */
  static AppConfig paced(AppConfig config) {
    return config.ingest().embedRatePerMinute().isPresent() ? config.withEmbeddingAttempts(1) : config;
  }

  /** What the argument names, decided before anything starts. */
  private record Source(String id, boolean web, boolean mirrored) {}

  @Override
  public Integer call() {
    Source from = classify();
    try (Services services = Services.start(cli, false, false, IngestCommand::paced);
        SiteCrawler crawler = new SiteCrawler(services.vertx)) {
      String target = collection != null ? collection : services.config.qdrant().collection();
      // the sitemap and the first pages (bounded: SiteCrawler.Stream.BUFFERED) are fetched while the
      // store and the embedder are checked; a failed check still wins, whatever the fetches did
      Future<SiteCrawler.Stream> fetching = !from.web() ? null
          : crawl ? crawler.crawlFrom(source, maxPages, !ignoreRobots) : crawler.stream(source);
      if (crawl) {
        cli.err().println("crawling " + source + ": the pages that links lead to under "
            + SiteCrawler.crawlScope(source) + " (at most " + maxPages + ")");
      }
      EmbedResponse check = Services.await(Preflight.check(services.config.qdrant(), services.store(),
          services.embeddings()::embed, target, recreate), Services.STARTUP);
      Ingestor ingestor = new Ingestor(services.vertx, services.store(), services.embeddings()::embed,
          Progress.console(cli.err(), cli.terminal()));
      // a page that failed for now (a timeout) keeps its chunks (the crawl says which); a 404 page is gone
      Ingestor.Options options = Ingestor.Options.of(target, recreate, services.config.retrieval().filterKeys())
          .fromSource(from.id(), from.mirrored() && !keepMissing, Set.of())
          .withPace(services.config.ingest().embedConcurrency(), services.config.ingest().embedRatePerMinute())
          .withEmbedder(check.model(), check.dimension() > 0 ? check.dimension() : check.vectors().get(0).length);
      SiteCrawler.Stream stream = null;
      List<Page> pages = List.of();
      if (from.web()) {
        stream = Services.await(fetching, crawl ? RUN_LIMIT : Services.STARTUP);
      } else {
        Local local = Services.await(services.vertx.executeBlocking(() -> readLocal(Path.of(source)), false),
            Services.STARTUP);
        pages = local.pages();
        BuiltSite built = local.built();
        if (built == null && pages.isEmpty()) {
          throw new ServiceException(ErrorCode.INVALID_REQUEST, "no pages with text found at " + source
              + ": a folder is read for Markdown (.md, .mdx, .markdown, .qmd, .Rmd), reStructuredText (.rst),"
              + " AsciiDoc (.adoc), notebooks (.ipynb) and, without those, a built site's HTML pages;"
              + " for other sources, ingest the built site (its folder, its sitemap.xml, or a page with --crawl)");
        }
        if (built != null) {
          if (!BuiltSite.isHtml(Path.of(source).getFileName().toString())) {
            cli.err().println("note: a built site (HTML): reading " + built.listing()
                + (built.atPaths() ? ", each at its path in the folder (--base-url gives them the site's address)"
                    : baseUrl == null ? ", at the addresses it gives" : ""));
          }
          if (!built.unmatched().isEmpty()) {
            cli.err().println("note: " + Ingestor.plural(built.unmatched().size(), "page") + " the sitemap lists"
                + " no file of the folder serves" + (built.listing() == BuiltSite.Listing.FILES
                    ? " (most of its pages, so it was set aside)" : "") + ": " + Ingestor.firstFive(built.unmatched()));
          }
          stream = crawler.builtSite(built);
        }
      }
      List<SiteCrawler.Failure> fetchFailures;
      Ingestor.Summary summary;
      if (stream != null) {
        // pages are chunked and embedded while the rest are still being fetched (a crawl has fetched
        // them all to find their links, which takes as long as the site is large)
        if (!stream.disallowed().isEmpty()) {
          cli.err().println("note: the site's robots.txt disallows " + Ingestor.plural(stream.disallowed().size(), "linked page")
              + ", not fetched (--ignore-robots fetches them): " + Ingestor.firstFive(stream.disallowed()));
        }
        if (stream.capped()) {
          options = options.fromSource(from.id(), false, Set.of());
          cli.err().println("note: the crawl stopped at " + Ingestor.plural(maxPages, "page") + " (--max-pages)"
              + " with links left to follow, so no page an earlier run stored is removed");
        }
        cli.err().println("ingesting " + Ingestor.plural(stream.size(), "page") + " into '" + target + "'");
        summary = Services.await(ingestor.ingest(stream, options), RUN_LIMIT);
        if (!stream.duplicates().isEmpty()) {
          cli.err().println("note: " + Ingestor.plural(stream.duplicates().size(), "page") + " left out as another version"
              + " or translation of a page also read (the page names it): " + Ingestor.firstFive(stream.duplicates()));
        }
        fetchFailures = stream.failed();
        fetchFailures.forEach(f -> cli.err().println("failed: " + f.url() + ": " + f.reason()));
      } else {
        cli.err().println("ingesting " + Ingestor.plural(pages.size(), "page") + " into '" + target + "'");
        summary = Services.await(ingestor.ingest(pages, options), RUN_LIMIT);
        fetchFailures = List.of();
      }
      if (summary.pages() == 0) {
        throw new ServiceException(ErrorCode.INVALID_REQUEST, "no pages with text found at " + source
            + (fetchFailures.isEmpty() ? "" : " (" + Ingestor.plural(fetchFailures.size(), "page") + " could not be fetched)")
            // pages fetched, and none with words in its HTML: a site that writes its pages in the browser
            + (stream != null && fetchFailures.isEmpty() ? "; the fetched HTML holds no text, as on a site that renders"
                + " its pages in the browser (Docsify, a single-page app): ingest its Markdown folder instead" : ""));
      }
      return report(summary, fetchFailures);
    }
  }

  private int report(Ingestor.Summary summary, List<SiteCrawler.Failure> fetchFailures) {
    long retryable = fetchFailures.stream().filter(SiteCrawler.Failure::retryable).count();
    long permanent = fetchFailures.size() - retryable;
    cli.out().println(summary.describe() + (fetchFailures.isEmpty() ? ""
        : "; " + Ingestor.plural(fetchFailures.size(), "page") + " failed to fetch"));
    summary.notices().forEach(n -> cli.err().println("note: " + n));
    summary.errors().forEach(e -> cli.err().println("error: " + e));
    summary.failedPages().forEach(page -> cli.err().println("failed: " + page + ": not fully stored"));
    if (summary.failed() > 0 || !summary.failedPages().isEmpty() || retryable > 0) {
      long pages = summary.failedPages().size() + retryable;
      cli.err().println("error: " + Ingestor.plural(pages, "page") + " could not be stored for now"
          + " (named above); run the same command again to complete the job");
    }
    if (permanent > 0) {
      cli.err().println("error: " + Ingestor.plural(permanent, "page") + " could not be fetched or read (see 'failed:'"
          + " above); running again will not change that: fix the links or remove them from the "
          + (crawl ? "pages that link to them" : "sitemap"));
    }
    if (output != null) {
      writeJson(summary, fetchFailures);
    }
    return summary.ok() && fetchFailures.isEmpty() ? 0 : 1;
  }

  /** The report as JSON; the fetch failures join the failed pages, each with its reason. */
  private void writeJson(Ingestor.Summary summary, List<SiteCrawler.Failure> fetchFailures) {
    JsonObject json = summary.toJson().put("source", source);
    JsonArray unfetched = new JsonArray();
    fetchFailures.forEach(f -> unfetched.add(new JsonObject().put("url", f.url()).put("reason", f.reason())
        .put("retryable", f.retryable())));
    json.put("fetch_failures", unfetched);
    json.put("ok", summary.ok() && fetchFailures.isEmpty());
    try {
      Path parent = output.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(output, json.encodePrettily() + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST, "cannot write the report to " + output + ": " + e.getMessage());
    }
  }

  /** A URL, an existing folder or page file (Markdown, reStructuredText, a notebook); anything else fails now. */
  private Source classify() {
    boolean web = source.matches("(?i)https?://.*");
    if (crawl && (!web || SiteCrawler.isSitemap(source))) {
      throw new ParameterException(spec.commandLine(),
          "--crawl starts from a page URL (a sitemap lists its pages already; a folder holds them)");
    }
    if (web && !validUrl(source)) {
      throw new ParameterException(spec.commandLine(), "not a valid URL (http(s)://host/path): " + source);
    }
    if (!web && source.matches("[A-Za-z][A-Za-z0-9+.-]+://.*")) {
      // read as a folder it would be "missing", which hides the real mistake
      throw new ParameterException(spec.commandLine(),
          "not an http(s) URL: " + source + " (ingest reads http(s) URLs, folders and page files)");
    }
    if (ignoreRobots && !crawl) {
      throw new ParameterException(spec.commandLine(), "--ignore-robots goes with --crawl (a sitemap or page URL names its pages)");
    }
    if (maxPages < 1) {
      throw new ParameterException(spec.commandLine(), "--max-pages must be at least 1, got " + maxPages);
    }
    if (web) {
      boolean sitemap = SiteCrawler.isSitemap(source);
      return new Source(source, true, sitemap || crawl);
    }
    Path path = Path.of(source);
    if (Files.isDirectory(path)) {
      return new Source(canonical(path), false, true);
    }
    if (Files.isRegularFile(path) && BuiltSite.isSitemap(path.getFileName().toString())) {
      // a built site's own sitemap: the same source as its folder, mirrored as a sitemap is
      return new Source(canonical(path.toAbsolutePath().getParent()), false, true);
    }
    if (Files.isRegularFile(path) && (MarkdownReader.isMarkdownFile(path.toString())
        || BuiltSite.isHtml(path.getFileName().toString()))) {
      return new Source(canonical(path), false, false);
    }
    if (!Files.exists(path)) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST, "the folder '" + path.toAbsolutePath().normalize()
          + "' is missing (no such file or folder)");
    }
    throw new ServiceException(ErrorCode.INVALID_REQUEST,
        "'" + path + "' is neither a folder, a page file (.md, .mdx, .rst, .adoc, .ipynb, .html, ...), a built site's"
            + " sitemap.xml nor an http(s) URL");
  }

  /** An http(s) URL with a host, as the crawler and the sitemap reader take it. */
  private static boolean validUrl(String url) {
    try {
      URI uri = new URI(url.strip());
      return uri.getHost() != null && !uri.getHost().isEmpty();
    } catch (URISyntaxException e) {
      return false;
    }
  }

  /** The same folder however it is spelled (./docs, docs/, a symlink): the identity a re-ingest matches. */
  private static String canonical(Path path) {
    try {
      return path.toRealPath().toString();
    } catch (IOException e) {
      return path.toAbsolutePath().normalize().toString();
    }
  }

  /** What a folder or file holds: its source pages, or else the pages of the built site it is (or null). */
  private record Local(List<Page> pages, BuiltSite built) {}

  private Local readLocal(Path path) throws IOException {
    if (Files.isRegularFile(path) && BuiltSite.isHtml(path.getFileName().toString())) {
      return new Local(List.of(), BuiltSite.page(path, baseUrl));
    }
    if (Files.isRegularFile(path) && BuiltSite.isSitemap(path.getFileName().toString())) {
      return new Local(List.of(), BuiltSite.ofSitemap(path, baseUrl));
    }
    boolean folder = Files.isDirectory(path);
    // a build may hold a Markdown copy of each page for language models, at paths of its own
    // (Retype, Vocs' assets/md/, Fumadocs' llms.mdx/): the pages its sitemap lists are the site
    BuiltSite built = folder && BuiltSite.listsItsPages(path) ? BuiltSite.read(path, baseUrl) : null;
    if (built != null && built.listing() == BuiltSite.Listing.SITEMAP) {
      return new Local(List.of(), built);
    }
    // a Sphinx build's _sources/ holds copies of its sources: its HTML pages are the site
    List<Page> pages = folder && BuiltSite.sphinxOutput(path) ? List.of() : readFolder(path);
    if (!pages.isEmpty() || !folder) {
      return new Local(pages, null);
    }
    return new Local(pages, built != null ? built : BuiltSite.read(path, baseUrl));
  }

  private List<Page> readFolder(Path path) throws IOException {
    if (Files.isDirectory(path)) {
      MarkdownFolder.Folder folder = MarkdownFolder.site(path, baseUrl);
      for (MarkdownFolder.Layout site : folder.readAs()) {
        cli.err().println("note: " + site.generator() + " site: only what it publishes is read ("
            + String.join(", ", site.folders().stream().map(f -> f.isEmpty() ? "./" : f).toList()) + ")");
      }
      if (!folder.leftOut().isEmpty()) {
        cli.err().println("note: " + Ingestor.plural(folder.leftOut().size(), "page file") + " beside what the site"
            + (folder.readAs().size() > 1 ? "s publish" : " publishes") + " not ingested (ingest their folder for them): "
            + Ingestor.firstFive(folder.leftOut()));
      }
      if (!folder.translations().isEmpty()) {
        cli.err().println("note: the site's translations into its other languages are not ingested: "
            + Ingestor.firstFive(folder.translations()));
      }
      if (!folder.drafts().isEmpty()) {
        cli.err().println("note: " + Ingestor.plural(folder.drafts().size(), "draft") + " (draft: true) not ingested,"
            + " as Docusaurus does not publish them: " + Ingestor.firstFive(folder.drafts()));
      }
      return folder.pages();
    }
    String text = MarkdownFolder.readText(path, path.toString());
    return List.of(MarkdownReader.read(path.getFileName().toString(), text, null, baseUrl));
  }
}
