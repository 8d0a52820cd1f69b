package dev.ragretrieval.ingest;

import crawlercommons.robots.BaseRobotRules;
import crawlercommons.robots.SimpleRobotRulesParser;
import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

  /** The product token of the crawler's User-Agent: the robot name a robots.txt group may address. */
  public static final String ROBOT = "rag-retrieval-ingest";

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
        .setUserAgent(ROBOT + "/1.0").setFollowRedirects(true)
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
      Stream stream = new Stream(list, Map.of(), false, List.of(), List.of());
      stream.start();
      return stream;
    });
  }

  /**
   * A built site's pages, read from their files (on workers) as {@link #stream} fetches a sitemap's:
   * a version or translation of another of its pages is left out the same way. A file that cannot
   * be read fails for good (running again reads the same file).
   */
  public Stream builtSite(BuiltSite site) {
    Map<String, BuiltSite.PageFile> byUrl = new LinkedHashMap<>();
    site.pages().forEach(page -> byUrl.putIfAbsent(page.url(), page));
    Stream stream = new Stream(List.copyOf(byUrl.keySet()), Map.of(), false, List.of(), List.of(),
        url -> vertx.executeBlocking(() -> {
          Path file = byUrl.get(url).file();
          try {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw ServiceException.permanent(ErrorCode.INVALID_REQUEST, "cannot read " + file + ": " + e.getMessage());
          }
        }, false),
        url -> byUrl.get(url).address());
    stream.start();
    return stream;
  }

  /**
   * The pages that links lead to from {@code start}, breadth first, for a site without a sitemap
   * (mdBook, Sphinx): every link to a page of the same site whose path lies under the start page's
   * folder is followed once, until {@code maxPages} pages are found ({@link Stream#capped()} then
   * says that more were linked). Only links that look like pages are followed (a path ending in
   * "/", ".html" or ".htm", or a last segment without a dot), never images, archives or what sits
   * in a folder named with a leading underscore (Sphinx's _sources and _modules); query strings and
   * fragments are dropped, and "dir/index.html" is "dir/"; a page's robots meta tag is obeyed
   * ("noindex": links only; "nofollow": not its links). The HTML fetched to find the links is handed
   * to the ingest, which fetches nothing again. A page that fails is among the stream's failures;
   * if the start page fails, so does the crawl.
   */
  public Future<Stream> crawlFrom(String start, int maxPages, boolean obeyRobots) {
    String first;
    try {
      first = HtmlReader.canonical(start);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, "not a valid URL: " + start));
    }
    Future<Robots> robots = obeyRobots ? robots(first) : Future.succeededFuture(null);
    return robots.compose(rules -> {
      if (rules != null && !rules.rules().isAllowed(first)) {
        return Future.failedFuture(new ServiceException(ErrorCode.INVALID_REQUEST, rules.refusal(first)));
      }
      Crawl crawl = new Crawl(first, maxPages, rules == null ? null : rules.rules());
      crawl.admit(first);
      return crawl.level(List.of(first)).compose(done -> {
        if (crawl.startFailure != null) {
          return Future.<Stream>failedFuture(crawl.startFailure);
        }
        Stream stream = new Stream(List.copyOf(crawl.pages.keySet()), crawl.pages, crawl.capped, crawl.failures,
            List.copyOf(crawl.disallowed));
        stream.start();
        return Future.succeededFuture(stream);
      });
    });
  }

  /** What a site's robots.txt lets {@link #ROBOT} fetch, and how it was had (null: read and parsed). */
  private record Robots(BaseRobotRules rules, String url, String unavailable) {
    String refusal(String page) {
      return unavailable == null
          ? "the site's robots.txt (" + url + ") does not let " + ROBOT + " fetch " + page
              + ": --ignore-robots crawls it anyway, or ingest the site's sitemap"
          : url + " " + unavailable + ", and a crawl then fetches nothing (RFC 9309):"
              + " run it again later, or --ignore-robots";
    }
  }

  /**
   * The rules of the robots.txt at the root of {@code page}'s site for {@link #ROBOT}, as RFC 9309
   * reads them (crawler-commons): a group naming this robot, else the "*" group; the longest
   * matching rule wins. Missing (4xx): everything is allowed; a server error or no answer: nothing is.
   */
  private Future<Robots> robots(String page) {
    URI site = URI.create(page);
    String url = site.getScheme() + "://" + site.getRawAuthority() + "/robots.txt";
    SimpleRobotRulesParser parser = new SimpleRobotRulesParser();
    return client.getAbs(url).timeout(timeout.toMillis()).send()
        .map(response -> response.statusCode() / 100 == 2
            ? new Robots(parser.parseContent(url, response.bodyAsBuffer() == null ? new byte[0]
                : response.bodyAsBuffer().getBytes(), response.getHeader("Content-Type"), List.of(ROBOT)), url, null)
            : new Robots(parser.failedFetch(response.statusCode()), url, "answered HTTP " + response.statusCode()))
        .recover(err -> Future.succeededFuture(
            new Robots(parser.failedFetch(503), url, "could not be fetched (" + reason(err) + ")")));
  }

  /** Where a crawl from {@code start} may go: its folder, "https://site/book/" for "https://site/book/ch01.html". */
  public static String crawlScope(String start) {
    String page = HtmlReader.canonical(start);
    return page.substring(0, page.lastIndexOf('/') + 1);
  }

  /** One breadth-first crawl: each level's pages fetched {@code concurrency} at a time, then the next level. */
  private final class Crawl {
    private final String start;
    private final String scope;
    private final int maxPages;
    /** Fetched pages in the order they were found: URL to HTML. */
    private final Map<String, String> pages = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Set<String> seen = new HashSet<>();
    private final List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean capped;
    /** Why the start page could not be fetched: the crawl fails with it. */
    private volatile Throwable startFailure;
    /** The site's robots.txt rules for this crawl, or null when they are ignored. */
    private final BaseRobotRules robots;
    /** Linked pages that robots.txt keeps this crawl from, in the order they were found. */
    private final Set<String> disallowed = new LinkedHashSet<>();

    Crawl(String start, int maxPages, BaseRobotRules robots) {
      this.start = start;
      this.scope = crawlScope(start);
      this.maxPages = maxPages;
      this.robots = robots;
    }

    /** Whether {@code url} is new, allowed and within the limit; the page it names is then this crawl's to fetch. */
    synchronized boolean admit(String url) {
      String key = url.replaceFirst("/index\\.html?$", "/");
      if (seen.contains(key) || disallowed.contains(key)) {
        return false;
      }
      if (robots != null && !robots.isAllowed(url)) {
        disallowed.add(key);
        return false;
      }
      if (seen.size() >= maxPages) {
        capped = true;
        return false;
      }
      seen.add(key);
      return true;
    }

    Future<Void> level(List<String> urls) {
      if (urls.isEmpty()) {
        return Future.succeededFuture();
      }
      List<Link> found = Collections.synchronizedList(new ArrayList<>());
      return inLanes(urls, (i, url) -> fetchPage(url)
          .compose(html -> vertx.executeBlocking(() -> links(url, html), false).map(read -> {
            if (read.index()) {
              pages.put(url, html);
            }
            read.links().forEach(link -> found.add(new Link(i, link)));
            return read;
          }))
          .onFailure(err -> {
            ServiceException error = ServiceException.from(err);
            failures.add(new Failure(url, error.getMessage(), error.retryable()));
            if (url.equals(start)) {
              startFailure = error;
            }
          })).compose(done -> {
            // admitted in the order of the pages they were found on, whichever lane was first, so that
            // the limit cuts the same pages every time
            List<Link> links;
            synchronized (found) {
              links = new ArrayList<>(found);
            }
            links.sort(java.util.Comparator.comparingInt(Link::foundOn));
            return level(links.stream().map(Link::url).filter(this::admit).toList());
          });
    }

    /**
     * A page's links to pages within this crawl's scope, in document order, and whether the page is
     * to be ingested. A page may say otherwise with {@code <meta name="robots">}: "noindex" (mdBook's
     * print.html, the whole book again on one page) is read for its links only; "nofollow" keeps
     * its links from being followed.
     */
    private Read links(String url, String html) {
      org.jsoup.nodes.Document doc = Jsoup.parse(html, url);
      String robots = doc.select("meta[name~=(?i)^robots$]").eachAttr("content").toString().toLowerCase(Locale.ROOT);
      List<String> found = new ArrayList<>();
      if (!robots.contains("nofollow") && !robots.contains("none")) {
        List<String> targets = new ArrayList<>(doc.select("a[href]:not([download])").eachAttr("abs:href"));
        String redirect = HtmlReader.redirectTarget(doc);
        if (redirect != null) {
          targets.add(redirect);
        }
        for (String target : targets) {
          String page = pageUrl(target);
          if (page != null && page.startsWith(scope)) {
            found.add(page);
          }
        }
      }
      return new Read(found, !robots.contains("noindex") && !robots.contains("none"));
    }
  }

  /** What a crawl takes from a page: its links, and whether it is ingested. */
  private record Read(List<String> links, boolean index) {}

  /** A link to {@code url} on the {@code foundOn}-th page of a crawl's level (a page holds its links in order). */
  private record Link(int foundOn, String url) {}

  /** {@code url} without query and fragment if it is an http(s) link to what looks like a page; else null. */
  static String pageUrl(String url) {
    if (url == null || !url.regionMatches(true, 0, "http", 0, 4)) {
      return null;
    }
    String page;
    try {
      page = HtmlReader.canonical(url);
    } catch (IllegalArgumentException e) {
      return null;
    }
    if (!page.startsWith("http://") && !page.startsWith("https://")) {
      return null;
    }
    String last = page.substring(page.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
    boolean pageLike = last.isEmpty() || !last.contains(".") || last.endsWith(".html") || last.endsWith(".htm");
    // a folder named with a leading underscore is a generator's own: Sphinx's _sources (the pages'
    // source text), _modules (highlighted source code), _static, _images
    return pageLike && !page.substring(page.indexOf("://") + 3).contains("/_") ? page : null;
  }

  /**
   * Pages fetched in the background for an ingest, unread; {@link #failed()} is complete once the
   * ingest took the last page.
   */
  public final class Stream implements PageSource {
    /** Fetched pages waiting for the ingest at most: fetching pauses beyond this (back-pressure). */
    static final int BUFFERED = 64;

    private final List<String> urls;
    /** Pages a crawl fetched already (to find their links): URL to HTML, each taken once. */
    private final Map<String, String> fetched;
    private final boolean capped;
    private final List<String> disallowed;
    /** The run's pages without a trailing slash: a version or translation of one of them is left out. */
    private final Set<String> inRun;
    private final List<String> duplicates = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger nextUrl = new AtomicInteger();
    private final java.util.ArrayDeque<SourcePage> ready = new java.util.ArrayDeque<>();
    private final List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
    private int lanesRunning;
    private Promise<Void> pageArrived;
    private final List<Runnable> pausedLanes = new ArrayList<>();
    /** A page's HTML by its URL: fetched, or read from a built site's file. */
    private final java.util.function.Function<String, Future<String>> source;
    /**
     * What a built site's page read at a URL is stored as (its sitemap address, or its path in the
     * folder); null for a site's pages, stored at their URL.
     */
    private final java.util.function.UnaryOperator<String> address;

    private Stream(List<String> urls, Map<String, String> fetched, boolean capped, List<Failure> failed,
        List<String> disallowed) {
      this(urls, fetched, capped, failed, disallowed, SiteCrawler.this::fetchPage, null);
    }

    private Stream(List<String> urls, Map<String, String> fetched, boolean capped, List<Failure> failed,
        List<String> disallowed, java.util.function.Function<String, Future<String>> source,
        java.util.function.UnaryOperator<String> address) {
      this.source = source;
      this.address = address;
      this.urls = urls;
      this.fetched = fetched;
      this.capped = capped;
      this.disallowed = disallowed;
      this.inRun = urls.stream().map(HtmlReader::pageKey).filter(java.util.Objects::nonNull)
          .collect(java.util.stream.Collectors.toSet());
      failures.addAll(failed);
    }

    /**
     * Pages left out as another version or translation of a page also in this run (complete once
     * {@link #next} has answered an empty list): a versioned or multilingual site's sitemap lists
     * every version and language of each page, which would otherwise be answers many times over.
     */
    public List<String> duplicates() {
      return List.copyOf(duplicates);
    }

    /** Pages a crawl found links to but did not fetch, because the site's robots.txt disallows them. */
    public List<String> disallowed() {
      return disallowed;
    }

    /** Whether a crawl stopped at its page limit with links left to follow: the site holds more than these pages. */
    public boolean capped() {
      return capped;
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
      String crawled = fetched.isEmpty() ? null : fetched.remove(url);
      // the page is read (parsed) by the ingest, and only when its fingerprint says it changed
      (crawled != null ? Future.succeededFuture(crawled) : source.apply(url))
          .compose(html -> vertx.executeBlocking(() -> {
            String original = HtmlReader.originalOf(url, html);
            return original != null && inRun.contains(original) ? null
                : address == null ? SourcePage.html(url, html) : SourcePage.html(url, html, address.apply(url));
          }, false))
          .onComplete(done -> {
            boolean pause = false;
            if (done.failed()) {
              ServiceException error = ServiceException.from(done.cause());
              failures.add(new Failure(shown(url), error.getMessage(), error.retryable()));
            } else if (done.result() == null) {
              duplicates.add(shown(url));
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

    /** How the run names a page it did not store: its URL as listed (which need not be a valid one), or its address. */
    private String shown(String url) {
      return address == null ? url : address.apply(url);
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

  record Locations(List<String> pages, List<String> sitemaps) {}

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
  static Locations locations(String url, String xml) {
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
    Page[] read = new Page[urls.size()];
    List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
    return inLanes(urls, (i, url) -> fetchPage(url)
        .compose(html -> vertx.executeBlocking(() -> HtmlReader.read(url, html), false))
        .onSuccess(page -> read[i] = page)
        .onFailure(err -> {
          ServiceException error = ServiceException.from(err);
          failures.add(new Failure(url, error.getMessage(), error.retryable()));
        })).map(ignored -> {
          List<Page> pages = new ArrayList<>();
          for (Page page : read) {
            if (page != null && !page.sections().isEmpty()) {
              pages.add(page);
            }
          }
          return new Result(pages, failures);
        });
  }

  /** {@code work} on each of {@code urls} (with its index), {@code concurrency} at a time; done once every one is. */
  private Future<Void> inLanes(List<String> urls, java.util.function.BiFunction<Integer, String, Future<?>> work) {
    AtomicInteger next = new AtomicInteger();
    List<Future<Void>> lanes = new ArrayList<>();
    for (int lane = 0; lane < Math.min(concurrency, urls.size()); lane++) {
      Promise<Void> laneDone = Promise.promise();
      lanes.add(laneDone.future());
      lane(urls, next, work, laneDone);
    }
    return Future.join(lanes).mapEmpty();
  }

  private void lane(List<String> urls, AtomicInteger next, java.util.function.BiFunction<Integer, String, Future<?>> work,
      Promise<Void> laneDone) {
    int i = next.getAndIncrement();
    if (i >= urls.size()) {
      laneDone.complete();
      return;
    }
    work.apply(i, urls.get(i)).onComplete(ignored -> lane(urls, next, work, laneDone));
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
