package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Crawls a local server that serves Docusaurus-like pages and a sitemap. */
@ExtendWith(VertxExtension.class)
class SiteCrawlerTest {

  private HttpServer server;
  private SiteCrawler crawler;
  private String base;
  /** What /robots.txt answers: its status and body (404 by default, as on a site without one). */
  private int robotsStatus = 404;
  private String robots = "";

  static String page(String title, String breadcrumb, String body) {
    return """
        <!doctype html><html><head><title>%s | My Book</title></head><body>
        <nav class="navbar">NAVBAR Home Docs Blog GitHub</nav>
        <div class="main-wrapper">
          <aside class="theme-doc-sidebar-container"><ul><li>SIDEBAR entry</li></ul></aside>
          <main>
            <nav aria-label="Breadcrumbs"><ul class="breadcrumbs">
              <li class="breadcrumbs__item"><a aria-label="Home page" class="breadcrumbs__link" href="/">H</a></li>
              <li class="breadcrumbs__item"><span class="breadcrumbs__link">%s</span></li>
              <li class="breadcrumbs__item breadcrumbs__item--active"><span class="breadcrumbs__link">%s</span></li>
            </ul></nav>
            <div class="theme-doc-toc-mobile">On this page TOCMOBILE</div>
            <article><div class="theme-doc-markdown markdown">
              <header><h1>%s</h1></header>
              %s
            </div>
            <footer class="theme-doc-footer">Edit this page DOCFOOTER</footer>
            </article>
            <nav class="pagination-nav">Previous Next PAGINATION</nav>
          </main>
        </div>
        <footer class="footer">FOOTER Copyright</footer>
        </body></html>
        """.formatted(title, breadcrumb, title, title, body);
  }

