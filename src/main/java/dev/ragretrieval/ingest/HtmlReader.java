package dev.ragretrieval.ingest;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.Elements;
import org.jsoup.select.Evaluator;
import org.jsoup.select.NodeTraversor;
import org.jsoup.select.NodeVisitor;
import org.jsoup.select.QueryParser;

/**
 * Reads one HTML page of a documentation site into a {@link Page}: only the article content,
 * never the navbar, sidebar, header, footer, breadcrumbs or table of contents. Docusaurus, MkDocs
 * and most Sphinx themes mark their content ({@code article}, {@code [role=main]}); Sphinx themes
 * that mark nothing (Django's) still wrap the body in docutils sections, so the content is what
 * holds the section with the h1; DocBook pages (the PostgreSQL manual) mark nothing either, so
 * their navheader/navfooter tables and TOCs are dropped from the body, as are a Texinfo node's
 * navigation panels and menu (makeinfo's pages mark nothing, and their title is the node's heading,
 * whatever its level). The page title is the
 * content's h1, or (DocBook, mdBook) its first heading when it repeats the {@code <title>} or the
 * part before its last " - ", else the {@code <title>} without its site suffix ("Page — Project
 * documentation"); a heading that only repeats the site's name is a site header, never the
 * title. h2/h3 start sections, except inside a note/tip/warning box, which stays in the section it
 * sits in. A section made (almost) only of links is navigation and is dropped. The chapter is the
 * URL path segment after /docs/ (Docusaurus, whose breadcrumbs label it; the first folder below its
 * base URL when its docs are served at the root), or the first folder below
 * the root that a Sphinx, MkDocs, mdBook, VitePress or Starlight site names on each of its pages.
 */
public final class HtmlReader {

  /**
   * Goes up whenever a change here reads the same HTML differently: a re-ingest then reads every page
   * again instead of trusting the chunks stored from the same bytes.
   */
  static final int VERSION = 7;

