package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Docusaurus site publishes, from its {@code docusaurus.config.*}: each docs folder with its
 * route ({@code docs: {path, routeBasePath}} of the classic preset, and more docs plugin
 * instances), the blog's, whether {@code src/pages/} is published, and whether number prefixes are
 * parsed. Only literal values are read, as a person reading the file would: a setting computed by
 * code keeps Docusaurus' default.
 *
 * @param docs the docs folders ("docs/") with their routes ("docs"; "" for a site served from its root)
 * @param blog the blog's folder and route, or null when the site has no blog
 * @param base the site's folder below the folder read, when its folders are given from there
 *     ({@link #rebased}); "" otherwise
 */
record DocusaurusSite(List<Route> docs, Route blog, boolean pages, boolean numberPrefixes, String base) {

  /** A folder of the site ("docs/", with its slash) and the route it is served at ("docs", "" for the root). */
  record Route(String folder, String route) {}

  /** Docusaurus' defaults: docs/ at /docs, blog/ at /blog, src/pages/ at the root, prefixes parsed. */
  static final DocusaurusSite DEFAULT =
      new DocusaurusSite(List.of(new Route("docs/", "docs")), new Route("blog/", "blog"), true, true);

  DocusaurusSite {
    docs = List.copyOf(docs);
  }

  DocusaurusSite(List<Route> docs, Route blog, boolean pages, boolean numberPrefixes) {
    this(docs, blog, pages, numberPrefixes, "");
  }

  /** Whether a docs or blog folder lies above the site's own ({@code path: '../docs'}, a site in website/). */
  boolean reachesOut() {
    return docs.stream().anyMatch(route -> route.folder().startsWith("../"))
        || blog != null && blog.folder().startsWith("../");
  }

  /**
   * This site as seen from the folder above it: its folders given below that folder ("website/" and
   * "../docs/" is "docs/"); null when one of them lies above that folder too.
   */
  DocusaurusSite rebased(String site) {
    String prefix = site.endsWith("/") ? site : site + "/";
    List<Route> moved = new ArrayList<>();
    for (Route route : docs) {
      String folder = FolderPath.below(prefix, route.folder());
      if (folder == null) {
        return null;
      }
      moved.add(new Route(folder, route.route()));
    }
    Route movedBlog = null;
    if (blog != null) {
      String folder = FolderPath.below(prefix, blog.folder());
      if (folder == null) {
        return null;
      }
      movedBlog = new Route(folder, blog.route());
    }
    return new DocusaurusSite(moved, movedBlog, pages, numberPrefixes, prefix);
  }

  /** The folder of the site's standalone pages. */
  String pagesFolder() {
    return base + "src/pages/";
  }

  /** The preset's docs folder (the first), whose subfolders are the book's chapters; "docs/" without one. */
  String pagesRoot() {
    return docs.isEmpty() ? "docs/" : docs.get(0).folder();
  }

  /** The folders whose pages the site publishes. */
  List<String> folders() {
    List<String> folders = new ArrayList<>();
    docs.forEach(route -> folders.add(route.folder()));
    if (blog != null) {
      folders.add(blog.folder());
    }
    if (pages) {
      folders.add(pagesFolder());
    }
    return folders;
  }

  /** The docs route whose folder holds {@code relativePath} (the deepest: "docs/api/" before "docs/"), or null. */
  Route docsOf(String relativePath) {
    return docs.stream().filter(route -> relativePath.startsWith(route.folder()))
        .max(Comparator.comparingInt(route -> route.folder().length())).orElse(null);
  }

  private static final Pattern DOCS = Pattern.compile("(?<![\\w.$])docs\\s*:\\s*");
  private static final Pattern BLOG = Pattern.compile("(?<![\\w.$])blog\\s*:\\s*");
  private static final Pattern PAGES_OFF = Pattern.compile("(?<![\\w.$])pages\\s*:\\s*false\\b");
  private static final Pattern DOCS_PLUGIN =
      Pattern.compile("['\"](?:@docusaurus/plugin-)?content-docs['\"]\\s*\\)?\\s*,\\s*(?=\\{|\\(\\s*\\{)");
  /** Keys that only the plugins' options have, not themeConfig's {@code docs: {sidebar}} or {@code blog: {sidebar}}. */
  private static final Set<String> PLUGIN_KEYS = Set.of("path", "routeBasePath", "sidebarPath", "editUrl", "include",
      "exclude", "numberPrefixParser", "remarkPlugins", "rehypePlugins", "showReadingTime", "blogTitle",
      "postsPerPage", "feedOptions", "authorsMapPath", "lastVersion", "versions", "tagsBasePath");

  /** The site a config file's text describes; Docusaurus' defaults for whatever it does not say. */
  static DocusaurusSite of(String configText) {
    String config = withoutComments(configText); // "// docs: false to hide them" says nothing
    List<Route> docs = new ArrayList<>();
    boolean numberPrefixes = true;
    Options preset = options(config, DOCS);
    if (preset == null) {
      docs.add(DEFAULT.docs().get(0));
    } else if (!preset.disabled()) {
      Route route = route(preset.values(), "docs");
      if (route != null) {
        docs.add(route);
      }
      numberPrefixes = !Boolean.FALSE.equals(preset.values().get("numberPrefixParser"));
    }
    Matcher plugin = DOCS_PLUGIN.matcher(config);
    while (plugin.find()) {
      Route route = route(topLevel(config, config.indexOf('{', plugin.end())), "docs");
      if (route != null && docs.stream().noneMatch(r -> r.folder().equals(route.folder()))) {
        docs.add(route);
      }
    }
    Options blogOptions = options(config, BLOG);
    Route blog = blogOptions == null ? DEFAULT.blog()
        : blogOptions.disabled() ? null : route(blogOptions.values(), "blog");
    return new DocusaurusSite(docs, blog, !PAGES_OFF.matcher(config).find(), numberPrefixes);
  }

  /** A plugin's options: its literal values, or disabled ({@code docs: false}). */
  private record Options(Map<String, Object> values, boolean disabled) {}

  /**
   * The options object given under {@code key} that a plugin reads (one with any of its keys), or
   * disabled when the key is {@code false}; null when the file says neither.
   */
  private static Options options(String config, Pattern key) {
    boolean disabled = false;
    Matcher at = key.matcher(config);
    while (at.find()) {
      if (config.startsWith("{", at.end())) {
        Map<String, Object> values = topLevel(config, at.end());
        if (values.keySet().stream().anyMatch(PLUGIN_KEYS::contains)) {
          return new Options(values, false);
        }
      } else if (config.startsWith("false", at.end())) {
        disabled = true;
      }
    }
    return disabled ? new Options(Map.of(), true) : null;
  }

  /**
   * A plugin's folder and route from its options (the default for one that is not a literal); null
   * for a folder that is no path below or above the site's.
   */
  private static Route route(Map<String, Object> values, String defaultRoute) {
    String folder = values.get("path") instanceof String path ? path : defaultRoute;
    String served = values.get("routeBasePath") instanceof String route ? route : defaultRoute;
    folder = folder.replaceFirst("^(\\./)+", "").replaceAll("/+$", "");
    // a folder above the site's ("../docs") is kept: read from the folder above ({@link #rebased})
    if (folder.isEmpty() || folder.startsWith("/") || folder.contains(":")
        || folder.startsWith("..") && !folder.matches("(\\.\\./)+[^.][^:]*")) {
      return null;
    }
    return new Route(folder + "/", served.replaceAll("^/+|/+$", ""));
  }

  /** Marks a key whose value is code (a call, a name, an object): present, but not read. */
  static final Object CODE = new Object();

  /**
   * The keys of the object literal that opens at {@code open} ('{'), at its own level only (a nested
   * {@code versions: {current: {path: ...}}} is not the plugin's path), with their literal values
   * (strings, true, false) or {@link #CODE}. Strings are skipped, so braces in them do not count.
   */
  static Map<String, Object> topLevel(String text, int open) {
    Map<String, Object> values = new LinkedHashMap<>();
    if (open < 0 || open >= text.length() || text.charAt(open) != '{') {
      return values;
    }
    int depth = 0;
    String key = null; // a key read at the object's level, waiting for its ':'
    boolean afterColon = false;
    for (int i = open; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = stringEnd(text, i);
        String literal = text.substring(i + 1, Math.max(i + 1, end));
        if (depth == 1 && afterColon && key != null) {
          values.put(key, literal);
          key = null;
        } else if (depth == 1 && !afterColon) {
          key = literal; // a quoted key
        }
        afterColon = false;
        i = end;
        continue;
      }
      if (c == '{' || c == '[' || c == '(') {
        if (depth == 1 && afterColon && key != null) {
          values.put(key, CODE);
        }
        depth++;
        afterColon = false;
        key = null;
        continue;
      }
      if (c == '}' || c == ']' || c == ')') {
        depth--;
        if (depth == 0) {
          break;
        }
        key = null;
        continue;
      }
      if (depth != 1) {
        continue;
      }
      if (c == ':') {
        afterColon = key != null;
        continue;
      }
      if (c == ',') {
        key = null;
        afterColon = false;
        continue;
      }
      if (Character.isJavaIdentifierStart(c)) {
        int end = i;
        while (end < text.length() && Character.isJavaIdentifierPart(text.charAt(end))) {
          end++;
        }
        String word = text.substring(i, end);
        if (afterColon && key != null) {
          values.put(key, word.equals("true") || word.equals("false") ? Boolean.valueOf(word) : CODE);
          key = null;
          afterColon = false;
        } else if (!afterColon) {
          key = word;
        }
        i = end - 1;
      }
    }
    return values;
  }

  /** The text with its comments blanked out, strings kept (a "//" in a URL is no comment). */
  static String withoutComments(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = Math.min(stringEnd(text, i), text.length() - 1);
        out.append(text, i, end + 1);
        i = end;
      } else if (c == '/' && i + 1 < text.length() && (text.charAt(i + 1) == '/' || text.charAt(i + 1) == '*')) {
        int end = text.charAt(i + 1) == '/' ? text.indexOf('\n', i) : text.indexOf("*/", i + 2);
        end = end < 0 ? text.length() : text.charAt(i + 1) == '/' ? end : end + 2;
        out.append(" ".repeat(end - i));
        i = end - 1;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** The index of the quote that closes the string opening at {@code open}. */
  private static int stringEnd(String text, int open) {
    char quote = text.charAt(open);
    for (int i = open + 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == quote) {
        return i;
      }
    }
    return text.length();
  }
}
