package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which page files of a built site are read, at which URL, and what their chunks store. */
class BuiltSiteTest {

  @TempDir
  Path site;

  private void write(String path, String content) throws Exception {
    Path file = site.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
  }

  private static String page(String title, String text) {
    return "<!doctype html><html><head><title>" + title + " | Garden</title></head><body><main><h1>" + title
        + "</h1><p>" + text + "</p></main></body></html>";
  }

  private static String urlset(String... locs) {
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
        + "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">");
    for (String loc : locs) {
      xml.append("<url><loc>").append(loc).append("</loc></url>");
    }
    return xml.append("</urlset>").toString();
  }

  @Test
  @DisplayName("with a sitemap: the pages it lists, at its addresses, found below the site's base URL; what no file"
      + " serves is named, what is no page's URL passed over; --base-url gives them its address instead")
  void sitemap() throws Exception {
    write("index.html", page("Garden", "A small kitchen garden."));
    write("guide/watering/index.html", page("Watering", "Water tomatoes twice a week."));
    write("guide/pruning.html", page("Pruning", "Prune roses in spring."));
    write("orphan.html", page("Orphan", "Not in the sitemap."));
    write("404.html", page("Page Not Found", "We could not find what you were looking for."));
    write("assets/js/main.js", "console.log('no page');");
    // no page: what is no URL (first, where it would take the home page's file), and a PDF
    write("sitemap.xml", urlset("https://example.org/garden/bad path", "https://example.org/garden/",
        "https://example.org/garden/guide/watering", "https://example.org/garden/guide/pruning",
        "https://example.org/garden/guide/gone", "https://example.org/garden/guide/pruning.pdf"));

    BuiltSite built = BuiltSite.read(site, null);
    assertThat(built.listing()).isEqualTo(BuiltSite.Listing.SITEMAP);
    assertThat(built.pages()).extracting(BuiltSite.PageFile::address).containsExactly("https://example.org/garden/",
        "https://example.org/garden/guide/watering", "https://example.org/garden/guide/pruning");
    assertThat(built.pages()).extracting(BuiltSite.PageFile::url).containsExactly("https://example.org/garden/",
        "https://example.org/garden/guide/watering", "https://example.org/garden/guide/pruning");
    Path root = site.toRealPath();
    assertThat(built.pages().stream().map(p -> root.relativize(p.file()).toString().replace('\\', '/')))
        .containsExactly("index.html", "guide/watering/index.html", "guide/pruning.html");
    assertThat(built.unmatched()).containsExactly("https://example.org/garden/guide/gone");

    BuiltSite based = BuiltSite.read(site, "https://docs.example.com/");
    assertThat(based.pages()).extracting(BuiltSite.PageFile::address).containsExactly("https://docs.example.com/",
        "https://docs.example.com/guide/watering/", "https://docs.example.com/guide/pruning.html");
  }

  @Test
  @DisplayName("sphinx-sitemap's name.html addresses for a dirhtml build are its name/ pages, stored at name/; its"
      + " general index is no page; a sitemap that most files do not serve gives way to the files")
  void sitemapsThatDoNotFit() throws Exception {
    write("index.html", page("Garden", "A small kitchen garden."));
    write("guide/setup/index.html", page("Setup", "Dig the beds in March."));
    write("genindex/index.html", page("Index", "beds, March"));
    write("sitemap.xml", urlset("https://example.org/docs/index.html", "https://example.org/docs/guide/setup.html",
        "https://example.org/docs/genindex.html"));
    BuiltSite dirhtml = BuiltSite.read(site, null);
    assertThat(dirhtml.listing()).isEqualTo(BuiltSite.Listing.SITEMAP);
    assertThat(dirhtml.pages()).extracting(BuiltSite.PageFile::address)
        .containsExactly("https://example.org/docs/index.html", "https://example.org/docs/guide/setup/");
    assertThat(dirhtml.pages()).extracting(BuiltSite.PageFile::url)
        .containsExactly("https://example.org/docs/index.html", "https://example.org/docs/guide/setup/");

    // the sitemap of an older build: one of its three pages is here
    write("sitemap.xml", urlset("https://example.org/", "https://example.org/old/one", "https://example.org/old/two"));
    BuiltSite files = BuiltSite.read(site, null);
    assertThat(files.listing()).isEqualTo(BuiltSite.Listing.FILES);
    assertThat(files.pages()).extracting(BuiltSite.PageFile::address)
        .containsExactly("guide/setup/index.html", "index.html");
    assertThat(files.unmatched()).containsExactly("https://example.org/old/one", "https://example.org/old/two");
  }

  @Test
  @DisplayName("a sitemap of paths alone (Docus): its pages, each at its path in the folder; a build with a Markdown"
      + " copy of each page and a sitemap names its pages by the sitemap; a Docsify site with a sitemap is no build")
  void sitemapOfPaths() throws Exception {
    write("index.html", page("Garden", "A small kitchen garden."));
    write("guide/watering/index.html", page("Watering", "Water tomatoes twice a week."));
    write("raw/guide/watering.md", "# Watering\n\nWater tomatoes twice a week.\n");
    write("sitemap.xml", urlset("/guide/watering"));
    assertThat(BuiltSite.listsItsPages(site)).isTrue();
    // a Docsify site's home page is a shell its script fills with the folder's Markdown: not a build
    write("index.html", "<html><body><div id=\"app\"></div><script>window.$docsify = {name: 'Garden'}</script></body></html>");
    assertThat(BuiltSite.listsItsPages(site)).isFalse();
    write("index.html", page("Garden", "A small kitchen garden."));
    BuiltSite built = BuiltSite.read(site, null);
    assertThat(built.listing()).isEqualTo(BuiltSite.Listing.SITEMAP);
    assertThat(built.atPaths()).isTrue();
    assertThat(built.pages()).extracting(BuiltSite.PageFile::address).containsExactly("guide/watering/index.html");
    assertThat(built.pages()).extracting(BuiltSite.PageFile::url).containsExactly(BuiltSite.LOCAL_ROOT + "guide/watering/");
  }