  // Selectors are parsed once: parsing one costs more than matching it, and the walk below matches
  // ADMONITION against every element of every page. Evaluators are thread-safe (pages are read on workers).
  private static final Evaluator CONTENT = QueryParser.parse(".theme-doc-markdown, article, main, [role=main]");
  private static final Evaluator NOISE = QueryParser.parse(
      // an inline SVG's text is a diagram's labels and node ids (MkDocs' plugin-events graph), never prose
      "script, style, noscript, template, svg, nav, footer, button, form, "
      + "aside:not(.admonition):not(.starlight-aside):not([data-v-callout]), [role=navigation], [role=search], "
      + "[role=contentinfo], "
      // the page's front matter description printed under its title (Fumadocs, Docus, Retype): the
      // page's Markdown has it as no text, and alone it made a chunk that summed the page up
      // (Nuxt UI's page header: its description beside the h1, not a card's or an alert's in the text)
      + "h1 + p.text-fd-muted-foreground, #retype-page-description, "
      + "[data-slot=container]:has(> [data-slot=wrapper] > h1) > [data-slot=description], "
      // the tab bar of tabbed content (pymdownx tabbed in MkDocs Material and Zensical, sphinx-design):
      // the Markdown's tab labels are no text either
      + ".tabbed-labels, label.sd-tab-label, "
      // Docus (Nuxt UI): the cards of the previous and next pages
      + "[data-slot=root]:has(> a[data-slot=link] [data-slot=linkDescription]), "
      // Docusaurus
      + ".navbar, .theme-doc-sidebar-container, .breadcrumbs, .theme-doc-breadcrumbs, "
      + ".theme-doc-toc-mobile, .theme-doc-toc-desktop, .table-of-contents, .pagination-nav, "
      + ".theme-doc-footer, .theme-edit-this-page, .theme-last-updated, .hash-link, "
      // DocBook (navigation tables above and below each page, chapter tables of contents)
      + ".navheader, .navfooter, div.toc, dl.toc, .list-of-tables, .list-of-figures, .list-of-examples, "
      // Sphinx: basic/classic/alabaster/Python docs, Read the Docs, PyData/Furo; MkDocs (mkdocs, material)
      + ".related, .sphinxsidebar, .headerlink, .toctree-wrapper, .footer, .modal, #searchbox, .searchformwrapper, "
      + ".mobile-nav, .menu-wrapper, .topnav, .relnav, .rellinks, #global-nav, .wy-breadcrumbs, "
      + ".rst-footer-buttons, .prev-next-area, .related-pages, .content-icon-container, .back-to-top, "
      + ".bd-sidebar-primary, .bd-sidebar-secondary, .bd-header-article, .bd-footer-article, "
      + ".md-header, .md-footer, .md-sidebar, .md-source-file, "
      // what a site hides when the page is printed is not the page (Tailwind's print:hidden, Bootstrap's)
      // (prefixed too: Nextra's x:print:hidden)
      + "[class~=(^|\\s)([\\w-]+:)*print:([\\w-]+-)?hidden(\\s|$)], .d-print-none, .hidden-print, "
      // a heading hidden in place, a tab's anchor target (Nextra's tabs)
      + "h2[style*=visibility:hidden], h3[style*=visibility:hidden], "
      // VitePress: a code block's language label; VuePress: a code tab's title in its panel
      + "div[class*=language-] > span.lang, .vp-code-tab-title, "
      // Nextra: its breadcrumbs (the page's section, read for the label)
      + ".nextra-breadcrumb, "
      // Starlight: heading anchors ("Section titled ..."), a code frame's screen-reader title ("Terminal window")
      + ".sl-anchor-link, .expressive-code figcaption .sr-only, "
      // HonKit (GitBook): the search's result panel, headed 'No results matching ""', inside the page
      + ".search-results");
  /** Note, tip, warning and caution boxes: DocBook, Sphinx/MkDocs, Docusaurus, Starlight, Vocs. */
  private static final Evaluator ADMONITION = QueryParser.parse("div.note, div.tip, div.warning, div.caution, "
      + "div.important, .admonition, .theme-admonition, [class*=admonition_], .starlight-aside, [data-v-callout]");
  /** A client-side redirect: the "Redirecting..." stubs that redirect plugins (MkDocs, Sphinx) leave at old paths. */
  private static final Evaluator REFRESH = QueryParser.parse("meta[http-equiv~=(?i)^refresh$][content]");
  private static final Pattern REFRESH_URL = Pattern.compile("(?i)url\\s*=\\s*['\"]?([^'\"]+)");
  private static final Evaluator HEADER = QueryParser.parse("header");
  private static final Set<String> NAVIGATION_WORDS = Set.of("", "up", "next", "previous", "prev", "index", "home",
      "contents", "next »", "« previous", "previous chapter", "next chapter");
  /** Sphinx's link to its general index: genindex.html, or genindex/ from the dirhtml builder. */
  private static final Evaluator SPHINX_INDEX = QueryParser.parse(
      "link[rel=index][href$=genindex.html], link[rel=index][href$=genindex/]");
  /** What names the page this one repeats in another language or version ({@link #originalOf}). */
  private static final Evaluator ORIGINALS = QueryParser.parse(
      "link[rel=alternate][hreflang=x-default][href], .theme-doc-version-banner a[href]");
  private static final Evaluator LANGUAGES = QueryParser.parse("link[rel=alternate][hreflang][href]:not([hreflang=x-default])");
  /** Docusaurus' main script, at {@code <baseUrl>assets/js/main.<hash>.js}. */
  private static final Evaluator DOCUSAURUS_MAIN = QueryParser.parse("script[src*=assets/js/main.]");
  /** Starlight's site title links to the site's root. */
  private static final Evaluator SITE_TITLE = QueryParser.parse("a.site-title[href]");
  /** Material for MkDocs keeps its settings, the site's root among them ("base"), in this script. */
  private static final Evaluator MKDOCS_CONFIG = QueryParser.parse("script#__config");
  /**
   * The site's root in an inline script: the built-in mkdocs and readthedocs themes' {@code base_url},
   * mdBook's {@code path_to_root} and HonKit's {@code "basePath"} (relative to the page), VitePress'
   * site data's {@code base} (a path).
   */
  private static final Pattern SITE_BASE = Pattern.compile(
      "\\b(?:base_url|path_to_root)\\s*=\\s*[\"']([^\"']*)[\"']"
      + "|__VP_SITE_DATA__\\s*=\\s*JSON\\.parse\\(\".*?\\\\\"base\\\\\":\\\\\"([^\"\\\\]*)\\\\\""
      + "|gitbook\\.page\\.hasChanged\\(.*?\"basePath\":\"([^\"]*)\"");
  /**
   * The navigation section a page is in: Material's active top-level item, the mkdocs theme's
   * active dropdown (1.4 marks the item, 1.6 the toggle), the readthedocs theme's crumb, VitePress'
   * sidebar group that holds the active link, Starlight's top-level sidebar group that holds it,
   * VuePress' active sidebar heading. (HonKit, Rspress and Nextra: {@link #navigationChapter}.)
   */
  private static final Evaluator NAV_SECTION = QueryParser.parse(
      ".md-nav--primary > .md-nav__list > .md-nav__item--active.md-nav__item--nested > .md-nav__link, "
      + ".navbar-nav > li.dropdown.active > a.dropdown-toggle, .navbar-nav > li.dropdown > a.dropdown-toggle.active, "
      + ".wy-breadcrumbs > li.breadcrumb-item:not(.active), .VPSidebarItem.level-0.has-active > .item > .text, "
      + "ul.top-level > li > details:has(a[aria-current=page]) > summary .group-label, "
      + ".vp-sidebar-items > li > p.vp-sidebar-heading.active");
  /** An image file's name or path, which is what Sphinx writes as the alt text when the source gives none. */
  private static final Pattern IMAGE_FILE = Pattern.compile("(?i)\\S+\\.(png|jpe?g|gif|svg|webp|avif|bmp|ico)");
  private static final Evaluator SPHINX_CAPTION = QueryParser.parse("p.caption");
  private static final Evaluator CURRENT_LIST = QueryParser.parse("ul.current, ul:has(li.current)");
  private static final Evaluator HEADING_ANCHOR = QueryParser.parse(
      "h1 a[href^=#], h2 a[href^=#], h3 a[href^=#], h4 a[href^=#]");
  /** A pager link's label, alone in its element: "Next", "Previous Page", "« Previous". */
  private static final Evaluator PAGER_LABEL = QueryParser.parse(
      ":not(code):matchesOwn((?i)^[\\s«»‹›←→<>|]*(previous|next|prev)( page| chapter| article)?[\\s«»‹›←→<>|]*$)");
  private static final Pattern PAGER_WORD = Pattern.compile("(?i)\\b(previous|next|prev)\\b");
  private static final Pattern EDIT_LINK = Pattern.compile(
      "(?i)\\W*(edit this page|edit page|edit on github|improve this page|suggest an edit)\\W*");
  private static final Evaluator LINK = QueryParser.parse("a[href]");
  private static final Evaluator KATEX = QueryParser.parse("span.katex");
  private static final Evaluator TEX_SOURCE = QueryParser.parse("annotation[encoding=application/x-tex]");
  private static final Evaluator DOCSIFY = QueryParser.parse("script:containsData($docsify)");
  private static final Evaluator GENERATOR = QueryParser.parse("meta[name=generator][content]");
  /**
   * Texinfo's chrome on a node's page: the navigation panel above and below it ("Next: ..., Previous:
   * ..., Up: ... [Contents][Index]": 6.x's div.header, 7.x's div.nav-panel, the texi2html layout's
   * table.header), the menu of the node's children (6.x's ul.section-toc, 7.x's ul.mini-toc, a
   * table.menu when its entries have descriptions), the Top page's table of contents, and the pilcrow
   * link beside each definition and heading. Only on a page Texinfo made: "header" is a common class.
   */
  private static final Evaluator TEXINFO_NOISE = QueryParser.parse("div.header, div.nav-panel, table.header, "
      + "ul.section-toc, ul.mini-toc, table.menu, div.contents, div.shortcontents, a.copiable-anchor, a.copiable-link");
  /** A Texinfo node's own heading, whatever its level (a subsection's page starts at h4), not its footnotes'. */
  private static final Evaluator TEXINFO_HEADING = QueryParser.parse(
      "h1:not(.footnotes-heading), h2:not(.footnotes-heading), h3:not(.footnotes-heading), "
      + "h4:not(.footnotes-heading), h5:not(.footnotes-heading), h6:not(.footnotes-heading)");
  /**
   * rustdoc's controls in an API page's text: the version and source links beside each item
   * ("1.0.0 · source"), the fold toggles ("[−]", "Expand description"), the playground's "Run" link
   * under every example, and the "ⓘ" tooltips (notable traits, "this example panics").
   */
  private static final Evaluator RUSTDOC_NOISE = QueryParser.parse(".rightside, .out-of-band, .since, .srclink, "
      + "summary.hideme, #toggle-all-docs, a.test-arrow, .notable-traits, .tooltip, .information");
  private static final Evaluator SCRIPT_SRC = QueryParser.parse("script[src]");
  private static final Evaluator HONKIT_ACTIVE = QueryParser.parse("ul.summary li.chapter.active");
  private static final Evaluator HONKIT_PART = QueryParser.parse("ul.summary > li.header");
  private static final Evaluator RSPRESS_ACTIVE = QueryParser.parse(".rp-doc-layout__sidebar a.rp-sidebar-item--active");
  private static final Evaluator RSPRESS_PART = QueryParser.parse(".rp-sidebar-group[data-depth=0]");
  private static final Evaluator NEXTRA_CRUMB = QueryParser.parse(".nextra-breadcrumb > [title]");
  private static final Evaluator H1 = QueryParser.parse("h1");
  private static final Evaluator H1_H2 = QueryParser.parse("h1, h2");
  private static final Evaluator H2_H3 = QueryParser.parse("h2, h3");
  private static final Evaluator DOCUTILS_H1 = QueryParser.parse("section[id] > h1, div.section[id] > h1");
  private static final Evaluator DOCBOOK_CHAPTER = QueryParser.parse(".navheader tr:nth-of-type(2) th");
  private static final Evaluator BREADCRUMB = QueryParser.parse(".breadcrumbs__item");
  private static final Evaluator BREADCRUMB_HOME = QueryParser.parse("[aria-label*=home], .breadcrumbs__link--home");
  private static final Set<String> BLOCKS = Set.of("p", "div", "section", "li", "ul", "ol", "pre",
      "table", "tr", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "br", "hr", "details",
      "summary", "figure");
  /** Between a page's title and the site's name in {@code <title>}: em dash (Sphinx), en dash, bar. */
  private static final List<String> TITLE_SEPARATORS = List.of(" \u2014 ", " \u2013 ", " | ");
  /** A section whose text is at least this share link text is navigation (a list of pages). */
  static final double LINK_SHARE = 0.7;

