package dev.ragretrieval.ingest;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeTraversor;
import org.jsoup.select.NodeVisitor;

/**
 * Reads one HTML page of a documentation site (Docusaurus first) into a {@link Page}: only the
 * article content, never the navbar, sidebar, footer or breadcrumbs; h1 is the page title,
 * h2/h3 start sections; the chapter is the URL path segment after /docs/.
 */
public final class HtmlReader {

  private static final String CONTENT = ".theme-doc-markdown, article, main, [role=main]";
  private static final String NOISE = "script, style, noscript, template, nav, footer, aside, button, "
      + ".navbar, .theme-doc-sidebar-container, .breadcrumbs, .theme-doc-breadcrumbs, "
      + ".theme-doc-toc-mobile, .theme-doc-toc-desktop, .table-of-contents, .pagination-nav, "
      + ".theme-doc-footer, .theme-edit-this-page, .theme-last-updated, .hash-link";
  private static final Set<String> BLOCKS = Set.of("p", "div", "section", "li", "ul", "ol", "pre",
      "table", "tr", "blockquote", "h4", "h5", "h6", "dt", "dd", "br", "hr", "details", "summary", "figure");

  private HtmlReader() {}

  public static Page read(String url, String html) {
    Document doc = Jsoup.parse(html, url);
    String sourceUrl = canonical(url);
    String chapterLabel = breadcrumbChapter(doc);
    Element content = doc.selectFirst(CONTENT);
    if (content == null) {
      content = doc.body();
    }
    content = content.clone();
    content.select(NOISE).remove();

    Element h1 = content.selectFirst("h1");
    String title = h1 != null ? h1.text().strip() : doc.title().strip();
    if (h1 != null) {
      h1.remove();
    }
    SectionCollector collector = new SectionCollector();
    NodeTraversor.traverse(collector, content);
    collector.flush();

    String path = URI.create(sourceUrl).getPath();
    String documentId = path.replaceAll("^/+|/+$", "");
    return new Page(sourceUrl, documentId.isEmpty() ? sourceUrl : documentId, title.isEmpty() ? null : title,
        chapterOf(path), chapterLabel, "html", collector.sections);
  }

  /** The URL without fragment or query: the page's identity. */
  static String canonical(String url) {
    URI uri = URI.create(url.strip());
    String scheme = uri.getScheme() == null ? "https" : uri.getScheme().toLowerCase(Locale.ROOT);
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    return scheme + "://" + uri.getRawAuthority() + path;
  }

  /** The path segment after /docs/, when the page sits below one. */
  static String chapterOf(String path) {
    List<String> parts = new ArrayList<>();
    for (String part : path.split("/")) {
      if (!part.isEmpty()) {
        parts.add(part);
      }
    }
    int docs = parts.indexOf("docs");
    return docs >= 0 && parts.size() > docs + 2 ? parts.get(docs + 1) : null;
  }

  /** Docusaurus breadcrumbs: home, then the category, then the page. */
  private static String breadcrumbChapter(Document doc) {
    List<String> items = new ArrayList<>();
    for (Element item : doc.select(".breadcrumbs__item")) {
      if (!item.select("[aria-label*=home], .breadcrumbs__link--home").isEmpty()) {
        continue;
      }
      String text = item.text().strip();
      if (!text.isEmpty()) {
        items.add(text);
      }
    }
    return items.size() >= 2 ? items.get(0) : null;
  }

  /** Walks the content in document order, starting a section at every h2/h3. */
  private static final class SectionCollector implements NodeVisitor {
    final List<Page.Section> sections = new ArrayList<>();
    private final StringBuilder text = new StringBuilder();
    private String heading;
    private Node skipping;
    private int preDepth;

    @Override
    public void head(Node node, int depth) {
      if (skipping != null) {
        return;
      }
      if (node instanceof Element e) {
        String tag = e.normalName();
        if (tag.equals("h2") || tag.equals("h3")) {
          flush();
          heading = e.text().strip();
          skipping = e;
          return;
        }
        if (tag.equals("pre")) {
          preDepth++;
          newline();
        }
      } else if (node instanceof TextNode t) {
        if (preDepth > 0) {
          text.append(t.getWholeText());
        } else {
          String words = t.text();
          if (!words.isBlank()) {
            boolean space = text.length() > 0 && !Character.isWhitespace(text.charAt(text.length() - 1))
                && Character.isWhitespace(words.charAt(0));
            text.append(space ? " " : "").append(words.strip());
            if (Character.isWhitespace(words.charAt(words.length() - 1))) {
              text.append(' ');
            }
          }
        }
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
        if (e.normalName().equals("pre")) {
          preDepth--;
          text.append("\n\n");
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
      if (len > 0 && !text.toString().endsWith("\n\n")) {
        text.append(text.charAt(len - 1) == '\n' ? "\n" : "\n\n");
      }
    }

    void flush() {
      String body = text.toString().replaceAll("\\n{3,}", "\n\n").strip();
      if (!body.isEmpty()) {
        sections.add(new Page.Section(heading, body));
      }
      text.setLength(0);
    }
  }
}