  @Test
  @DisplayName("one sitemap file named: its pages, found in the folder that holds it (a language's own sitemap)")
  void ofSitemap() throws Exception {
    write("index.html", page("Garden", "A small kitchen garden."));
    write("fr/index.html", page("Jardin", "Un petit potager."));
    write("fr/guide/arrosage/index.html", page("Arrosage", "Arroser les tomates deux fois par semaine."));
    write("sitemap.xml", urlset("https://example.org/"));
    write("fr/sitemap.xml", urlset("https://example.org/fr/", "https://example.org/fr/guide/arrosage/",
        "https://example.org/fr/guide/taille/"));
    assertThat(BuiltSite.isSitemap("sitemap-0.xml")).isTrue();
    assertThat(BuiltSite.isSitemap("feed.xml")).isFalse();
    BuiltSite french = BuiltSite.ofSitemap(site.resolve("fr/sitemap.xml"), null);
    assertThat(french.pages()).extracting(BuiltSite.PageFile::address)
        .containsExactly("https://example.org/fr/", "https://example.org/fr/guide/arrosage/");
    assertThat(french.pages().get(1).file()).isEqualTo(site.toRealPath().resolve("fr/guide/arrosage/index.html"));
    assertThat(french.unmatched()).containsExactly("https://example.org/fr/guide/taille/");
  }

  @Test
  @DisplayName("Astro's sitemap index leads to its sitemaps, files of the folder too")
  void sitemapIndex() throws Exception {
    write("index.html", page("Garden", "A small kitchen garden."));
    write("guide/watering/index.html", page("Watering", "Water tomatoes twice a week."));
    write("sitemap-index.xml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?><sitemapindex"
        + " xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>https://example.org/sitemap-0.xml</loc>"
        + "</sitemap></sitemapindex>");
    write("sitemap-0.xml", urlset("https://example.org/", "https://example.org/guide/watering/"));

    BuiltSite built = BuiltSite.read(site, null);
    assertThat(built.listing()).isEqualTo(BuiltSite.Listing.SITEMAP);
    assertThat(built.pages()).extracting(BuiltSite.PageFile::address)
        .containsExactly("https://example.org/", "https://example.org/guide/watering/");
  }

  @Test
  @DisplayName("without a sitemap: every page file but a not-found page, Sphinx's indexes and search page at the root,"
      + " a generator's _ folders and pages that ask not to be indexed; each at its path in the folder")
  void everyPageFile() throws Exception {
    write("index.html", page("Garden", "A small kitchen garden."));
    write("guide/pruning.html", page("Pruning", "Prune roses in spring."));
    write("topics/search.html", page("Search", "How to find a plant in the catalogue."));
    write("fr/404.html", page("Introuvable", "Page introuvable."));
    write("404.html", page("Page Not Found", "We could not find what you were looking for."));
    write("genindex.html", page("Index", "prune, water"));
    write("py-modindex.html", page("Module Index", "garden.soil"));
    write("search.html", page("Search", "Searching for multiple words only shows matches that contain all words."));
    write("_sources/guide/pruning.rst.txt.html", "Pruning\n=======");
    write("print.html", "<html><head><meta name=\"robots\" content=\"noindex\"><title>Garden</title></head>"
        + "<body><h1>Garden</h1><p>Every page again.</p></body></html>");
    write("sitemap.xml", "<?xml version=\"1.0\"?><urlset><url><loc>None</loc></url></urlset>");

    BuiltSite built = BuiltSite.read(site, null);
    assertThat(built.listing()).isEqualTo(BuiltSite.Listing.FILES);
    assertThat(built.pages()).extracting(BuiltSite.PageFile::address)
        .containsExactly("guide/pruning.html", "index.html", "topics/search.html");
    assertThat(built.pages()).extracting(BuiltSite.PageFile::url).containsExactly(BuiltSite.LOCAL_ROOT
        + "guide/pruning.html", BuiltSite.LOCAL_ROOT, BuiltSite.LOCAL_ROOT + "topics/search.html");

    // read at the stand-in URL, stored at the path: the chunks' source_url and document id
    String html = Files.readString(site.resolve("guide/pruning.html"));
    Page read = SourcePage.html(BuiltSite.LOCAL_ROOT + "guide/pruning.html", html, "guide/pruning.html").reader().call();
    assertThat(read.sourceUrl()).isEqualTo("guide/pruning.html");
    assertThat(read.documentId()).isEqualTo("guide/pruning");
    assertThat(read.pageTitle()).isEqualTo("Pruning");
    assertThat(read.sections()).extracting(Page.Section::text).containsExactly("Prune roses in spring.");
    assertThat(BuiltSite.documentId("index.html")).isEqualTo("index");
    assertThat(BuiltSite.documentId("guide/watering/index.html")).isEqualTo("guide/watering");

    assertThat(BuiltSite.read(site, "https://docs.example.com/garden").pages()).extracting(BuiltSite.PageFile::address)
        .containsExactly("https://docs.example.com/garden/guide/pruning.html", "https://docs.example.com/garden/",
            "https://docs.example.com/garden/topics/search.html");
  }

  @Test
  @DisplayName("a folder without HTML pages is no built site")
  void noPages() throws Exception {
    write("notes.txt", "Buy more roses.");
    write("_static/theme.html", "<html></html>");
    assertThat(BuiltSite.read(site, null)).isNull();
  }
}