  private HtmlReader() {}

  public static Page read(String url, String html) {
    Document doc = Jsoup.parse(html, url);
    String sourceUrl = canonical(url);
    String path = URI.create(sourceUrl).getPath();
    String chapter = chapterOf(path);
    String chapterLabel = breadcrumbChapter(doc, categoryPage(path));
    if (chapter == null && chapterLabel != null) {
      chapter = docusaurusChapter(doc, path);
    }
    if (chapterLabel == null) {
      chapterLabel = docbookChapter(doc);
    }
    if (chapterLabel == null) {
      // Sphinx, MkDocs, mdBook, VitePress, Starlight, HonKit, Rspress, VuePress and Nextra name their
      // site's root on every page, so the chapter is the first folder below it wherever the site is
      // served (a /docs/ may be above the root)
      Chapter site = sphinxChapter(doc, sourceUrl);
      if (site == null) {
        site = navigationChapter(doc, sourceUrl);
      }
      if (site != null) {
        chapter = site.folder();
        chapterLabel = site.label();
      }
    }
    if (redirectTarget(doc) != null || isSearchPage(doc, sourceUrl) || doc.selectFirst(DOCSIFY) != null) {
      // a redirect's text only says where the page went (the page it points to is read at its own
      // address); a site's search page only says how to search; a Docsify page is a shell that its
      // script fills with Markdown in the browser ("Loading...")
      return new Page(sourceUrl, documentId(sourceUrl), doc.title().isBlank() ? null : doc.title().strip(),
          chapter, chapterLabel, "html", List.of());
    }
    Element content = doc.selectFirst(CONTENT);
    if (content == null) {
      content = docutilsBody(doc);
    }
    if (content == null) {
      content = doc.body();
    }
    content = content.clone();
    content.select(NOISE).remove();
    if (isRustdoc(doc)) {
      content.select(RUSTDOC_NOISE).remove();
    }
    boolean texinfo = isTexinfo(doc);
    if (texinfo) {
      content.select(TEXINFO_NOISE).remove();
    }
    dropHeadingAnchors(content);
    dropPagers(content);
    katexAsTex(content);
    // a page header outside the content is navigation; Docusaurus keeps its h1 in a header inside it
    content.select(HEADER).stream().filter(h -> h.selectFirst(H1) == null).forEach(Element::remove);
    String[] titleParts = splitTitle(doc.title());
    String siteName = titleParts[1];
    if (siteName != null) {
      // a heading that only names the site ("<Project> documentation") is the site's header
      content.select(H1_H2).stream().filter(h -> sameLabel(h.text(), siteName)).forEach(Element::remove);
    }

    // a Texinfo node's <title> is "Node (Manual title)" and its heading may be an h4 (a subsection's
    // page), which would otherwise stay in the text under the manual's name
    Element titleHeading = texinfo ? content.selectFirst(TEXINFO_HEADING) : titleHeading(content, titleParts[0]);
    String title = titleHeading != null ? titleHeading.text().strip() : titleParts[0];
    if (titleHeading != null) {
      // the page starts at its title: what the content holds above it is breadcrumbs (Hextra's carry no
      // class that says so) or a banner
      for (Node node = titleHeading; node != content && node.parent() != null; node = node.parent()) {
        while (node.previousSibling() != null) {
          node.previousSibling().remove();
        }
      }
      titleHeading.remove();
      // the same words in a second h1 are the title again (Starlight's page header above a Markdown h1)
      content.select(H1).stream().filter(h -> sameLabel(h.text(), title)).forEach(Element::remove);
    }
    SectionCollector collector = new SectionCollector(title);
    NodeTraversor.traverse(collector, content);
    collector.flush();

    return new Page(sourceUrl, documentId(sourceUrl), title.isEmpty() ? null : title,
        chapter, chapterLabel, "html", collector.sections);
  }

