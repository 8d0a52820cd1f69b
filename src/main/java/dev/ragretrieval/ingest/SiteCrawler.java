package dev.ragretrieval.ingest;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Element;
import org.jsoup.parser.Parser;

/**
 * Fetches a documentation site: a sitemap.xml (or sitemap index) and every page it lists, or a
 * single page. A few requests at a time, each with a timeout; pages are parsed on worker threads.
 */
public final class SiteCrawler implements AutoCloseable {

  /** What a crawl produced; {@code failed} holds each page that could not be read. */
  public record Result(List<Page> pages, List<Failure> failed) {

    public Result {
      pages = List.copyOf(pages);
      failed = List.copyOf(failed);
    }

    /** One line per page that could not be read: "url: reason". */
    public List<String> failures() {
      return failed.stream().map(f -> f.url() + ": " + f.reason()).toList();
    }
  }

  /**
   * A page that could not be read. {@code retryable}: another run may read it (a timeout, a 503);
   * a 404 or a malformed URL stays as it is.
   */
  public record Failure(String url, String reason, boolean retryable) {}

  private static final int MAX_SITEMAP_DEPTH = 2;

  private final Vertx vertx;
  private final WebClient client;
  private final int concurrency;
  private final Duration timeout;

  public SiteCrawler(Vertx vertx) {
    this(vertx, 4, Duration.ofSeconds(30));
  }

  public SiteCrawler(Vertx vertx, int concurrency, Duration timeout) {
    this.vertx = vertx;
    this.concurrency = concurrency;
    this.timeout = timeout;
    this.client = WebClient.create(vertx, new WebClientOptions()
        .setUserAgent("rag-retrieval-ingest/1.0").setFollowRedirects(true)
        .setConnectTimeout((int) timeout.toMillis()));
  }

  public static boolean isSitemap(String url) {
    String path;
    try {
      path = URI.create(url).getPath();
    } catch (IllegalArgumentException e) {
      return false; // read as one page, whose fetch reports the bad URL
    }
    path = path == null ? "" : path.toLowerCase(Locale.ROOT);
    return path.endsWith(".xml") || path.contains("sitemap");
  }

