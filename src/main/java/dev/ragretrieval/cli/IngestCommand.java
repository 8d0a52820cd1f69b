package dev.ragretrieval.cli;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import dev.ragretrieval.ingest.Ingestor;
import dev.ragretrieval.ingest.MarkdownFolder;
import dev.ragretrieval.ingest.MarkdownReader;
import dev.ragretrieval.ingest.Page;
import dev.ragretrieval.ingest.Progress;
import dev.ragretrieval.ingest.SiteCrawler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Loads a Markdown folder, a sitemap's pages or one web page into a collection. */
@Command(name = "ingest", mixinStandardHelpOptions = true,
    description = "Chunk, embed and store a Markdown/MDX folder, a sitemap.xml's pages or one page URL."
        + " Re-ingesting updates pages in place (deterministic ids, stale chunks removed).")
public final class IngestCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<dir|sitemap-url|page-url>",
      description = "a docs folder, https://site/sitemap.xml, or a page URL")
  String source;

  @Option(names = "--collection", paramLabel = "C", description = "target collection (default: QDRANT_COLLECTION)")
  String collection;

  @Option(names = "--recreate", description = "drop the collection first")
  boolean recreate;

  @Option(names = "--base-url", paramLabel = "URL",
      description = "for folders: prefix of source_url (e.g. the published site); default: the path in the folder")
  String baseUrl;

  private final CliEnvironment cli;

  public IngestCommand(CliEnvironment cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    try (Services services = Services.start(cli, false)) {
      String target = collection != null ? collection : services.config.qdrant().collection();
      List<String> crawlFailures = List.of();
      List<Page> pages;
      if (source.matches("(?i)https?://.*")) {
        try (SiteCrawler crawler = new SiteCrawler(services.vertx)) {
          SiteCrawler.Result crawl = Services.await(crawler.crawl(source), Services.STARTUP);
          crawlFailures = crawl.failures();
          pages = crawl.pages();
        }
        crawlFailures.forEach(f -> cli.err().println("failed: " + f));
      } else {
        pages = Services.await(services.vertx.executeBlocking(() -> readFolder(Path.of(source)), false), Services.STARTUP);
      }
      if (pages.isEmpty()) {
        throw new ServiceException(ErrorCode.INVALID_REQUEST, "no pages with text found at " + source);
      }
      cli.err().println("ingesting " + pages.size() + " pages into '" + target + "'");
      Ingestor ingestor = new Ingestor(services.vertx, services.store(), services.embeddings()::embed,
          Progress.console(cli.err(), cli.terminal()));
      Ingestor.Options options = Ingestor.Options.of(target, recreate, services.config.retrieval().filterKeys());
      Ingestor.Summary summary = Services.await(ingestor.ingest(pages, options), Services.STARTUP);
      cli.out().println(summary.describe());
      summary.errors().forEach(e -> cli.err().println("error: " + e));
      if (!summary.ok() || !crawlFailures.isEmpty()) {
        cli.err().println("error: " + (summary.failed() + crawlFailures.size())
            + " chunks or pages were not stored; run the same command again to complete the job");
        return 1;
      }
      return 0;
    }
  }

  private List<Page> readFolder(Path path) throws java.io.IOException {
    if (Files.isDirectory(path)) {
      return MarkdownFolder.read(path, baseUrl);
    }
    if (Files.isRegularFile(path) && path.toString().matches("(?i).*\\.mdx?")) {
      String text = Files.readString(path, StandardCharsets.UTF_8);
      return List.of(MarkdownReader.read(path.getFileName().toString(), text, null, baseUrl));
    }
    throw new ServiceException(ErrorCode.INVALID_REQUEST,
        "'" + path + "' is neither a folder, a Markdown file nor an http(s) URL");
  }
}