  /**
   * The page this one is another version or translation of, as the page says: its {@code <link
   * rel="alternate" hreflang="x-default">} (the default language's page, which multilingual
   * Docusaurus, Hugo and MkDocs sites name) when the page is among its own language alternates (a
   * site that points x-default at its home page from every page names no translation), or the link
   * of Docusaurus' version banner to the same page in the latest version (on an older or unreleased
   * version's page). Null when it names none other than itself. Parses the page: call it on a worker.
   */
  public static String originalOf(String url, String html) {
    // most pages name neither, and a re-ingest otherwise skips parsing unchanged pages: parse only a
    // page that can, and only its head when the links there are all it can name
    boolean banner = html.contains("theme-doc-version-banner");
    int head = html.indexOf("</head>");
    if (!banner && !html.contains("x-default")) {
      return null;
    }
    Document doc = Jsoup.parse(banner || head < 0 ? html : html.substring(0, head), url);
    String self = pageKey(url);
    boolean translated = doc.select(LANGUAGES).stream().anyMatch(link -> self.equals(pageKey(link.absUrl("href"))));
    for (Element link : doc.select(ORIGINALS)) {
      String original = pageKey(link.absUrl("href"));
      if (original != null && !original.equals(self) && (translated || !link.normalName().equals("link"))) {
        return original;
      }
    }
    return null;
  }

