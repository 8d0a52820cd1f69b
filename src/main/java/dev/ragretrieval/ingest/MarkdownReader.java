package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.commonmark.ext.front.matter.YamlFrontMatterBlock;
import org.commonmark.ext.front.matter.YamlFrontMatterExtension;
import org.commonmark.ext.front.matter.YamlFrontMatterVisitor;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.IndentedCodeBlock;
import org.commonmark.node.Node;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.text.TextContentRenderer;
import org.jsoup.Jsoup;

/**
 * Reads one Markdown or MDX page (Docusaurus style) into a {@link Page}: the front-matter title,
 * the module folder as chapter, {@code ##}/{@code ###} headings as sections. MDX noise (import and
 * export lines, JSX component tags, admonition fences) is removed; code blocks stay as text.
 */
public final class MarkdownReader {

  private static final List<org.commonmark.Extension> EXTENSIONS = List.of(YamlFrontMatterExtension.create());
  private static final Parser PARSER = Parser.builder().extensions(EXTENSIONS).build();
  private static final TextContentRenderer TEXT = TextContentRenderer.builder().extensions(EXTENSIONS).build();

  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~).*");
  private static final Pattern MODULE_LINE = Pattern.compile("^\\s*(import|export)\\s.*");
  private static final Pattern ADMONITION = Pattern.compile("^\\s*:::.*");
  private static final Pattern JSX_TAG = Pattern.compile("</?[A-Z][\\w.]*(\\s[^<>]*)?/?>");
  private static final Pattern MDX_COMMENT = Pattern.compile("\\{/\\*.*?\\*/}");

  private MarkdownReader() {}

  /**
   * @param relativePath the page's path under the ingested root, with '/' separators
   * @param chapterLabel the module folder's {@code _category_.json} label, or null
   * @param baseUrl prefix for source_url (e.g. the published site), or null for the bare path
   */
  public static Page read(String relativePath, String markdown, String chapterLabel, String baseUrl) {
    String documentId = relativePath.replaceFirst("\\.mdx?$", "");
    String sourceUrl = baseUrl == null || baseUrl.isBlank() ? documentId
        : baseUrl.replaceAll("/+$", "") + "/" + documentId;
    Node document = PARSER.parse(stripMdx(markdown));
    unquoteInlineCode(document);

    YamlFrontMatterVisitor frontMatter = new YamlFrontMatterVisitor();
    document.accept(frontMatter);
    String title = first(frontMatter.getData(), "title");

    List<Page.Section> sections = new ArrayList<>();
    String heading = null;
    String h2 = null;
    String parent = null; // the h2 above an h3 section
    StringBuilder text = new StringBuilder();
    for (Node node = document.getFirstChild(); node != null; node = node.getNext()) {
      if (node instanceof YamlFrontMatterBlock) {
        continue;
      }
      if (node instanceof Heading h && h.getLevel() <= 3) {
        String headingText = TEXT.render(h).strip();
        if (h.getLevel() == 1) {
          title = title == null ? headingText : title;
          continue;
        }
        addSection(sections, heading, parent, text);
        if (h.getLevel() == 2) {
          h2 = headingText;
          parent = null;
        } else {
          parent = h2 == null || h2.equals(headingText) ? null : h2;
        }
        heading = headingText;
        text.setLength(0);
        continue;
      }
      append(text, blockText(node));
    }
    addSection(sections, heading, parent, text);
    return new Page(sourceUrl, documentId, title, chapterOf(documentId), chapterLabel, "markdown", sections);
  }

  /** The module folder: the first folder of the path, not counting a leading docs/. */
  static String chapterOf(String documentId) {
    List<String> parts = new ArrayList<>(List.of(documentId.split("/")));
    parts.remove(parts.size() - 1);
    if (!parts.isEmpty() && parts.get(0).equals("docs")) {
      parts.remove(0);
    }
    return parts.isEmpty() ? null : parts.get(0);
  }

  /** Drops MDX-only lines outside code fences; code is left exactly as written. */
  static String stripMdx(String markdown) {
    StringBuilder out = new StringBuilder(markdown.length());
    boolean inCode = false;
    for (String line : markdown.split("\\R", -1)) {
      if (FENCE.matcher(line).matches()) {
        inCode = !inCode;
        out.append(line).append('\n');
        continue;
      }
      if (!inCode) {
        if (MODULE_LINE.matcher(line).matches() || ADMONITION.matcher(line).matches()) {
          continue;
        }
        line = withoutTags(line);
        if (line.isBlank()) {
          out.append('\n');
          continue;
        }
      }
      out.append(line).append('\n');
    }
    return out.toString();
  }

  /** Removes JSX tags and MDX comments, but not inside inline code (`List<String>` stays). */
  private static String withoutTags(String line) {
    String[] parts = line.split("`", -1);
    StringBuilder out = new StringBuilder(line.length());
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        out.append('`');
      }
      out.append(i % 2 == 1 ? parts[i] : MDX_COMMENT.matcher(JSX_TAG.matcher(parts[i]).replaceAll("")).replaceAll(""));
    }
    return out.toString();
  }

  /** The text renderer quotes inline code; retrieval wants the code as written. */
  private static void unquoteInlineCode(Node document) {
    List<Code> spans = new ArrayList<>();
    document.accept(new AbstractVisitor() {
      @Override
      public void visit(Code code) {
        spans.add(code);
      }
    });
    for (Code code : spans) {
      code.insertBefore(new Text(code.getLiteral()));
      code.unlink();
    }
  }

  private static String blockText(Node node) {
    if (node instanceof FencedCodeBlock code) {
      return code.getLiteral().stripTrailing();
    }
    if (node instanceof IndentedCodeBlock code) {
      return code.getLiteral().stripTrailing();
    }
    if (node instanceof HtmlBlock html) {
      return Jsoup.parse(html.getLiteral()).text();
    }
    return TEXT.render(node).strip();
  }

  private static void append(StringBuilder text, String block) {
    if (block.isBlank()) {
      return;
    }
    if (text.length() > 0) {
      text.append("\n\n");
    }
    text.append(block);
  }

  private static void addSection(List<Page.Section> sections, String heading, String parent, StringBuilder text) {
    if (!text.toString().isBlank()) {
      sections.add(new Page.Section(heading, parent, text.toString().strip()));
    }
  }

  private static String first(Map<String, List<String>> data, String key) {
    List<String> values = data.get(key);
    if (values == null || values.isEmpty() || values.get(0).isBlank()) {
      return null;
    }
    String value = values.get(0).strip();
    if (value.length() >= 2 && (value.startsWith("\"") && value.endsWith("\"")
        || value.startsWith("'") && value.endsWith("'"))) {
      value = value.substring(1, value.length() - 1);
    }
    return value;
  }
}
