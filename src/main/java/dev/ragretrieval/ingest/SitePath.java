package dev.ragretrieval.ingest;

import java.util.Locale;

/**
 * Where MkDocs, mdBook, Starlight, VitePress, Hugo, Jupyter Book and Quarto publish a Markdown page
 * of their repository, so that {@code ingest --base-url} gives each chunk the address a reader can
 * open (Docusaurus' rules are {@link DocusaurusPath}'s). MkDocs serves {@code guide/setup.md} at
 * {@code guide/setup/}, or at {@code guide/setup.html} with {@code use_directory_urls: false}, an
 * index.md or README.md as its folder (or its index.html); mdBook at {@code guide/setup.html}, a
 * README.md as index.html; Starlight at {@code guide/setup/}, its path slugged (lower case, spaces
 * as '-') unless the front matter's {@code slug} names it; VitePress at {@code guide/setup.html}, or
 * {@code guide/setup} with {@code cleanUrls: true}; Jupyter Book and Quarto at
 * {@code guide/setup.html}; Hugo at {@code guide/setup/} in lower case, or with the front matter's
 * {@code slug} as its last part (below its default language's code with
 * {@code defaultContentLanguageInSubdir}); a MyST project (Jupyter Book 2) at {@code setup}, without its
 * folders ({@link MystProject}). Starlight, VitePress and Hugo serve an {@code index.md} as its
 * folder, and Hugo a section's {@code _index.md}. None drops number prefixes.
 */
final class SitePath {

  private SitePath() {}

  /**
   * The page's path below the site's address, from its path in the repository.
   *
   * @param slug the front matter's {@code slug} (Starlight, Hugo), or null
   */
  static String of(MarkdownFolder.Layout layout, String relativePath, String slug) {
    // a page beside the pages root in the published folder (docs/top.md beside mkdocs-static-i18n's docs/en/)
    String root = relativePath.startsWith(layout.pagesRoot()) ? layout.pagesRoot()
        : layout.folders() != null && layout.folders().size() == 1 && relativePath.startsWith(layout.folders().get(0))
            ? layout.folders().get(0) : "";
    String source = relativePath.substring(root.length());
    int slash = source.lastIndexOf('/');
    String dir = slash < 0 ? "" : source.substring(0, slash + 1);
    // setup.en.md, in the default language of a site that names translations setup.fr.md, is served as setup
    String name = layout.languages().unmarked(MarkdownReader.withoutExtension(source.substring(slash + 1)));
    boolean index = name.equals("index");
    return switch (layout.generator()) {
      case MKDOCS -> index || name.equalsIgnoreCase("README")
          ? dir + (layout.pageSuffix().equals("/") ? "" : "index" + layout.pageSuffix())
          : dir + name + layout.pageSuffix();
      case MDBOOK -> dir + (name.equals("README") ? "index" : name) + layout.pageSuffix();
      case STARLIGHT -> slug != null ? slug.replaceAll("^/+|/+$", "") + (slug.isBlank() ? "" : "/")
          : slugged(index ? dir : dir + name + "/");
      case VITEPRESS -> index ? dir : dir + name + layout.pageSuffix();
      case JUPYTER_BOOK, QUARTO -> dir + name + layout.pageSuffix();
      // Sphinx: guide/setup.html, or with the dirhtml builder guide/setup/ and an index.rst as its folder
      case SPHINX -> layout.pageSuffix().equals("/") ? (index ? dir : dir + name + "/") : dir + name + ".html";
      // Antora: modules/<module>/pages/guide/setup.adoc is <module>/guide/setup.html, the ROOT module's at the root
      case ANTORA -> MarkdownReader.withoutExtension(relativePath).replaceFirst("^modules/ROOT/pages/", "")
          .replaceFirst("^modules/([^/]+)/pages/", "$1/") + ".html";
      // MyST: a slug of the file's name, given for the whole project at once (numbered where two share one)
      case MYST -> layout.addresses() != null && layout.addresses().containsKey(relativePath)
          ? layout.addresses().get(relativePath) : MystProject.slugOf(name);
      // Hugo: a section's _index.md and a bundle's index.md are their folder; paths in lower case, spaces as '-'
      case HUGO -> layout.languages().served() + (index || name.equals("_index") ? dir
          : dir + (slug != null && !slug.isBlank() ? slug.strip() : name) + "/").toLowerCase(Locale.ROOT)
          .replaceAll("\\s", "-");
      case DOCUSAURUS -> throw new IllegalArgumentException("Docusaurus' addresses are DocusaurusPath's");
    };
  }

  /** Astro's slugs: each segment in lower case, spaces as '-', punctuation other than '-' and '_' dropped. */
  private static String slugged(String path) {
    StringBuilder out = new StringBuilder();
    for (String segment : path.split("/")) {
      if (!segment.isEmpty()) {
        out.append(segment.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s_-]", "").strip()
            .replaceAll("\\s", "-")).append('/');
      }
    }
    return out.toString();
  }
}