  /** {@code url} as {@link #canonical} writes it, without a trailing slash; null for what is no URL. */
  static String pageKey(String url) {
    try {
      return url.isEmpty() ? null : canonical(url).replaceFirst("/$", "");
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Where a client-side redirect sends the reader ({@code <meta http-equiv="refresh" content="0;
   * url=../moved.html">}), as an absolute URL; null for a page that is not one (a refresh without a
   * URL only reloads the page).
   */
  static String redirectTarget(Document doc) {
    for (Element meta : doc.select(REFRESH)) {
      Matcher url = REFRESH_URL.matcher(meta.attr("content"));
      if (url.find()) {
        try {
          return URI.create(doc.location()).resolve(url.group(1).strip()).toString();
        } catch (IllegalArgumentException e) {
          return null; // a target no URL can be made of: not a redirect anything can follow
        }
      }
    }
    return null;
  }

  private static String documentId(String sourceUrl) {
    String id = URI.create(sourceUrl).getPath().replaceAll("^/+|/+$", "");
    return id.isEmpty() ? sourceUrl : id;
  }

  /**
   * The {@code <title>} as [page title, site name]: Sphinx writes "Page — Project 1.0 documentation",
   * other generators "Page | Site"; the last separator splits them (a page title may hold a dash
   * itself: "secrets — Generate secure random numbers — Python 3.11 documentation"). No separator:
   * [title, null].
   */
  static String[] splitTitle(String documentTitle) {
    String title = documentTitle.replaceAll("\\s+", " ").strip();
    int cut = -1;
    int length = 0;
    for (String separator : TITLE_SEPARATORS) {
      int at = title.lastIndexOf(separator);
      if (at > cut) {
        cut = at;
        length = separator.length();
      }
    }
    if (cut <= 0 || cut + length >= title.length()) {
      return new String[] {title, null};
    }
    return new String[] {title.substring(0, cut).strip(), title.substring(cut + length).strip()};
  }

  /**
   * Sphinx themes that mark no main content still put the page body in docutils sections
   * ({@code <section id>}, or {@code <div class="section" id>} before docutils 0.17): the element
   * holding the top section with the page's h1 is the body, without header, sidebars or footer.
   */
  private static Element docutilsBody(Document doc) {
    Element h1 = doc.selectFirst(DOCUTILS_H1);
    return h1 == null || h1.parent() == null ? null : h1.parent().parent();
  }

  /** The URL without fragment or query: the page's identity. */
  static String canonical(String url) {
    URI uri = URI.create(url.strip());
    String scheme = uri.getScheme() == null ? "https" : uri.getScheme().toLowerCase(Locale.ROOT);
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    return scheme + "://" + uri.getRawAuthority() + path;
  }

  /**
   * The path segment after /docs/, when the page sits below one; none for Docusaurus' generated
   * category pages (/docs/category/<slug>), whose slug is made from the label, not the folder.
   */
  static String chapterOf(String path) {
    List<String> parts = segments(path);
    int docs = parts.indexOf("docs");
    return docs >= 0 && parts.size() > docs + 2 && !categoryPage(path) ? parts.get(docs + 1) : null;
  }

  /**
   * A Docusaurus page in a category whose address has no /docs/ (docs served at the site's root,
   * {@code routeBasePath: '/'}): the first folder below the site's base URL, which the address of
   * its main script gives ({@code /book/assets/js/main.<hash>.js}); none for a generated category page.
   */
  private static String docusaurusChapter(Document doc, String path) {
    Element main = doc.selectFirst(DOCUSAURUS_MAIN);
    String script = main == null ? "" : main.absUrl("src");
    int at = script.indexOf("assets/js/main.");
    if (at < 0) {
      return null;
    }
    String base = URI.create(script.substring(0, at)).getPath();
    if (base == null || !path.startsWith(base)) {
      return null;
    }
    List<String> parts = segments(path.substring(base.length()));
    if (!parts.isEmpty() && parts.get(0).equals("docs")) {
      parts.remove(0); // the docs route, where chapterOf found no folder below it
    }
    return parts.size() >= 2 && !parts.get(0).equals("category") ? parts.get(0) : null;
  }

  /** A Docusaurus generated index: /docs/category/<slug>, the page that lists one category's pages. */
  private static boolean categoryPage(String path) {
    List<String> parts = segments(path);
    int docs = parts.indexOf("docs");
    return docs >= 0 && parts.size() == docs + 3 && parts.get(docs + 1).equals("category");
  }

  private static List<String> segments(String path) {
    List<String> parts = new ArrayList<>();
    for (String part : path.split("/")) {
      if (!part.isEmpty()) {
        parts.add(part);
      }
    }
    return parts;
  }

  /**
   * The heading that names the page: the first h1; else (DocBook, whose pages start at h2) the
   * first heading when it repeats the document title, so it does not become a section as well.
   */
  private static Element titleHeading(Element content, String documentTitle) {
    Element h1 = content.selectFirst(H1);
    if (h1 != null) {
      return h1;
    }
    Element first = content.selectFirst(H2_H3);
    if (first == null || first.text().isBlank()) {
      return null;
    }
    if (sameLabel(first.text(), documentTitle)) {
      return first;
    }
    // "Page - Site" (mdBook): a plain hyphen is too common inside titles to split on alone, so only
    // when the page's first heading confirms the part before it
    int cut = documentTitle.lastIndexOf(" - ");
    return cut > 0 && sameLabel(first.text(), documentTitle.substring(0, cut)) ? first : null;
  }

  private static boolean sameLabel(String a, String b) {
    return a.replaceAll("\\s+", " ").strip().equalsIgnoreCase(b.replaceAll("\\s+", " ").strip());
  }

  /**
   * The site's search page (Sphinx's search.html): the page its own {@code <link rel="search">}
   * points to (a page may also name an OpenSearch description that way).
   */
  private static boolean isSearchPage(Document doc, String sourceUrl) {
    for (Element search : doc.select("link[rel=search][href]")) {
      try {
        if (!search.absUrl("href").isEmpty() && canonical(search.absUrl("href")).equals(sourceUrl)) {
          return true;
        }
      } catch (IllegalArgumentException e) {
        // not a URL: not this page
      }
    }
    return false;
  }

  private record Chapter(String folder, String label) {}

  /**
   * A Sphinx page's chapter: the first folder of its path below the site's root, which every Sphinx
   * theme names in {@code <link rel="index" href="../genindex.html">} ("library" for
   * library/secrets.html). Its label is what a link to that folder's index page says: the Python
   * theme's top breadcrumb ("The Python Standard Library"), or the title of Django's "up" link.
   * The first such link that names the page wins; one that only says "up" or "previous chapter"
   * does not.
   */
  private static Chapter sphinxChapter(Document doc, String sourceUrl) {
    Element index = doc.selectFirst(SPHINX_INDEX);
    if (index == null || index.absUrl("href").isEmpty()) {
      return null;
    }
    String root;
    try {
      root = canonical(index.absUrl("href")).replaceFirst("/$", "");
    } catch (IllegalArgumentException e) {
      return null; // an index link that is no URL names no root
    }
    root = root.substring(0, root.lastIndexOf('/') + 1);
    String folder = firstFolder(root, sourceUrl);
    if (folder == null) {
      return sourceUrl.startsWith(root) ? new Chapter(null, null) : null; // a page at the root is in no chapter
    }
    String folderIndex = root + folder + "/index.html";
    String label = null;
    for (Element link : doc.select("a[href]")) {
      String target = link.absUrl("href").replaceFirst("[#?].*$", "");
      // "#main-content" ("Skip to content") stays on this page, which may be the folder's index page
      if (!link.attr("href").startsWith("#") && (target.equals(folderIndex) || target.equals(root + folder + "/"))) {
        String title = link.attr("title").strip();
        String text = link.text().strip();
        // "up" or "previous chapter" say where a link goes, not what is there: then the other one names the page
        label = !navigation(text) ? text : !navigation(title) ? title : null;
        if (label != null) {
          break;
        }
      }
    }
    if (label == null && (sourceUrl.equals(folderIndex) || sourceUrl.equals(root + folder + "/"))) {
      // the folder's own index page: its heading (docutils' section h1; the <title> may add the site's
      // name after a plain hyphen) names the chapter
      Element heading = doc.selectFirst(DOCUTILS_H1);
      if (heading != null) {
        heading = heading.clone();
        heading.select(NOISE).remove(); // its "¶" link
      }
      label = heading != null && !heading.text().isBlank() ? heading.text().strip() : splitTitle(doc.title())[0];
    }
    if (label == null) {
      // no index page for the folder: the caption of the sidebar's toctree that holds the page
      // (Shibuya, Furo, Read the Docs: a toctree's :caption:, a p.caption before its list)
      for (Element caption : doc.select(SPHINX_CAPTION)) {
        Element list = caption.nextElementSibling();
        if (list != null && list.is(CURRENT_LIST) && !caption.text().isBlank()) {
          label = caption.text().strip();
          break;
        }
      }
    }
    return new Chapter(decoded(folder), label);
  }

  /**
   * An MkDocs, mdBook, VitePress, Starlight, HonKit, Rspress, VuePress or Nextra page's chapter: the
   * first folder of its path below the site's root, which every page names (Material's
   * {@code "base": "../.."}, the other MkDocs themes' {@code base_url}, mdBook's {@code path_to_root},
   * VitePress' {@code base}, Starlight's site title link, HonKit's {@code basePath}, the others' script
   * folder); its label is the navigation section the page is in ("User Guide"), which need not be a
   * folder: a sidebar group or part, or Nextra's first breadcrumb.
   */
  private static Chapter navigationChapter(Document doc, String sourceUrl) {
    String base = null;
    Element config = doc.selectFirst(MKDOCS_CONFIG);
    if (config != null) {
      try {
        base = new JsonObject(config.data()).getValue("base") instanceof String b ? b : null;
      } catch (RuntimeException e) {
        return null; // not Material's settings after all
      }
    } else {
      for (Element script : doc.select("script:not([src])")) {
        Matcher matcher = SITE_BASE.matcher(script.data());
        if (matcher.find()) {
          base = matcher.group(1) != null ? matcher.group(1)
              : matcher.group(2) != null ? matcher.group(2) : matcher.group(3);
          break;
        }
      }
    }
    Element siteTitle = doc.selectFirst(SITE_TITLE);
    if (base == null && siteTitle != null) {
      base = siteTitle.attr("href");
    }
    if (base == null) {
      base = assetRoot(doc);
    }
    if (base == null) {
      return null;
    }
    String root;
    try {
      String folderBase = base.isEmpty() || base.endsWith("/") ? base : base + "/";
      root = canonical(URI.create(sourceUrl).resolve(folderBase).toString());
    } catch (IllegalArgumentException e) {
      return null;
    }
    if (!sourceUrl.startsWith(root)) {
      return null;
    }
    String folder = firstFolder(root, sourceUrl);
    Element section = doc.selectFirst(NAV_SECTION);
    if (section == null) {
      section = partBefore(doc.selectFirst(HONKIT_ACTIVE), HONKIT_PART);
    }
    if (section == null) {
      section = partBefore(doc.selectFirst(RSPRESS_ACTIVE), RSPRESS_PART);
    }
    String label = section == null || section.text().isBlank() ? null : section.text().strip();
    if (label == null) {
      // Nextra's breadcrumbs: the section, then the page (a page at the top has one crumb)
      Elements crumbs = doc.select(NEXTRA_CRUMB);
      label = crumbs.size() >= 2 && !crumbs.get(0).attr("title").isBlank() ? crumbs.get(0).attr("title").strip() : null;
    }
    return new Chapter(folder == null ? null : decoded(folder), label);
  }

  /**
   * Removes a heading's own anchor link when it has no words ("#", "¶", a zero-width space):
   * Docusaurus, VitePress, Rspress and most others. VuePress 2 puts the heading's words inside its
   * anchor, so that one stays.
   */
  private static void dropHeadingAnchors(Element content) {
    for (Element anchor : content.select(HEADING_ANCHOR)) {
      if (anchor.text().codePoints().noneMatch(Character::isLetterOrDigit)) {
        anchor.remove();
      }
    }
  }

  /**
   * Removes the links to the previous and next pages that many sites put at the end of the content,
   * found by their "Previous" / "Next" label ("Previous Page", "« Previous"), with the block that
   * holds them when it holds nothing but links (Fumadocs' cards: the next one shows the next page's
   * description, no label).
   */
  private static void dropPagers(Element content) {
    for (Element link : content.select(LINK)) {
      // one look at the link's words first: a manual has thousands of links, pagers and edit links few
      String words = link.text();
      if (words.length() > 200) {
        continue;
      }
      if (EDIT_LINK.matcher(words).matches()) {
        link.remove(); // a link to edit the page's source, whichever site it is on
        continue;
      }
      if (link.attr("href").startsWith("#") || !PAGER_WORD.matcher(words).find() || link.select(PAGER_LABEL).isEmpty()) {
        continue;
      }
      Element holder = link.parent();
      if (holder != null && holder != content && holder.children().size() <= 2
          && holder.children().stream().allMatch(child -> child.is(LINK))) {
        holder.remove();
      } else {
        link.remove();
      }
    }
  }

  /**
   * A formula as its TeX source, as the page's Markdown has it ({@code $x_k$}, {@code $$ P = F P F^T $$}
   * as a paragraph of its own): KaTeX (rehype-katex in Docusaurus, Starlight and others) writes each
   * formula three times over, as MathML, as that source in an annotation, and as glyphs.
   */
  private static void katexAsTex(Element content) {
    for (Element katex : content.select(KATEX)) {
      Element tex = katex.selectFirst(TEX_SOURCE);
      if (tex == null) {
        continue;
      }
      String source = tex.wholeText().strip();
      Element display = katex.parent() != null && katex.parent().hasClass("katex-display") ? katex.parent() : null;
      if (display != null) {
        display.replaceWith(new Element("div").text("$$ " + source + " $$"));
      } else {
        katex.replaceWith(new TextNode("$" + source + "$"));
      }
    }
  }

  /** What the page's generator meta tag says made it ("rustdoc", "makeinfo"); "" without one. */
  private static String generator(Document doc) {
    Element generator = doc.selectFirst(GENERATOR);
    return generator == null ? "" : generator.attr("content").strip();
  }

  /** makeinfo, texi2any and the older texi2html name themselves in the generator meta tag. */
  private static boolean isTexinfo(Document doc) {
    String name = generator(doc).toLowerCase(Locale.ROOT);
    return name.startsWith("makeinfo") || name.startsWith("texi2any") || name.startsWith("texi2html");
  }

  private static boolean isRustdoc(Document doc) {
    return generator(doc).equals("rustdoc");
  }

  /**
   * The site's root from where its generator keeps its scripts: Next.js (Nextra) below
   * {@code <root>_next/static/}, Rspress below {@code <root>static/js/}, VuePress below
   * {@code <root>assets/}. The last two are common folder names, so only on a page whose generator
   * says it is one of them.
   */
  private static String assetRoot(Document doc) {
    String name = generator(doc);
    String folder = name.startsWith("Rspress") ? "/static/js/"
        : name.startsWith("VuePress") ? "/assets/" : "/_next/static/";
    for (Element script : doc.select(SCRIPT_SRC)) {
      String src = script.absUrl("src");
      int at = src.indexOf(folder);
      if (at >= 0) {
        return src.substring(0, at + 1);
      }
    }
    return null;
  }

  /**
   * The part of a flat sidebar that holds {@code active}, the page's own item: the nearest {@code part}
   * heading before it among the sidebar's top-level items. HonKit's (GitBook's) sidebar is one list where
   * a part's heading ({@code li.header}, a {@code ## Part} line of SUMMARY.md) comes before its pages;
   * Rspress' has each group's title, then a block of its pages.
   */
  private static Element partBefore(Element active, Evaluator part) {
    for (Element item = active; item != null; item = item.parent()) {
      for (Element before = item.previousElementSibling(); before != null; before = before.previousElementSibling()) {
        if (before.is(part)) {
          return before;
        }
      }
    }
    return null;
  }

  /** The first folder of {@code url}'s path below {@code root}; null for a page at the root or elsewhere. */
  private static String firstFolder(String root, String url) {
    if (!url.startsWith(root)) {
      return null;
    }
    String below = url.substring(root.length());
    int slash = below.indexOf('/');
    return slash <= 0 || below.startsWith("_") ? null : below.substring(0, slash);
  }

  /** A path segment as text; its "+" is a plus, not a space as in a form. */
  private static String decoded(String segment) {
    return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static boolean navigation(String linkWords) {
    return NAVIGATION_WORDS.contains(linkWords.toLowerCase(Locale.ROOT));
  }

  /** DocBook's navigation header names the chapter above the page ("Chapter 11. Indexes"). */
  private static String docbookChapter(Document doc) {
    Element chapter = doc.selectFirst(DOCBOOK_CHAPTER);
    String text = chapter == null ? "" : chapter.text().strip();
    return text.isEmpty() || sameLabel(text, doc.title()) ? null : text;
  }

  /**
   * Docusaurus breadcrumbs: home, then the category, then the page; on a category's own page
   * ({@code category}) the one crumb is the category.
   */
  private static String breadcrumbChapter(Document doc, boolean category) {
    List<String> items = new ArrayList<>();
    for (Element item : doc.select(BREADCRUMB)) {
      if (!item.select(BREADCRUMB_HOME).isEmpty()) {
        continue;
      }
      String text = item.text().strip();
      if (!text.isEmpty()) {
        items.add(text);
      }
    }
    return items.size() >= 2 || category && items.size() == 1 ? items.get(0) : null;
  }

  /**
   * Whether an image's alt text is words ("Django admin login screen") rather than its file: Sphinx
   * writes the image's path when the source gives none ("../_images/logging_flow.png").
   */
  static boolean isFigureWords(String alt) {
    return !alt.isBlank() && !IMAGE_FILE.matcher(alt.strip()).matches();
  }

  /** Walks the content in document order, starting a section at every h2/h3. */
  private static final class SectionCollector implements NodeVisitor {
    final List<Page.Section> sections = new ArrayList<>();
    private final String pageTitle;
    private final StringBuilder text = new StringBuilder();
    private String heading;
    private String parent; // the h2 above the current h3 section
    private String h2;
    private Node skipping;
    private int preDepth;
    private int admonitionDepth;
    private int linkDepth;
    private int linkChars;

    SectionCollector(String pageTitle) {
      this.pageTitle = pageTitle;
    }

    @Override
    public void head(Node node, int depth) {
      if (skipping != null) {
        return;
      }
      if (node instanceof Element e) {
        String tag = e.normalName();
        if (e.is(ADMONITION)) {
          admonitionDepth++; // its own heading ("Note") is text of the box, not a new section
          newline();
        }
        if (tag.equals("a")) {
          linkDepth++;
        }
        if ((tag.equals("h2") || tag.equals("h3")) && admonitionDepth == 0) {
          flush();
          String label = e.text().strip();
          String named = label.isEmpty() || sameLabel(label, pageTitle) ? null : label;
          if (tag.equals("h2")) {
            h2 = named;
            parent = null;
          } else {
            parent = h2 == null || h2.equals(named) ? null : h2;
          }
          heading = named;
          skipping = e;
          return;
        }
        if (tag.equals("img") && preDepth == 0) {
          // a figure's words, as the page's Markdown has them (![alt](src)), a word apart from the text
          words(isFigureWords(e.attr("alt")) ? " " + e.attr("alt") + " " : "");
        }
        if (tag.equals("pre")) {
          preDepth++;
          newline();
        } else if (preDepth == 0 && BLOCKS.contains(tag) && text.length() > 0
            && !Character.isWhitespace(text.charAt(text.length() - 1))) {
          // text that runs straight into a block, as a minified page has it ("<li>Parent<ul><li>Child"),
          // is a word apart from it, as where the page's source has a line break between them
          text.append(' ');
        }
      } else if (node instanceof TextNode t) {
        if (preDepth > 0) {
          text.append(t.getWholeText());
        } else {
          words(t.text());
        }
      }
    }

    /** Words of running text, spaced as the page spaces them. */
    private void words(String words) {
      if (!words.isBlank() && linkDepth > 0) {
        linkChars += (int) words.chars().filter(c -> !Character.isWhitespace(c)).count();
      }
      if (!words.isBlank()) {
        boolean space = text.length() > 0 && !Character.isWhitespace(text.charAt(text.length() - 1))
            && Character.isWhitespace(words.charAt(0));
        text.append(space ? " " : "").append(words.strip());
        if (Character.isWhitespace(words.charAt(words.length() - 1))) {
          text.append(' ');
        }
      } else if (!words.isEmpty() && text.length() > 0
          && !Character.isWhitespace(text.charAt(text.length() - 1))) {
        text.append(' '); // the space between two inline elements ("<code>a</code> <code>b</code>")
      }
    }

    @Override
    public void tail(Node node, int depth) {
      if (skipping != null) {
        if (node == skipping) {
          skipping = null;
        }
        return;
      }
      if (node instanceof Element e) {
        if (e.normalName().equals("a")) {
          linkDepth--;
        }
        if (e.is(ADMONITION)) {
          admonitionDepth--;
        }
        if ((e.normalName().equals("td") || e.normalName().equals("th")) && text.length() > 0
            && !Character.isWhitespace(text.charAt(text.length() - 1))) {
          text.append(' '); // table cells are words apart, not glued together
        }
        if (e.normalName().equals("pre")) {
          preDepth--;
          text.append("\n\n");
        } else if (preDepth > 0) {
          // inside code a line ends with one newline, whitespace kept: Docusaurus 3 wraps each line
          // in a block (<div class="token-line">) that ends with a <br>, and an empty line is a <br> alone
          if (e.normalName().equals("br")) {
            text.append('\n');
          } else if (BLOCKS.contains(e.normalName()) && text.length() > 0 && text.charAt(text.length() - 1) != '\n') {
            text.append('\n');
          }
        } else if (BLOCKS.contains(e.normalName())) {
          newline();
        }
      }
    }

    private void newline() {
      int len = text.length();
      while (len > 0 && text.charAt(len - 1) == ' ') {
        text.setLength(--len);
      }
      // the last two chars, not text.toString(): that copied the whole section at every block element
      if (len > 0 && !(len >= 2 && text.charAt(len - 1) == '\n' && text.charAt(len - 2) == '\n')) {
        text.append(text.charAt(len - 1) == '\n' ? "\n" : "\n\n");
      }
    }

    void flush() {
      String body = text.toString().replaceAll("\\n{3,}", "\n\n").strip();
      long letters = body.chars().filter(c -> !Character.isWhitespace(c)).count();
      boolean navigation = letters > 0 && linkChars >= LINK_SHARE * letters;
      if (!body.isEmpty() && !navigation) {
        sections.add(new Page.Section(heading, parent, body));
      }
      text.setLength(0);
      linkChars = 0;
    }
  }
}