  @BeforeEach
  void start(Vertx vertx, VertxTestContext test) {
    String nodes = page("Nodes and Topics", "Module 1: ROS 2", """
        <p>Intro before any section.</p>
        <h2 id="what-is-a-node">What Is a Node<a class="hash-link" href="#what-is-a-node">#</a></h2>
        <p>A node is a <strong>process</strong> in the ROS graph.</p>
        <ul><li>one responsibility</li><li>unique name</li></ul>
        <h3>Node Names</h3>
        <p>Names are unique.</p>
        <pre><code>ros2 node list
        ros2 node info /talker</code></pre>
        """);
    String sim = page("Sim to Real", "Module 2: Simulation", """
        <h2>Domain Randomization</h2><p>Randomize physics and visuals during training.</p>
        """);
    vertx.createHttpServer().requestHandler(req -> {
      switch (req.path()) {
        case "/sitemap.xml" -> req.response().putHeader("content-type", "application/xml").end("""
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <url><loc>%1$s/docs/module-1-ros2/nodes</loc></url>
              <url><loc>%1$s/docs/module-2-simulation/sim-to-real/</loc></url>
              <url><loc>%1$s/docs/missing</loc></url>
            </urlset>""".formatted(base));
        case "/docs/module-1-ros2/nodes" -> req.response().putHeader("content-type", "text/html").end(nodes);
        case "/docs/module-2-simulation/sim-to-real/" -> req.response().putHeader("content-type", "text/html").end(sim);
        case "/mixed.xml" -> req.response().putHeader("content-type", "application/xml").end("""
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <url><loc>%1$s/docs/charset</loc></url>
              <url><loc>%1$s/files/manual.pdf</loc></url>
              <url><loc>%1$s/docs/untyped</loc></url>
              <url><loc>%1$s/docs/no page</loc></url>
            </urlset>""".formatted(base));
        case "/docs/charset" -> req.response().putHeader("content-type", "Text/HTML; charset=UTF-8").end(sim);
        case "/files/manual.pdf" -> req.response().putHeader("content-type", "application/pdf")
            .end(io.vertx.core.buffer.Buffer.buffer(new byte[] {'%', 'P', 'D', 'F', '-', '1', '.', '4', 0, 1, 2}));
        case "/docs/untyped" -> req.response().end(nodes);
        // a small site without a sitemap: book/index.html links to its chapters, which link on
        case "/book/index.html" -> html(req, book("Contents", "<a href='intro.html#start'>Intro</a>"
            + " <a href='part/one.html?theme=dark'>One</a> <a href='../outside.html'>Outside</a>"
            + " <a href='https://elsewhere.example/book/x.html'>Elsewhere</a> <a href='cover.png'>Cover</a>"
            + " <a href='_sources/intro.md.txt'>Source</a> <a href='book.pdf' download>PDF</a>"));
        case "/book/intro.html" -> html(req, book("Intro", "<p>How the book is laid out.</p>"
            + "<a href='./'>Contents</a> <a href='part/one.html'>One</a> <a href='missing.html'>Gone</a>"));
        case "/book/part/one.html" -> html(req, book("One", "<p>The first part.</p><a href='two/'>Two</a>"
            + " <a href='../index.html'>Contents</a>"));
        case "/book/part/two/" -> html(req, book("Two", "<p>The second part.</p><a href='../moved.html'>Moved</a>"));
        case "/book/part/moved.html" -> html(req, "<html><head><title>Redirecting...</title>"
            + "<meta http-equiv='refresh' content='0; url=three.html'></head><body>Redirecting...</body></html>");
        case "/book/part/three.html" -> html(req, book("Three", "<p>The third part.</p><a href='../print.html'>Print</a>"));
        // the whole book on one page again (mdBook): its links are followed, its text is not ingested
        case "/book/print.html" -> html(req, book("Print", "<p>Every chapter again.</p><a href='appendix.html'>Appendix</a>")
            .replace("<head>", "<head><meta name='robots' content='noindex'>"));
        case "/book/appendix.html" -> html(req, book("Appendix", "<p>Reached through the print page.</p>"
            + "<a href='hidden.html'>Hidden</a>").replace("<head>", "<head><meta name='robots' content='nofollow'>"));
        case "/outside.html" -> html(req, book("Outside", "<p>Not in the book.</p>"));
        // a versioned, multilingual site: the latest version's page, the unreleased one's (its banner links to
        // the latest), a translation (x-default names the English page), and a translation of a page not listed
        case "/versions.xml" -> req.response().putHeader("content-type", "application/xml").end("""
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <url><loc>%1$s/docs/intro</loc></url>
              <url><loc>%1$s/docs/next/intro</loc></url>
              <url><loc>%1$s/fr/docs/intro</loc></url>
              <url><loc>%1$s/fr/docs/only-french</loc></url>
              <url><loc>%1$s/docs/other</loc></url>
            </urlset>""".formatted(base));
        // a site that names one x-default for every page, without language alternates: no translation
        case "/docs/other" -> html(req, page("Other", "Basics", "<p>Other.</p>").replace("<head>",
            "<head><link rel='alternate' href='/docs/intro' hreflang='x-default'>"));
        case "/docs/intro" -> html(req, page("Intro", "Basics", "<p>Latest.</p>").replace("<head>",
            "<head><link rel='alternate' href='/docs/intro' hreflang='en'><link rel='alternate' href='/fr/docs/intro'"
            + " hreflang='fr'><link rel='alternate' href='/docs/intro' hreflang='x-default'>"));
        case "/docs/next/intro" -> html(req, page("Intro", "Basics", "<div class='theme-doc-version-banner alert'>"
            + "This is unreleased documentation. See the <a href='/docs/intro'>latest version</a>.</div><p>Next.</p>"));
        case "/fr/docs/intro" -> html(req, page("Intro", "Bases", "<p>Dernier.</p>").replace("<head>",
            "<head><link rel='alternate' href='/docs/intro' hreflang='en'><link rel='alternate' href='/fr/docs/intro'"
            + " hreflang='fr'><link rel='alternate' href='/docs/intro' hreflang='x-default'>"));
        case "/fr/docs/only-french" -> html(req, page("Seulement", "Bases", "<p>En français.</p>").replace("<head>",
            "<head><link rel='alternate' href='/fr/docs/only-french' hreflang='fr'>"
            + "<link rel='alternate' href='/docs/only-french' hreflang='x-default'>"));
        case "/robots.txt" -> req.response().setStatusCode(robotsStatus).putHeader("content-type", "text/plain").end(robots);
        default -> req.response().setStatusCode(404).end("not found");
      }
    }).listen(0, "127.0.0.1").onComplete(test.succeeding(s -> {
      server = s;
      base = "http://127.0.0.1:" + s.actualPort();
      crawler = new SiteCrawler(vertx);
      test.completeNow();
    }));
  }

  private static void html(io.vertx.core.http.HttpServerRequest req, String body) {
    req.response().putHeader("content-type", "text/html").end(body);
  }

  private static String book(String title, String body) {
    return "<html><head><title>" + title + " - The Book</title></head><body><nav id='sidebar'>"
        + "<a href='/book/index.html'>Contents</a></nav><main><h1>" + title + "</h1>" + body + "</main></body></html>";
  }

  @AfterEach
  void stop(VertxTestContext test) {
    crawler.close();
    server.close().onComplete(test.succeedingThenComplete());
  }

