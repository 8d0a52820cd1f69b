package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real pages of Sphinx-built manuals in four themes, copied unchanged from Debian packages (see
 * src/test/resources/html/README.md): the Python manual's theme, Read the Docs, alabaster, and
 * Django's theme, which marks no main content and puts the site's name in an h1 above the page.
 */
class HtmlReaderSphinxTest {

  /** Site header, related-links bars, sidebars, search boxes and footers of the four themes. */
  private static final List<String> CHROME = List.of("previous", "next »", "« previous", "Table of contents",
      "Table of Contents", "Last update", "Last updated", "Copyright", "©", "Created using", "Show Source",
      "Show source", "Report a Bug", "Quick search", "Navigation", "index |", "modules |", "Home |", "| Index",
      "Built with", "Powered by", "Page source", "View page source", "Python Software Foundation",
      "Theme", "Previous topic", "Next topic", "This Page", "Related Topics", "Search", "Donate", "Useful Links");

  static Stream<Arguments> pages() {
    return Stream.of(
        Arguments.of("sphinx-python/appetite.html", "1. Whetting Your Appetite", "Python 3.11.2 documentation"),
        Arguments.of("sphinx-python/secrets.html", "secrets — Generate secure random numbers for managing secrets",
            "Python 3.11.2 documentation"),
        Arguments.of("sphinx-rtd/jobs.html", "Jobs: pausing and resuming crawls", "Scrapy 2.8.0 documentation"),
        Arguments.of("sphinx-alabaster/install.html", "Installation of Requests", "Requests 2.28.1 documentation"),
        Arguments.of("sphinx-django/legacy-databases.html", "Integrating Django with a legacy database",
            "Django 3.2.25 documentation"));
  }

