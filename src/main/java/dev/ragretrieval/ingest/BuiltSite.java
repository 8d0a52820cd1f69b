package dev.ragretrieval.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A folder that holds a site as its generator built it (Docusaurus' {@code build/}, MkDocs'
 * {@code site/}, Sphinx's {@code _build/html/}, mdBook's {@code book/}, Hugo's {@code public/}): a
 * home page and a sitemap at its root, or HTML pages and no sources. Its pages are read as an ingest
 * of the served site reads them: those its {@code sitemap.xml} lists, at the addresses it gives
 * them, or without a sitemap every page file.
 */
public final class BuiltSite {

  /**
   * One page: the {@code url} its links resolve against, its {@code file}, and the {@code address}
   * its chunks store (a URL, or without a published address the file's path in the folder).
   */
  public record PageFile(String url, Path file, String address) {}

  /** Where the page files were found. */
  public enum Listing {
    SITEMAP("the pages its sitemap.xml lists"), FILES("every HTML page file");

    private final String description;

    Listing(String description) {
      this.description = description;
    }

    @Override
    public String toString() {
      return description;
    }
  }

  /** Where a page without a published address is read: only its links' resolution depends on it. */
  static final String LOCAL_ROOT = "http://localhost/";

  /** Sitemaps at a built site's root: most generators' name, Astro's (Starlight) index. */
  private static final List<String> SITEMAPS = List.of("sitemap.xml", "sitemap-index.xml");
  /**
   * Files a generator writes that are no page of the site: the not-found page (a language's too), a
   * single-page app's fallback page (Nuxt's 200.html: the home page's shell again) and,
   * at the root, Sphinx's general and module indexes and search page (as files, or as folders of the
   * dirhtml builder). A crawl never reaches the first; the indexes list every term, each of them
   * some page's words, and the search page says how to search.
   */
  private static final Pattern NOT_PAGES = Pattern.compile(
      "(?:(?:.*/)?404|200|genindex(?:-[^/]*)?|[a-z]+-modindex|search)(?:\\.html?|/index\\.html?)");
  /** The robots meta tag that keeps a page out of an index (mdBook's print.html, the whole book again). */
  private static final Pattern NOINDEX = Pattern.compile(
      "<meta\\s[^>]*name=[\"']?robots[\"']?[^>]*content=[\"'][^\"']*\\b(?:noindex|none)\\b|"
          + "<meta\\s[^>]*content=[\"'][^\"']*\\b(?:noindex|none)\\b[^>]*name=[\"']?robots\\b", Pattern.CASE_INSENSITIVE);
  /** Enough of a page to hold its head's meta tags. */
  private static final int HEAD_BYTES = 16 * 1024;

  private final List<PageFile> pages;
  private final Listing listing;
  private final List<String> unmatched;

  private BuiltSite(List<PageFile> pages, Listing listing, List<String> unmatched) {
    this.pages = List.copyOf(pages);
    this.listing = listing;
    this.unmatched = List.copyOf(unmatched);
  }

  /**
   * Whether {@code folder} is the output of Sphinx's HTML builder (its {@code .buildinfo}, or its
   * search index beside {@code _sources/}), which copies the page sources into {@code _sources/}
   * (Jupyter Book and MyST-Parser's Markdown as {@code .md}): the built pages are the site, not those
   * copies, read as pages at the wrong addresses.
   */
  public static boolean sphinxOutput(Path folder) {
    return Files.isRegularFile(folder.resolve(".buildinfo"))
        || Files.isRegularFile(folder.resolve("searchindex.js")) && Files.isDirectory(folder.resolve("_sources"));
  }

  /**
   * Whether {@code folder} looks like a site's build that names its pages: a home page and a
   * sitemap at its root (a repository of sources has neither there, or a sitemap template), the
   * home page no Docsify shell (a Docsify site is its Markdown, whatever its sitemap lists).
   */
  public static boolean listsItsPages(Path folder) {
    return Files.isRegularFile(folder.resolve("index.html"))
        && SITEMAPS.stream().anyMatch(name -> Files.isRegularFile(folder.resolve(name)))
        && !MarkdownFolder.docsify(folder);
  }

  /** The pages, in the sitemap's order or in path order. */
  public List<PageFile> pages() {
    return pages;
  }

  /** Whether the pages are stored at their paths in the folder: no --base-url, and no address from a sitemap. */
  public boolean atPaths() {
    return pages.stream().anyMatch(page -> !page.address().regionMatches(true, 0, "http", 0, 4));
  }

  /** Whether the sitemap or the files gave the pages. */
  public Listing listing() {
    return listing;
  }

  /**
   * Addresses the sitemap lists that no page file of the folder serves (with {@link Listing#FILES},
   * those of a sitemap set aside because most of its addresses have no file).
   */
  public List<String> unmatched() {
    return unmatched;
  }

  /**
   * The built site in {@code folder}, or null when it holds no HTML page. {@code baseUrl} (the site's
   * published address) gives each page its address there; without it a sitemap's addresses are used,
   * and without a sitemap each page's path in the folder. Reads files: call it on a worker.
   */
  public static BuiltSite read(Path folder, String baseUrl) throws IOException {
    Path root = folder.toRealPath();
    List<Path> htmlFiles = MarkdownFolder.files(root).stream()
        .filter(file -> isHtml(file.getFileName().toString()) && !underscored(root.relativize(file)))
        .sorted().toList();
    if (htmlFiles.isEmpty()) {
      return null;
    }
    Path sitemap = SITEMAPS.stream().map(root::resolve).filter(Files::isRegularFile).findFirst().orElse(null);
    Listed listed = sitemap == null ? new Listed(Map.of(), List.of()) : listed(root, sitemap);
    // a sitemap that most files do not serve lists another build, or is wrong (sphinx-sitemap lists
    // name.html for the dirhtml builder's name/): the files are the site then
    List<PageFile> pages = listed.pages().size() >= listed.unmatched().size()
        ? listedPages(root, listed, baseUrl) : new ArrayList<>();
    if (!pages.isEmpty()) {
      return new BuiltSite(pages, Listing.SITEMAP, listed.unmatched());
    }
    for (Path file : htmlFiles) {
      if (!notPage(root, file) && !noindex(file)) {
        pages.add(at(root, file, baseUrl));
      }
    }
    // the addresses of a sitemap set aside: the run names them
    return new BuiltSite(pages, Listing.FILES, listed.pages().isEmpty() ? List.of() : listed.unmatched());
  }

  /**
   * The pages one sitemap file lists ({@code ingest build/sitemap.xml}, or a language's own), found in
   * the folder that holds it; those it lists that no file there serves are named. Reads files: call it
   * on a worker.
   */
  public static BuiltSite ofSitemap(Path sitemap, String baseUrl) throws IOException {
    Path file = sitemap.toRealPath();
    Listed listed = listed(file.getParent(), file);
    return new BuiltSite(listedPages(file.getParent(), listed, baseUrl), Listing.SITEMAP, listed.unmatched());
  }

  /** Whether a file's name says it is a sitemap ({@code sitemap.xml}, {@code sitemap-index.xml}, {@code sitemap-0.xml}). */
  public static boolean isSitemap(String name) {
    return name.toLowerCase(Locale.ROOT).matches("sitemap[^/]*\\.xml");
  }

  /** A sitemap's pages but those that are no page of the site, each at its address. */
  private static List<PageFile> listedPages(Path root, Listed listed, String baseUrl) {
    List<PageFile> pages = new ArrayList<>();
    listed.pages().forEach((file, loc) -> {
      if (!notPage(root, file)) {
        pages.add(baseUrl != null || loc.startsWith(LOCAL_ROOT) ? at(root, file, baseUrl) : listedAt(loc, file));
      }
    });
    return pages;
  }

  /**
   * A sitemap's page at its address; where a name.html address is served by name/index.html (the
   * dirhtml builder's, listed wrongly by sphinx-sitemap), at name/, where the site serves it.
   */
  private static PageFile listedAt(String loc, Path file) {
    String url = HtmlReader.canonical(loc);
    if (file.getFileName().toString().equals("index.html") && url.matches("(?i).*[^/]\\.html?$")
        && !url.matches("(?i).*/index\\.html?$")) {
      url = url.replaceFirst("(?i)\\.html?$", "/");
    }
    return new PageFile(url, file, url);
  }

  /** A file a generator writes beside its pages ({@link #NOT_PAGES}), listed in its sitemap or not. */
  private static boolean notPage(Path root, Path file) {
    return NOT_PAGES.matcher(slashed(root.relativize(file)).toLowerCase(Locale.ROOT)).matches();
  }

  /** One saved page (a built site's file, or a page saved from a browser): at its name, or under {@code baseUrl}. */
  public static BuiltSite page(Path file, String baseUrl) throws IOException {
    Path real = file.toRealPath();
    return new BuiltSite(List.of(at(real.getParent(), real, baseUrl)), Listing.FILES, List.of());
  }

  /** Whether a file's name says it is a page of HTML. */
  public static boolean isHtml(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.endsWith(".html") || lower.endsWith(".htm");
  }

  /** A page file at its address under {@code baseUrl}, or at its path in the folder without one. */
  private static PageFile at(Path root, Path file, String baseUrl) {
    String path = slashed(root.relativize(file));
    // served at its folder's address, as static hosts serve an index page
    String served = path.replaceFirst("(^|/)index\\.html?$", "$1");
    if (baseUrl != null) {
      String url = baseUrl.replaceAll("/+$", "") + "/" + served;
      return new PageFile(url, file, HtmlReader.canonical(url));
    }
    return new PageFile(LOCAL_ROOT + served, file, path);
  }

  /**
   * A sitemap's pages that have a file here, file to address, in the sitemap's order (a sitemap
   * index's sitemaps are files here too). The sitemap names the published addresses; a file
   * serves an address's path less the site's base path: as many leading folders as leave the most
   * addresses a file, the same for every page (so an address no file serves is not taken for the
   * home page).
   */
  private static Listed listed(Path root, Path sitemap) throws IOException {
    List<String> locs = new ArrayList<>();
    listPages(root, sitemap, 0, locs);
    Listed best = new Listed(Map.of(), List.of());
    int depth = locs.stream().mapToInt(loc -> segments(loc).size()).max().orElse(0);
    for (int base = 0; base <= depth; base++) {
      Map<Path, String> pages = new LinkedHashMap<>();
      List<String> missing = new ArrayList<>();
      for (String loc : locs) {
        Path file = fileFor(root, loc, base, true);
        if (file == null) {
          missing.add(loc);
        } else {
          pages.putIfAbsent(file, loc);
        }
      }
      if (pages.size() > best.pages().size()) {
        best = new Listed(pages, missing);
      }
    }
    return best;
  }

  /** A sitemap's pages that files serve (file to address, in its order), and the addresses none serves. */
  private record Listed(Map<Path, String> pages, List<String> unmatched) {}

  /** The page addresses of a sitemap, and of the sitemaps a sitemap index lists (two levels at most). */
  private static void listPages(Path root, Path sitemap, int depth, List<String> locs) throws IOException {
    String xml = new String(Files.readAllBytes(sitemap), StandardCharsets.UTF_8);
    SiteCrawler.Locations found = SiteCrawler.locations(sitemap.toUri().toString(), xml);
    for (String listed : found.pages()) {
      // Docus writes the path alone: read at the stand-in root, stored at the file's path
      String loc = listed.startsWith("/") && !listed.startsWith("//") ? LOCAL_ROOT + listed.substring(1) : listed;
      // MkDocs writes "None" without a site_url: no address to store, nor in what is no URL
      if (SiteCrawler.pageUrl(loc) != null && !segments(loc).contains("..")) {
        locs.add(loc);
      }
    }
    if (depth < 2) {
      for (String loc : found.sitemaps()) {
        for (int base = 0; base < segments(loc).size(); base++) {
          Path child = fileFor(root, loc, base, false);
          if (child != null && !child.equals(sitemap)) {
            listPages(root, child, depth + 1, locs);
            break;
          }
        }
      }
    }
  }

  /** The non-empty segments of a URL's path; none for what is no URL. */
  private static List<String> segments(String url) {
    String path;
    try {
      path = URI.create(url.strip()).getPath();
    } catch (IllegalArgumentException e) {
      return List.of();
    }
    return path == null ? List.of() : List.of(path.split("/")).stream().filter(p -> !p.isEmpty()).toList();
  }

  /**
   * The file under {@code root} that serves {@code url} when the site's base path is {@code base}
   * folders deep: the path below it, as a file, a folder's index.html or with .html added; null if
   * none (or the address is not below such a base).
   */
  static Path fileFor(Path root, String url, int base, boolean page) {
    List<String> parts = segments(url);
    if (parts.size() < base || parts.isEmpty() && !page) {
      return null;
    }
    String rest = String.join("/", parts.subList(base, parts.size()));
    // a page at name.html may be built as name/index.html (sphinx-sitemap's addresses for dirhtml)
    List<String> candidates = !page ? List.of(rest)
        : rest.isEmpty() ? List.of("index.html")
        : List.of(rest, rest + "/index.html", rest + ".html", rest.replaceFirst("\\.html?$", "") + "/index.html");
    for (String candidate : candidates) {
      if (candidate.isEmpty() || page && !isHtml(candidate)) {
        continue;
      }
      Path file = root.resolve(candidate).normalize();
      if (file.startsWith(root) && Files.isRegularFile(file)) {
        return file;
      }
    }
    return null;
  }

  /** The document id of a page stored at its path in the folder: the path without index.html or .html. */
  static String documentId(String path) {
    String id = path.replaceFirst("(^|/)index\\.html?$", "").replaceFirst("\\.html?$", "").replaceAll("/+$", "");
    return id.isEmpty() ? "index" : id;
  }

  /** A generator's own folder (Sphinx's _sources, _static, _modules; the pages' sources and assets). */
  private static boolean underscored(Path relative) {
    for (Path part : relative) {
      if (part.toString().startsWith("_")) {
        return true;
      }
    }
    return false;
  }

  private static String slashed(Path relative) {
    return relative.toString().replace('\\', '/');
  }

  /** Whether the page's head says it is not to be indexed. */
  private static boolean noindex(Path file) throws IOException {
    byte[] head;
    try (InputStream in = Files.newInputStream(file)) {
      head = in.readNBytes(HEAD_BYTES);
    }
    String text = new String(head, StandardCharsets.UTF_8);
    int end = text.indexOf("</head>");
    return NOINDEX.matcher(end < 0 ? text : text.substring(0, end)).find();
  }
}
