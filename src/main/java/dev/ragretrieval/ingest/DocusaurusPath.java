package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where Docusaurus publishes a Markdown page of a docs folder, so that {@code ingest --base-url}
 * gives each chunk the address a reader can open. Docusaurus 3's docs plugin rules: number prefixes
 * ({@code 01-intro.md}, {@code 02_basics/}) are dropped from file and folder names unless the
 * front matter says {@code parse_number_prefixes: false}; the front matter's {@code id} replaces the
 * file name; {@code slug} replaces the whole path when it starts with '/', else the file name part;
 * {@code index.md}, {@code README.md} and a file named like its folder are the folder's own page.
 * A site's {@code blog/} and {@code src/pages/} follow the blog's and the pages' rules.
 */
public final class DocusaurusPath {

  // Docusaurus' DefaultNumberPrefixParser: "01-intro" and "003 - intro", but not "2021-11-notes" or "7.0-notes"
  private static final Pattern IGNORED_PREFIX = Pattern.compile("^\\d+[-_.]\\d+.*");
  // Docusaurus' blog plugin: a date anywhere in the path, then the post's name
  private static final Pattern BLOG_DATE = Pattern.compile("^(.*)(\\d{4}[-/]\\d{1,2}[-/]\\d{1,2})[-/]?(.*?)(?:/index)?\\.mdx?$");
  private static final Pattern NUMBER_PREFIX = Pattern.compile("^\\d+\\s*[-_.]+\\s*([^-_.\\s].*)$");

  private DocusaurusPath() {}

  /**
   * The page's path below the ingested folder as Docusaurus serves it: {@code
   * docs/module-1/01-intro.md} becomes {@code docs/module-1/intro}, a category index {@code docs/module-1/}.
   * A leading {@code docs/} is the docs folder (its route is /docs, Docusaurus' default); the path
   * after it is what the rules apply to.
   *
   * @param slug the front matter's {@code slug}, or null
   * @param id the front matter's {@code id}, or null
   * @param parseNumberPrefixes false when the front matter turns prefix parsing off
   */
  static String of(String relativePath, String slug, String id, boolean parseNumberPrefixes) {
    return of(DocusaurusSite.DEFAULT, relativePath, slug, id, parseNumberPrefixes);
  }

  /**
   * As {@link #of(String, String, String, boolean)}, for a site whose settings move its folders or
   * routes: docs served from the site's root ({@code routeBasePath: '/'}), a docs folder of another
   * name, more docs instances, another blog route.
   */
  static String of(DocusaurusSite site, String relativePath, String slug, String id, boolean parseNumberPrefixes) {
    if (site.blog() != null && relativePath.startsWith(site.blog().folder())) {
      return blogPost(site.blog().route(), relativePath.substring(site.blog().folder().length()), slug);
    }
    if (site.pages() && relativePath.startsWith(site.pagesFolder())) {
      // a standalone Markdown page: its path below src/pages is its address
      return relativePath.substring(site.pagesFolder().length()).replaceFirst("(^|/)index\\.mdx?$", "$1")
          .replaceFirst("\\.mdx?$", "");
    }
    DocusaurusSite.Route docs = site.docsOf(relativePath);
    String root = docs == null ? "" : docs.route();
    String source = docs == null ? relativePath : relativePath.substring(docs.folder().length());
    int slash = source.lastIndexOf('/');
    String dir = slash < 0 ? "" : source.substring(0, slash);
    String fileName = source.substring(slash + 1).replaceFirst("\\.mdx?$", "");

    String route;
    if (slug != null && slug.startsWith("/")) {
      route = slug;
    } else {
      String dirRoute = "/" + (parseNumberPrefixes ? withoutNumberPrefixes(dir) : dir) + (dir.isEmpty() ? "" : "/");
      if (slug == null && categoryIndex(fileName, dir)) {
        route = dirRoute;
      } else {
        String base = slug != null ? slug : id != null ? id : parseNumberPrefixes ? strip(fileName) : fileName;
        route = resolve(dirRoute, base);
      }
    }
    String path = route.replaceFirst("^/+", "");
    return root.isEmpty() ? path : path.isEmpty() ? root + "/" : root + "/" + path;
  }

  /**
   * A blog post of a site's blog/ folder: its front matter's slug, else the date in its path as
   * /YYYY/MM/DD/ before the rest ("2024-01-15-hello.md" is blog/2024/01/15/hello).
   */
  private static String blogPost(String route, String source, String slug) {
    String blog = route.isEmpty() ? "" : route + "/";
    if (slug != null) {
      return blog + slug.replaceFirst("^/+", "");
    }
    Matcher dated = BLOG_DATE.matcher(source);
    if (dated.matches()) {
      return blog + dated.group(2).replace('-', '/') + "/" + dated.group(1) + dated.group(3);
    }
    return blog + source.replaceFirst("(/index)?\\.mdx?$", "");
  }

  private static boolean categoryIndex(String fileName, String dir) {
    String name = fileName.toLowerCase(Locale.ROOT);
    String folder = dir.substring(dir.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
    return name.equals("index") || name.equals("readme") || !folder.isEmpty() && name.equals(folder);
  }

  static String strip(String name) {
    if (IGNORED_PREFIX.matcher(name).matches()) {
      return name;
    }
    Matcher prefixed = NUMBER_PREFIX.matcher(name);
    return prefixed.matches() ? prefixed.group(1) : name;
  }

  /**
   * {@code path} with Docusaurus' number prefix dropped from each of its parts ("docs/01-basics/02-setup"
   * is "docs/basics/setup"), as Docusaurus drops them from a page's address.
   */
  public static String withoutNumberPrefixes(String path) {
    List<String> parts = new ArrayList<>();
    for (String part : path.split("/")) {
      parts.add(strip(part));
    }
    return String.join("/", parts);
  }

  /** {@code relative} resolved against the folder route {@code dir} ("/a/b/"), as a URL path resolves. */
  private static String resolve(String dir, String relative) {
    List<String> segments = new ArrayList<>();
    for (String part : dir.split("/")) {
      if (!part.isEmpty()) {
        segments.add(part);
      }
    }
    String[] parts = relative.split("/", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      if (part.equals("..")) {
        if (!segments.isEmpty()) {
          segments.remove(segments.size() - 1);
        }
      } else if (!part.equals(".") && (!part.isEmpty() || i == parts.length - 1)) {
        segments.add(part);
      }
    }
    return "/" + String.join("/", segments);
  }
}