  @Test
  @DisplayName("streamed, the sitemap's pages come as they are fetched, then an empty list; the 404 is among the failures")
  void streamsSitemap(VertxTestContext test) {
    List<Page> taken = new java.util.ArrayList<>();
    crawler.stream(base + "/sitemap.xml").compose(stream -> drain(stream, taken).map(stream))
        .onComplete(test.succeeding(stream -> test.verify(() -> {
          assertThat(stream.size()).isEqualTo(3);
          assertThat(taken).extracting(Page::pageTitle).containsExactlyInAnyOrder("Nodes and Topics", "Sim to Real");
          assertThat(stream.failed()).singleElement().satisfies(f -> assertThat(f.url()).endsWith("/docs/missing"));
          assertThat(stream.alsoPresent()).isEmpty(); // a 404 is gone, not failed for now
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("a versioned, multilingual site's sitemap: a page that names another page of the run as its original"
      + " (an older or unreleased version's banner, a translation's hreflang x-default) is left out, and named; a"
      + " translation whose original is not in the run, or a page that is not among its own language alternates, is read")
  void versionsAndTranslations(VertxTestContext test) {
    List<Page> taken = new java.util.ArrayList<>();
    crawler.stream(base + "/versions.xml").compose(stream -> drain(stream, taken).map(stream))
        .onComplete(test.succeeding(stream -> test.verify(() -> {
          assertThat(taken).extracting(Page::sourceUrl)
              .containsExactlyInAnyOrder(base + "/docs/intro", base + "/fr/docs/only-french", base + "/docs/other");
          assertThat(stream.duplicates()).containsExactlyInAnyOrder(base + "/docs/next/intro", base + "/fr/docs/intro");
          assertThat(stream.failed()).isEmpty();
          test.completeNow();
        })));
  }

  private static io.vertx.core.Future<Void> drain(PageSource source, List<Page> into) {
    return source.next(1).compose(pages -> {
      if (pages.isEmpty()) {
        return io.vertx.core.Future.<Void>succeededFuture();
      }
      // the stream hands pages over unread; the ingest reads those that changed
      for (SourcePage page : pages) {
        try {
          Page read = page.reader().call();
          assertThat(page.sourceUrl()).isEqualTo(read.sourceUrl());
          assertThat(page.fingerprint()).hasSize(64);
          if (!read.sections().isEmpty()) {
            into.add(read);
          }
        } catch (Exception e) {
          return io.vertx.core.Future.failedFuture(e);
        }
      }
      return drain(source, into);
    });
  }

  @Test
  @DisplayName("a sitemap crawl reads every listed page's article only, with title, chapter, sections; a 404 is reported")
  void crawlsSitemap(VertxTestContext test) {
    crawler.crawl(base + "/sitemap.xml").onComplete(test.succeeding(result -> test.verify(() -> {
      assertThat(result.failures()).singleElement().asString().contains("/docs/missing").contains("404");
      // a 404 is about the page: running again cannot fix it
      assertThat(result.failed()).singleElement().satisfies(f -> assertThat(f.retryable()).isFalse());
      assertThat(result.pages()).hasSize(2);
      Page nodes = result.pages().get(0);
      assertThat(nodes.sourceUrl()).isEqualTo(base + "/docs/module-1-ros2/nodes");
      assertThat(nodes.documentId()).isEqualTo("docs/module-1-ros2/nodes");
      assertThat(nodes.pageTitle()).isEqualTo("Nodes and Topics");
      assertThat(nodes.chapter()).isEqualTo("module-1-ros2");
      assertThat(nodes.chapterLabel()).isEqualTo("Module 1: ROS 2");
      assertThat(nodes.sourceType()).isEqualTo("html");
      assertThat(nodes.sections()).extracting(Page.Section::heading).containsExactly(null, "What Is a Node", "Node Names");
      assertThat(nodes.sections().get(1).text()).contains("A node is a process in the ROS graph.", "one responsibility");
      assertThat(nodes.sections().get(2).text()).contains("ros2 node list\nros2 node info /talker");
      String all = String.join(" ", nodes.sections().stream().map(Page.Section::text).toList());
      for (String noise : List.of("NAVBAR", "SIDEBAR", "FOOTER", "DOCFOOTER", "PAGINATION", "TOCMOBILE", "Home", "#")) {
        assertThat(all).doesNotContain(noise);
      }
      Page sim = result.pages().get(1);
      assertThat(sim.chapter()).isEqualTo("module-2-simulation");
      assertThat(sim.sections()).containsExactly(new Page.Section("Domain Randomization",
          "Randomize physics and visuals during training."));

      List<Chunk> chunks = new Chunker().chunk(nodes);
      assertThat(chunks).hasSize(3);
      assertThat(chunks.get(1).payload().getString("section")).isEqualTo("What Is a Node");
      assertThat(chunks.get(1).payload().getString("source_type")).isEqualTo("html");
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("a listed PDF is not read as a page: it fails for good, named with its type; so does what is no URL,"
      + " named as the sitemap writes it; HTML with a charset and a page without a Content-Type are read")
  void nonHtmlIsNotAPage(VertxTestContext test) {
    List<Page> taken = new java.util.ArrayList<>();
    crawler.crawl(base + "/mixed.xml").compose(result -> {
      test.verify(() -> {
        assertThat(result.pages()).extracting(Page::pageTitle).containsExactly("Sim to Real", "Nodes and Topics");
        assertThat(result.failures()).containsExactlyInAnyOrder(base + "/files/manual.pdf: fetching " + base
            + "/files/manual.pdf answered application/pdf: not a page of HTML or text, so it is not ingested",
            base + "/docs/no page: not a valid URL: " + base + "/docs/no page");
        assertThat(result.failed()).allSatisfy(f -> assertThat(f.retryable()).isFalse());
      });
      return crawler.stream(base + "/mixed.xml");
    }).compose(stream -> drain(stream, taken).map(stream)).onComplete(test.succeeding(stream -> test.verify(() -> {
      assertThat(taken).extracting(Page::pageTitle).containsExactlyInAnyOrder("Sim to Real", "Nodes and Topics");
      assertThat(stream.failed()).extracting(SiteCrawler.Failure::url)
          .containsExactlyInAnyOrder(base + "/files/manual.pdf", base + "/docs/no page");
      assertThat(stream.alsoPresent()).isEmpty(); // gone for good: a mirroring run removes what an older run stored
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("a page URL reads that one page; an unreachable host is a clear failure")
  void singlePageAndErrors(VertxTestContext test) {
    crawler.crawl(base + "/docs/module-2-simulation/sim-to-real/#domain")
        .compose(one -> {
          test.verify(() -> {
            assertThat(one.pages()).singleElement().extracting(Page::sourceUrl)
                .isEqualTo(base + "/docs/module-2-simulation/sim-to-real/");
            assertThat(one.failures()).isEmpty();
          });
          return crawler.crawl("http://127.0.0.1:1/docs/x");
        })
        .onComplete(test.succeeding(none -> test.verify(() -> {
          assertThat(none.pages()).isEmpty();
          assertThat(none.failures()).singleElement().asString().startsWith("http://127.0.0.1:1/docs/x: cannot fetch");
          assertThat(none.failed()).singleElement().satisfies(f -> assertThat(f.retryable()).isTrue());
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("--crawl: breadth first from a page, every page under its folder once (queries, fragments and"
      + " index.html dropped), redirect stubs followed; no images, sources, downloads or other folders; a dead link fails")
  void crawlsFromAPage(VertxTestContext test) {
    List<Page> taken = new java.util.ArrayList<>();
    crawler.crawlFrom(base + "/book/index.html", 100, true).compose(stream -> drain(stream, taken).map(stream))
        .onComplete(test.succeeding(stream -> test.verify(() -> {
          assertThat(stream.capped()).isFalse();
          // the contents page and the redirect stub are fetched (their links are followed) but hold no
          // text; the noindex page is not handed over at all; the nofollow page's link is not followed
          assertThat(stream.size()).isEqualTo(7);
          assertThat(taken).extracting(Page::pageTitle)
              .containsExactlyInAnyOrder("Intro", "One", "Two", "Three", "Appendix");
          assertThat(taken).extracting(Page::sourceUrl).contains(base + "/book/part/one.html", base + "/book/part/two/");
          assertThat(stream.failed()).singleElement().satisfies(f -> {
            assertThat(f.url()).isEqualTo(base + "/book/missing.html");
            assertThat(f.reason()).contains("404");
            assertThat(f.retryable()).isFalse();
          });
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("--crawl with --max-pages: the first pages in breadth-first order, and the stream says it was cut short")
  void crawlStopsAtTheLimit(VertxTestContext test) {
    List<Page> taken = new java.util.ArrayList<>();
    crawler.crawlFrom(base + "/book/index.html", 3, true).compose(stream -> drain(stream, taken).map(stream))
        .onComplete(test.succeeding(stream -> test.verify(() -> {
          assertThat(stream.capped()).isTrue();
          assertThat(stream.size()).isEqualTo(3); // the contents page, then the two it links to
          assertThat(taken).extracting(Page::pageTitle).containsExactlyInAnyOrder("Intro", "One");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("--crawl obeys robots.txt: a disallowed folder is neither fetched nor followed, and the stream names it;"
      + " a group naming this crawler wins over the \"*\" group")
  void crawlObeysRobots(VertxTestContext test) {
    robotsStatus = 200;
    robots = "User-agent: *\nDisallow: /book/part/\nAllow: /book/part/two/\n";
    List<Page> taken = new java.util.ArrayList<>();
    crawler.crawlFrom(base + "/book/index.html", 100, true).compose(stream -> drain(stream, taken).map(stream))
        .compose(stream -> {
          test.verify(() -> {
            // part/one.html is disallowed, so two/ (allowed, but linked only from one.html) is never found
            assertThat(stream.disallowed()).containsExactly(base + "/book/part/one.html");
            assertThat(taken).extracting(Page::pageTitle).containsExactly("Intro");
          });
          robots = "User-agent: *\nDisallow: /\n\nUser-agent: " + SiteCrawler.ROBOT + "\nDisallow: /book/intro.html\n";
          taken.clear();
          return crawler.crawlFrom(base + "/book/index.html", 100, true).compose(again -> drain(again, taken).map(again));
        })
        .onComplete(test.succeeding(stream -> test.verify(() -> {
          assertThat(stream.disallowed()).containsExactly(base + "/book/intro.html");
          assertThat(taken).extracting(Page::pageTitle).containsExactlyInAnyOrder("One", "Two", "Three", "Appendix");
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("--crawl: a start page robots.txt disallows, or a robots.txt that answers 503, stops the crawl with a"
      + " reason; --ignore-robots crawls anyway")
  void robotsRefusals(VertxTestContext test) {
    robotsStatus = 200;
    robots = "User-agent: *\nDisallow: /\n";
    crawler.crawlFrom(base + "/book/index.html", 100, true)
        .compose(crawled -> Future.failedFuture(new AssertionError("a crawl that robots.txt disallows ran")), refused -> {
          test.verify(() -> assertThat(refused).hasMessage("the site's robots.txt (" + base + "/robots.txt) does not let "
              + "rag-retrieval-ingest fetch " + base + "/book/index.html: --ignore-robots crawls it anyway, or ingest the"
              + " site's sitemap"));
          robotsStatus = 503;
          return crawler.crawlFrom(base + "/book/index.html", 100, true);
        })
        .compose(crawled -> Future.failedFuture(new AssertionError("a crawl without robots.txt's answer ran")), unavailable -> {
          test.verify(() -> assertThat(unavailable).hasMessage(base + "/robots.txt answered HTTP 503, and a crawl then"
              + " fetches nothing (RFC 9309): run it again later, or --ignore-robots"));
          return crawler.crawlFrom(base + "/book/index.html", 100, false);
        })
        .onComplete(test.succeeding(stream -> test.verify(() -> {
          assertThat(stream.disallowed()).isEmpty();
          assertThat(stream.size()).isEqualTo(7);
          test.completeNow();
        })));
  }

  @Test
  @DisplayName("--crawl from a page that cannot be fetched fails with that page's reason")
  void crawlFromAMissingPage(VertxTestContext test) {
    crawler.crawlFrom(base + "/book/nothing.html", 10, true).onComplete(test.failing(err -> test.verify(() -> {
      assertThat(err).hasMessageContaining("/book/nothing.html").hasMessageContaining("404");
      test.completeNow();
    })));
  }

  @Test
  @DisplayName("only links that look like pages are followed")
  void pageLikeLinks() {
    assertThat(SiteCrawler.pageUrl("https://d.example/book/ch1.html?x=1#top")).isEqualTo("https://d.example/book/ch1.html");
    assertThat(SiteCrawler.pageUrl("https://d.example/book/")).isEqualTo("https://d.example/book/");
    assertThat(SiteCrawler.pageUrl("https://d.example/book/intro")).isEqualTo("https://d.example/book/intro");
    assertThat(SiteCrawler.pageUrl("https://d.example/book/cover.png")).isNull();
    assertThat(SiteCrawler.pageUrl("https://d.example/book/_sources/ch1.rst.txt")).isNull();
    assertThat(SiteCrawler.pageUrl("https://d.example/book/_modules/django/db/models.html")).isNull();
    assertThat(SiteCrawler.pageUrl("https://d.example/book/my_page.html")).isEqualTo("https://d.example/book/my_page.html");
    assertThat(SiteCrawler.pageUrl("mailto:someone@d.example")).isNull();
    assertThat(SiteCrawler.pageUrl("javascript:void(0)")).isNull();
    assertThat(SiteCrawler.crawlScope("https://d.example/book/ch1.html")).isEqualTo("https://d.example/book/");
  }
}