  /** A sitemap URL crawls every page it lists; any other URL reads that one page. */
  public Future<Result> crawl(String url) {
    if (!isSitemap(url)) {
      return fetchPages(List.of(url));
    }
    return sitemapUrls(url, 0).compose(urls -> {
      if (urls.isEmpty()) {
        return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST,
            "the sitemap " + url + " lists no pages"));
      }
      return fetchPages(List.copyOf(new LinkedHashSet<>(urls)));
    });
  }

  /**
   * As {@link #crawl}, but the pages come as they are fetched: the sitemap is read first (a sitemap
   * listing no pages fails here), then {@code concurrency} fetches run while the ingest takes pages,
   * holding at most {@link Stream#BUFFERED} fetched pages that the ingest has not taken yet (unread:
   * the ingest parses only the pages that changed).
   */
  public Future<Stream> stream(String url) {
    Future<List<String>> urls = !isSitemap(url) ? Future.succeededFuture(List.of(url))
        : sitemapUrls(url, 0).compose(found -> found.isEmpty()
            ? Future.<List<String>>failedFuture(
                new ServiceException(ErrorCode.INVALID_REQUEST, "the sitemap " + url + " lists no pages"))
            : Future.<List<String>>succeededFuture(List.copyOf(new LinkedHashSet<>(found))));
    return urls.map(list -> {
      Stream stream = new Stream(list);
      stream.start();
      return stream;
    });
  }

  /**
   * Pages fetched in the background for an ingest, unread; {@link #failed()} is complete once the
   * ingest took the last page.
   */
  public final class Stream implements PageSource {
    /** Fetched pages waiting for the ingest at most: fetching pauses beyond this (back-pressure). */
    static final int BUFFERED = 64;

    private final List<String> urls;
    private final AtomicInteger nextUrl = new AtomicInteger();
    private final java.util.ArrayDeque<SourcePage> ready = new java.util.ArrayDeque<>();
    private final List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
    private int lanesRunning;
    private Promise<Void> pageArrived;
    private final List<Runnable> pausedLanes = new ArrayList<>();

    private Stream(List<String> urls) {
      this.urls = urls;
    }

    private void start() {
      int lanes = Math.min(concurrency, urls.size());
      synchronized (this) {
        lanesRunning = lanes;
      }
      for (int lane = 0; lane < lanes; lane++) {
        fetchNext();
      }
    }

    /** The pages the source lists. */
    public int size() {
      return urls.size();
    }

    /** Pages that could not be read (complete once {@link #next} has answered an empty list). */
    public List<Failure> failed() {
      return List.copyOf(failures);
    }

    @Override
    public Set<String> alsoPresent() {
      Set<String> present = new java.util.HashSet<>();
      failed().stream().filter(Failure::retryable).forEach(f -> present.add(f.url()));
      return present;
    }

    @Override
    public Future<List<SourcePage>> next(int max) {
      List<SourcePage> taken = new ArrayList<>();
      List<Runnable> resume;
      Future<Void> wait = null;
      synchronized (this) {
        while (taken.size() < max && !ready.isEmpty()) {
          taken.add(ready.pollFirst());
        }
        if (taken.isEmpty() && lanesRunning > 0) {
          if (pageArrived == null) {
            pageArrived = Promise.promise();
          }
          wait = pageArrived.future();
        }
        resume = new ArrayList<>(pausedLanes);
        pausedLanes.clear();
      }
      resume.forEach(Runnable::run);
      return wait == null ? Future.succeededFuture(taken) : wait.compose(v -> next(max));
    }

    private void fetchNext() {
      int i = nextUrl.getAndIncrement();
      if (i >= urls.size()) {
        laneDone();
        return;
      }
      String url = urls.get(i);
      // the page is read (parsed) by the ingest, and only when its fingerprint says it changed
      fetchPage(url)
          .compose(html -> vertx.executeBlocking(() -> SourcePage.html(url, html), false))
          .onComplete(done -> {
            boolean pause = false;
            if (done.failed()) {
              ServiceException error = ServiceException.from(done.cause());
              failures.add(new Failure(url, error.getMessage(), error.retryable()));
            } else {
              synchronized (this) {
                ready.addLast(done.result());
                pause = ready.size() >= BUFFERED;
                if (pause) {
                  pausedLanes.add(this::fetchNext);
                }
              }
              signal();
            }
            if (!pause) {
              fetchNext();
            }
          });
    }

    private void laneDone() {
      synchronized (this) {
        lanesRunning--;
      }
      signal();
    }

    private void signal() {
      Promise<Void> arrived;
      synchronized (this) {
        arrived = pageArrived;
        pageArrived = null;
      }
      if (arrived != null) {
        arrived.complete();
      }
    }
  }

  private record Locations(List<String> pages, List<String> sitemaps) {}

  private Future<List<String>> sitemapUrls(String url, int depth) {
    return fetch(url).compose(xml -> vertx.executeBlocking(() -> locations(url, xml), false)).compose(found -> {
      List<String> pages = new ArrayList<>(found.pages());
      if (found.sitemaps().isEmpty() || depth >= MAX_SITEMAP_DEPTH) {
        return Future.succeededFuture(pages);
      }
      List<Future<List<String>>> children = found.sitemaps().stream().map(n -> sitemapUrls(n, depth + 1)).toList();
      return Future.all(children).map(all -> {
        children.forEach(child -> pages.addAll(child.result()));
        return pages;
      });
    });
  }

  /** A urlset lists pages; a sitemapindex lists further sitemaps. */
  private static Locations locations(String url, String xml) {
    var doc = Jsoup.parse(xml, url, Parser.xmlParser());
    List<String> pages = new ArrayList<>();
    List<String> sitemaps = new ArrayList<>();
    for (Element loc : doc.select("loc")) {
      boolean inIndex = loc.parent() != null && loc.parent().normalName().equals("sitemap");
      (inIndex ? sitemaps : pages).add(loc.text().strip());
    }
    return new Locations(pages, sitemaps);
  }

  /** Fetches and reads the pages, {@code concurrency} at a time; keeps sitemap order. */
  private Future<Result> fetchPages(List<String> urls) {
    if (urls.isEmpty()) {
      return Future.succeededFuture(new Result(List.of(), List.of()));
    }
    Page[] read = new Page[urls.size()];
    List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger next = new AtomicInteger();
    int lanes = Math.min(concurrency, urls.size());
    List<Future<Void>> all = new ArrayList<>();
    for (int lane = 0; lane < lanes; lane++) {
      Promise<Void> laneDone = Promise.promise();
      all.add(laneDone.future());
      fetchNext(urls, read, failures, next, laneDone);
    }
    return Future.join(all).map(ignored -> {
      List<Page> pages = new ArrayList<>();
      for (Page page : read) {
        if (page != null && !page.sections().isEmpty()) {
          pages.add(page);
        }
      }
      return new Result(pages, failures);
    });
  }

  private void fetchNext(List<String> urls, Page[] read, List<Failure> failures, AtomicInteger next,
      Promise<Void> laneDone) {
    int i = next.getAndIncrement();
    if (i >= urls.size()) {
      laneDone.complete();
      return;
    }
    String url = urls.get(i);
    fetchPage(url)
        .compose(html -> vertx.executeBlocking(() -> HtmlReader.read(url, html), false))
        .onSuccess(page -> read[i] = page)
        .onFailure(err -> {
          ServiceException error = ServiceException.from(err);
          failures.add(new Failure(url, error.getMessage(), error.retryable()));
        })
        .onComplete(ignored -> fetchNext(urls, read, failures, next, laneDone));
  }

  /**
   * A page's HTML (or text). A sitemap may also list PDFs, images or archives: their bytes are not
   * text, so such a URL fails for good (running again gives the same type), named with its type, and
   * stores nothing.
   */
  private Future<String> fetchPage(String url) {
    return get(url).compose(response -> {
      String type = response.getHeader("Content-Type");
      String media = type == null ? "" : type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
      // text of any kind is read as a page (HTML, or text/plain and text/markdown as one body of text),
      // and so is a response without a Content-Type
      if (!media.isEmpty() && !media.startsWith("text/") && !media.equals("application/xhtml+xml")) {
        return Future.failedFuture(ServiceException.permanent(ErrorCode.UPSTREAM_ERROR,
            "fetching " + url + " answered " + media + ": not a page of HTML or text, so it is not ingested"));
      }
      return Future.succeededFuture(text(response));
    });
  }

  private Future<String> fetch(String url) {
    return get(url).map(SiteCrawler::text);
  }

  private static String text(HttpResponse<Buffer> response) {
    String body = response.bodyAsString("UTF-8");
    return body == null ? "" : body;
  }

  /** A 2xx response, or a failure that says whether running again may help. */
  private Future<HttpResponse<Buffer>> get(String url) {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, "not a valid URL: " + url));
    }
    if (uri.getScheme() == null || !uri.getScheme().matches("(?i)https?") || uri.getHost() == null) {
      return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, "not an http(s) URL: " + url));
    }
    return client.getAbs(url).timeout(timeout.toMillis()).send()
        .recover(err -> Future.failedFuture(new ServiceException(ErrorCode.CONNECTION_ERROR,
            "cannot fetch " + url + " (" + reason(err) + ")")))
        .compose((HttpResponse<Buffer> response) -> {
          int status = response.statusCode();
          if (status / 100 != 2) {
            String message = "fetching " + url + " answered HTTP " + status;
            // 4xx is about the page (gone, forbidden): the same fetch gives the same answer, but for these
            boolean retryable = status / 100 != 4 || status == 408 || status == 425 || status == 429;
            return Future.failedFuture(retryable ? new ServiceException(ErrorCode.UPSTREAM_ERROR, message)
                : ServiceException.permanent(ErrorCode.UPSTREAM_ERROR, message));
          }
          return Future.succeededFuture(response);
        });
  }

  private static String reason(Throwable err) {
    String name = err.getClass().getSimpleName();
    if (name.contains("Timeout")) {
      return "timed out";
    }
    String message = err.getMessage();
    return message == null ? "connection failed" : message.lines().findFirst().orElse("connection failed");
  }

  @Override
  public void close() {
    client.close();
  }
}