  private static String html(String fixture) {
    try (InputStream in = HtmlReaderSphinxTest.class.getResourceAsStream("/html/" + fixture)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static List<Chunk> chunks(String fixture) {
    return new Chunker().chunk(HtmlReader.read("https://docs.example.org/" + fixture, html(fixture)));
  }

  private static String words(String text) {
    return text.replace("¶", "").replaceAll("\\s+", " ").strip();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("pages")
  @DisplayName("every chunk's page_title is the page's own title, never the site-wide one")
  void pageTitle(String fixture, String title, String site) {
    List<Chunk> chunks = chunks(fixture);
    assertThat(chunks).isNotEmpty();
    for (Chunk chunk : chunks) {
      assertThat(chunk.payload().getString("page_title")).as(fixture).isEqualTo(title).isNotEqualTo(site);
      assertThat(chunk.payload().getString("section")).as(fixture).isNotEqualTo(site);
      assertThat(chunk.embedText()).as(fixture).startsWith(title);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("pages")
  @DisplayName("no chunk carries the header, related-links bars, sidebar, search box or footer")
  void noChrome(String fixture, String title, String site) {
    assertThat(CHROME).as("chrome the page has outside its body").anyMatch(Jsoup.parse(html(fixture)).text()::contains);
    for (Chunk chunk : chunks(fixture)) {
      String text = chunk.payload().getString("text");
      assertThat(text).as(fixture).doesNotContain(site).doesNotContain(CHROME).doesNotContain("¶");
    }
  }

  /**
   * Every paragraph, list item, code block and table cell of the page's body (the docutils section
   * holding the h1, read here without the reader) is in the chunks, in whitespace-insensitive form.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("pages")
  @DisplayName("the body text is all there")
  void bodyComplete(String fixture, String title, String site) {
    Document doc = Jsoup.parse(html(fixture));
    Element body = doc.selectFirst("section:has(> h1), div.section:has(> h1)");
    assertThat(body).as(fixture).isNotNull();
    String all = words(String.join(" ", chunks(fixture).stream().map(c -> c.payload().getString("text")).toList()));
    List<Element> blocks = body.select("p, li > p, pre, td, dt");
    assertThat(blocks).as(fixture).hasSizeGreaterThan(3);
    for (Element block : blocks) {
      String expected = words(block.text());
      if (!expected.isEmpty()) {
        assertThat(all).as(fixture).contains(expected);
      }
    }
    for (Element heading : body.select("h2, h3")) {
      assertThat(chunks(fixture)).as(fixture).anySatisfy(
          c -> assertThat(c.payload().getString("section")).isEqualTo(words(heading.text())));
    }
  }

  @Test
  @DisplayName("Django's theme: the site's h1, Home | Table of contents | Index | Modules, « previous | up | next »"
      + " and the sidebar's Last update box are all outside the chunks")
  void djangoHasNoMainContent() {
    String html = html("sphinx-django/legacy-databases.html");
    assertThat(html).doesNotContain("role=\"main\"").contains("Last update:", "Table of contents", "up</a>");
    Page page = HtmlReader.read("https://docs.example.org/howto/legacy-databases.html", html);
    assertThat(page.pageTitle()).isEqualTo("Integrating Django with a legacy database");
    assertThat(page.sections().get(0).text()).startsWith("While Django is best suited for developing new applications");
    assertThat(page.sections()).extracting(Page.Section::heading).doesNotContain("Last update:");
  }

  @Test
  @DisplayName("a Sphinx page's chapter is the first folder below the site's root (its genindex link says where that"
      + " is), labelled by what a link to that folder's index page says; a page at the root has none")
  void sphinxChapter() {
    Page secrets = HtmlReader.read("https://docs.python.org/3.11/library/secrets.html", html("sphinx-python/secrets.html"));
    assertThat(secrets.chapter()).isEqualTo("library");
    assertThat(secrets.chapterLabel()).isEqualTo("The Python Standard Library");
    Page appetite = HtmlReader.read("https://docs.python.org/3.11/tutorial/appetite.html", html("sphinx-python/appetite.html"));
    assertThat(appetite.chapter()).isEqualTo("tutorial");
    assertThat(appetite.chapterLabel()).isEqualTo("The Python Tutorial");
    // Django's theme has no breadcrumbs: its "up" link's title names the chapter's page
    Page legacy = HtmlReader.read("https://docs.djangoproject.com/en/3.2/howto/legacy-databases.html",
        html("sphinx-django/legacy-databases.html"));
    assertThat(legacy.chapter()).isEqualTo("howto");
    assertThat(legacy.chapterLabel()).isEqualTo("\u201cHow-to\u201d guides");
    Page jobs = HtmlReader.read("https://docs.scrapy.org/en/latest/topics/jobs.html", html("sphinx-rtd/jobs.html"));
    assertThat(jobs.chapter()).isEqualTo("topics");
    Page glossary = HtmlReader.read("https://docs.example.org/glossary.html", "<html><head><title>Glossary</title>"
        + "<link rel=\"index\" title=\"Index\" href=\"genindex.html\" /></head><body><div role=\"main\"><h1>Glossary</h1>"
        + "<p>Terms used in these pages.</p></div></body></html>");
    assertThat(glossary.chapter()).isNull();
    assertThat(glossary.chapterLabel()).isNull();
    // an index link that is no URL only costs the chapter, never the page
    Page broken = HtmlReader.read("https://docs.example.org/guide/intro.html", "<html><head><title>Intro</title>"
        + "<link rel=\"index\" href=\"http://[::1/genindex.html\" /></head><body><div role=\"main\"><h1>Intro</h1>"
        + "<p>Where to begin.</p></div></body></html>");
    assertThat(broken.chapter()).isNull();
    assertThat(broken.sections()).extracting(Page.Section::text).containsExactly("Where to begin.");
  }

  @Test
  @DisplayName("a site's search page (its own <link rel=search>) has no text of its own; a page that links to the"
      + " search page keeps its text")
  void searchPageHasNoText() {
    String head = "<html><head><title>Search</title>"
        + "<link rel=\"search\" type=\"application/opensearchdescription+xml\" href=\"_static/opensearch.xml\"/>"
        + "<link rel=\"search\" title=\"Search\" href=\"%s\" /></head><body><div role=\"main\"><h1>Search</h1>"
        + "<p>Searching for multiple words only shows matches that contain all words.</p></div></body></html>";
    assertThat(HtmlReader.read("https://docs.example.org/search.html", head.formatted("#")).sections()).isEmpty();
    assertThat(HtmlReader.read("https://docs.example.org/intro.html", head.formatted("search.html")).sections())
        .extracting(Page.Section::text).containsExactly("Searching for multiple words only shows matches that contain all words.");
  }

  @Test
  @DisplayName("the <title> without its site suffix is the title when the content has no h1; a dash inside the"
      + " page title stays")
  void titleFromTitleElement() {
    String html = "<html><head><title>Logging HOWTO — Example 2.0 documentation</title></head><body>"
        + "<div class=\"header\"><h1><a href=\"index.html\">Example 2.0 documentation</a></h1></div>"
        + "<div class=\"related\"><a href=\"genindex.html\">index</a> | <a href=\"py-modindex.html\">modules</a></div>"
        + "<p>Logging is a means of tracking events that happen when some software runs.</p>"
        + "<div class=\"footer\">Created using Sphinx 5.3.0.</div></body></html>";
    Page page = HtmlReader.read("https://docs.example.org/howto/logging.html", html);
    assertThat(page.pageTitle()).isEqualTo("Logging HOWTO");
    assertThat(page.sections()).extracting(Page.Section::text)
        .containsExactly("Logging is a means of tracking events that happen when some software runs.");
    assertThat(HtmlReader.splitTitle("a — b — Python 3.11 documentation"))
        .containsExactly("a — b", "Python 3.11 documentation");
    assertThat(HtmlReader.splitTitle("Plain title")).containsExactly("Plain title", null);
  }

  @Test
  @DisplayName("a chapter's own index page (html and dirhtml builders): a \"Skip to content\" link to this page is no"
      + " label; the page's heading is, without its headerlink and the <title>'s site name")
  void chapterIndexPage() {
    String html = "<html><head><title>Module 1: ROS 2 - Book documentation</title>"
        + "<link rel=\"index\" title=\"Index\" href=\"%s\"></head><body>"
        + "<a class=\"skip-to-content\" href=\"#furo-main-content\">Skip to content</a><article role=\"main\">"
        + "<section id=\"module-1\"><h1>Module 1: ROS 2<a class=\"headerlink\" href=\"#module-1\">\u00b6</a></h1>"
        + "<p>Nodes, topics and services.</p></section></article></body></html>";
    for (String[] page : new String[][] {{"https://docs.example.org/m1/index.html", "../genindex.html"},
        {"https://docs.example.org/m1/", "../genindex/"}}) {
      Page read = HtmlReader.read(page[0], html.formatted(page[1]));
      assertThat(read.chapter()).as(page[0]).isEqualTo("m1");
      assertThat(read.chapterLabel()).as(page[0]).isEqualTo("Module 1: ROS 2");
    }
  }
}
