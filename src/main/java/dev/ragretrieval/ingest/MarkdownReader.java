package dev.ragretrieval.ingest;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.commonmark.ext.front.matter.YamlFrontMatterBlock;
import org.commonmark.ext.front.matter.YamlFrontMatterExtension;
import org.commonmark.ext.front.matter.YamlFrontMatterVisitor;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TableCell;
import org.commonmark.ext.gfm.tables.TableRow;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.BlockQuote;
import org.commonmark.node.Code;
import org.commonmark.node.CustomNode;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.Heading;
import org.commonmark.node.HardLineBreak;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.HtmlInline;
import org.commonmark.node.Image;
import org.commonmark.node.IndentedCodeBlock;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.SoftLineBreak;
import org.commonmark.node.Text;
import org.commonmark.node.ThematicBreak;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.NodeRenderer;
import org.commonmark.renderer.text.TextContentNodeRendererContext;
import org.commonmark.renderer.text.TextContentRenderer;
import org.commonmark.renderer.text.TextContentWriter;
import org.jsoup.Jsoup;

/**
 * Reads one Markdown or MDX page (Docusaurus style) into a {@link Page}: the front-matter title,
 * the module folder as chapter, {@code ##}/{@code ###} headings as sections. MDX noise (import and
 * export statements, JSX component tags and comments, also over several lines, admonition fences)
 * is removed (an admonition's title stays, as a paragraph); code blocks stay as text. MkDocs'
 * boxes ({@code !!! note "Title"}, their body indented below) and GitHub alerts ({@code > [!TIP]})
 * read the same way, and a table row by row, as the built page reads. The other generators' own
 * syntax reads as their sites show it: MkDocs' content tabs, MyST's directives and roles (Jupyter
 * Book, Sphinx), Quarto's callouts and cells, Liquid tags and Hugo's shortcodes, attribute lists,
 * Hugo's TOML front matter; a notebook ({@code .ipynb}) reads as its cells ({@link Notebook}).
 */
public final class MarkdownReader {

  private static final List<org.commonmark.Extension> EXTENSIONS =
      List.of(YamlFrontMatterExtension.create(), TablesExtension.create());
  private static final Parser PARSER = Parser.builder().extensions(EXTENSIONS).build();
  private static final TextContentRenderer TEXT = TextContentRenderer.builder().extensions(EXTENSIONS)
      .nodeRendererFactory(CodeLines::new).build();

  /**
   * Markdown and MDX, Quarto's and R Markdown's pages (Markdown with executable code cells),
   * Jupyter notebooks ({@link Notebook}), reStructuredText ({@link RstReader}) and AsciiDoc ({@link AdocReader}).
   */
  private static final Pattern EXTENSION = Pattern.compile("(?i)\\.(mdx?|markdown|qmd|rmd|ipynb|rst|adoc|asciidoc)$");
  private static final Pattern ASCIIDOC = Pattern.compile("(?i)\\.(adoc|asciidoc)$");
  private static final Pattern NOTEBOOK = Pattern.compile("(?i)\\.ipynb$");
  private static final Pattern RESTRUCTURED_TEXT = Pattern.compile("(?i)\\.rst$");
  /** What a page's name ends with, taken off for its id: the page suffixes, and .txt (a Sphinx source_suffix). */
  private static final Pattern PAGE_SUFFIX = Pattern.compile("(?i)\\.(mdx?|markdown|qmd|rmd|ipynb|rst|adoc|asciidoc|txt)$");
  /**
   * A code fence's line: its marks, then what follows them. MyST (Jupyter Book, Sphinx) also
   * fences a directive with colons, {@code :::{note}}, and closes it with a bare {@code :::}; a
   * bare colon line that closes no such fence, and other colon lines, are Docusaurus admonitions
   * and Pandoc's divs ({@link #ADMONITION}).
   */
  private static final Pattern FENCE =
      Pattern.compile("^[ \\t]*(`{3,}|~{3,}|:{3,}(?=\\{[\\w:-]+}|[ \\t]*$))[ \\t]*(.*?)[ \\t]*$");
  /**
   * A MyST directive after its fence's marks: {@code {note}}, {@code {admonition} Title},
   * {@code {code-cell} python}.
   */
  private static final Pattern DIRECTIVE = Pattern.compile("^\\{([\\w:-]+)}[ \\t]*(.*)$");
  /**
   * MyST directives whose body is text: boxes, tabs, cards, figures (their caption). In a backtick
   * fence any other name is code: {@code ```{python}} is an executable cell in Quarto and R Markdown.
   */
  private static final Set<String> TEXT_DIRECTIVES = Set.of("admonition", "dropdown", "card", "grid", "grid-item",
      "grid-item-card", "tab-set", "tab-item", "tabbed", "sidebar", "topic", "margin", "epigraph", "pull-quote",
      "highlights", "rubric", "glossary", "list-table", "table", "figure", "image", "versionadded", "versionchanged",
      "deprecated", "exercise", "solution", "proof", "prf:theorem", "prf:definition", "prf:lemma", "prf:example",
      "div", "container", "only");
  /** MyST directives whose body is code or math, kept as written, also in a colon fence. */
  private static final Set<String> CODE_DIRECTIVES = Set.of("code", "code-block", "code-cell", "sourcecode", "math",
      "eval-rst", "prompt");
  /** MyST directives that the site replaces with something generated (a table of contents, an included file). */
  private static final Set<String> GENERATED_DIRECTIVES = Set.of("toctree", "tableofcontents", "contents", "include",
      "literalinclude", "bibliography", "index", "raw", "glue", "embed", "jupyter-execute");
  /** MyST directives whose argument is a title the site shows (the admonitions take theirs from {@link #BOX_TYPES}). */
  private static final Set<String> TITLED_DIRECTIVES = Set.of("admonition", "dropdown", "card", "grid-item-card",
      "tab-item", "sidebar", "topic", "margin", "exercise", "solution", "proof", "prf:theorem", "prf:definition");
  /**
   * A directive's option line at the top of its body: MyST's {@code :class: dropdown}, or a cell's
   * {@code #| echo: false} (Quarto, Jupyter Book), which the page does not show.
   */
  private static final Pattern DIRECTIVE_OPTION = Pattern.compile("^[ \\t]*(?::[\\w-]+:([ \\t].*)?|#\\|.*)$");
  /**
   * An attribute list of Python-Markdown or kramdown after an element: {@code { .grid .cards }},
   * {@code { style="color: red" }}, {@code {: #intro }}; the site turns it into the element's HTML
   * attributes.
   */
  private static final Pattern ATTRIBUTE_LIST;

  static {
    String attribute = "(?:[.#][\\w-]+|[\\w-]+=(?:\"[^\"\\n]*\"|'[^'\\n]*'|[^\\s}]+))";
    ATTRIBUTE_LIST = Pattern.compile("\\{:?[ \\t]*" + attribute + "(?:[ \\t]+" + attribute + ")*[ \\t]*}");
  }

  private static final Pattern ATTRIBUTE_MARK = Pattern.compile("^\\{[ \\t]|[ \\t]}$|[{\\s][.#][\\w-]|=[\"']");

  /** A Rust code fence's info string: {@code rust}, {@code rust,ignore}, {@code rust edition2021}. */
  private static final Pattern RUST = Pattern.compile("(?i)rust(?![\\w-])");
  /**
   * A MyST comment: a line starting with '%'. Read as one only where it starts a block (after a
   * blank line or another comment), so that a paragraph's wrapped "50\n% more" stays text.
   */
  private static final Pattern MYST_COMMENT = Pattern.compile("^%.*$");
  /** A MyST role before its text: {@code {ref}`Setup <setup>`}, {@code {term}`node`}. */
  private static final Pattern ROLE = Pattern.compile("\\{[a-z][\\w:.-]*}(?=`)");
  private static final Pattern MODULE_LINE = Pattern.compile("^\\s*(import|export)\\s.*");
  /** An admonition fence, with the box's title when it has one: {@code :::tip[Title]}, {@code :::tip Title}. */
  private static final Pattern ADMONITION = Pattern.compile("^\\s*:::+\\s*([\\w-]*)\\s*(?:\\[(.*)]|(.*?))\\s*$");
  /**
   * A GitHub alert's marker, the first line of a block quote: {@code > [!TIP]}; with a title after
   * it, an Obsidian callout ({@code > [!tip]- Title}, folded). mdBook, VitePress and Starlight render
   * GitHub's as boxes too.
   */
  private static final Pattern ALERT = Pattern.compile("^(\\s*(?:>[ \\t]*)+)\\[!([\\w-]+)][+-]?[ \\t]*(.*)$");
  /** The boxes whose type a site shows as their title when they have none of their own ("Tip"). */
  private static final Set<String> BOX_TYPES = Set.of("note", "tip", "info", "warning", "danger", "caution",
      "important", "abstract", "summary", "example", "question", "success", "failure", "bug", "quote", "hint",
      "attention", "error", "seealso", "todo");
  /**
   * A Python-Markdown box (MkDocs): {@code !!! note "Title"}, or {@code ??? note} / {@code ???+ note}
   * for one that folds, with more classes allowed before the title; its body is indented by four.
   */
  private static final Pattern MKDOCS_BOX = Pattern.compile("^\\s*(?:!!!|\\?\\?\\?\\+?)[ \\t]*([\\w-]+)(?:[ \\t]+[\\w-]+)*"
      + "(?:[ \\t]+\"([^\"]*)\")?[ \\t]*$");
  /** A content tab of Material for MkDocs ({@code === "Python"}): its label, then its body indented by four. */
  private static final Pattern MKDOCS_TAB = Pattern.compile("^\\s*===[!+]?[ \\t]+\"([^\"]*)\"[ \\t]*$");
  /**
   * A line that only places something the site generates or styles: a table of contents
   * ({@code [TOC]} of Python-Markdown, {@code [[toc]]} of VitePress, {@code {:toc}} of kramdown), a
   * kramdown attribute list ({@code {: .note }}, Jekyll's Just the Docs), a snippet included by
   * MkDocs ({@code --8<-- "abbreviations.md"}), a MyST target ({@code (setup)=}) or cell break
   * ({@code +++}).
   */
  private static final Pattern MARKER_LINE = Pattern.compile("(?i)^\\s*(?:\\[TOC]|\\[\\[toc]]|\\$\\{toc}|\\{:[^}]*}"
      + "|-{1,2}8<-{1,2}(?:[ \\t].*)?|\\([\\w.:-]+\\)=|\\+\\+\\+(?:[ \\t]*\\{.*})?)\\s*$");
  /** A kramdown attribute list at the end of a line of text ({@code Read this first. {: .note }}). */
  private static final Pattern MARKER_TAIL = Pattern.compile("[ \\t]+\\{:[^}\\n]*}[ \\t]*$");
  private static final Pattern LIST_ITEM_LINE = Pattern.compile("^[ \\t]*(?:[*+-]|\\d+[.)])[ \\t]+\\S.*$");
  /**
   * Template tags that the site's generator replaces: Liquid and Jinja ({@code {% include x %}},
   * GitBook's {@code {% hint style="info" %}}) and Hugo's shortcodes ({@code {{< callout >}}},
   * {@code {{% notice %}}}), each with where it ends.
   */
  private static final String[][] TEMPLATE_TAGS = {{"{%", "%}"}, {"{{<", ">}}"}, {"{{%", "%}}"}};
  /** An icon of Material for MkDocs ({@code :material-pencil:}, {@code :octicons-file-16:}): the site shows a glyph. */
  private static final Pattern ICON = Pattern.compile(":(?:material|octicons|fontawesome|simple)-[\\w-]+:[ \\t]?");
  /** Hugo's TOML front matter, between {@code +++} lines. */
  private static final Pattern TOML_FRONT_MATTER =
      Pattern.compile("\\A\\uFEFF?\\+\\+\\+[ \\t]*\\R(.*?)\\R\\+\\+\\+[ \\t]*(\\R|\\z)", Pattern.DOTALL);
  private static final Pattern TOML_KEY = Pattern.compile("^[ \\t]*([A-Za-z0-9_-]+)[ \\t]*=[ \\t]*(.*?)[ \\t]*$");
  /**
   * A JSX element's opening or closing tag: {@code <Tabs}, {@code </TabItem}. Not a fragment's
   * {@code <>}: in prose that is more often text ("angle brackets <> for required inputs").
   */
  private static final Pattern JSX_START = Pattern.compile("</?[A-Z][\\w.]*(?=[\\s/>]|$)", Pattern.MULTILINE);
  /** A JSX attribute the component shows as text: its {@code title} or {@code label}, a string literal. */
  private static final Pattern SHOWN_ATTRIBUTE = Pattern.compile("\\s(title|label)=(?:\"([^\"]*)\"|'([^']*)')");
  private static final Pattern HEADING_ID = Pattern.compile("\\s*\\\\?\\{#[^}\\s]*\\\\?}\\s*$");
  /** What a tag holds outside its braces and strings: names, {@code =}, {@code /} and white space. */
  private static final CharMatcher ATTRIBUTE_CHARS = c -> Character.isLetterOrDigit(c) || Character.isWhitespace(c)
      || "-_:.=/".indexOf(c) >= 0;
  private static final Pattern FRONT_MATTER = Pattern.compile("\\A\\uFEFF?---[ \\t]*\\R(.*?)\\R---[ \\t]*(\\R|\\z)", Pattern.DOTALL);
  private static final Pattern DRAFT = Pattern.compile("(?m)^draft:[ \\t]*(true|True|TRUE)[ \\t]*(#.*)?$");
  private static final Pattern DIV_TITLE = Pattern.compile("\\btitle=\"([^\"]*)\"");
  private static final Pattern CALLOUT = Pattern.compile("\\.callout-([\\w]+)");
  private static final Pattern LINE_BREAK_TAG = Pattern.compile("(?i)<br\\s*/?>");
  private static final Pattern BLANK_LINES = Pattern.compile("(?m)^[ \\t]+$");

  private MarkdownReader() {}

  private interface CharMatcher {
    boolean matches(char c);
  }

  /**
   * @param relativePath the page's path under the ingested root, with '/' separators
   * @param chapterLabel the module folder's {@code _category_.json} label, or null
   * @param baseUrl the published folder's address (the site, for a folder holding docs/): source_url
   *     is then the page's address there ({@link DocusaurusPath}); null for the bare path
   */
  public static Page read(String relativePath, String markdown, String chapterLabel, String baseUrl) {
    return read(relativePath, markdown, chapterLabel, baseUrl, MarkdownFolder.Layout.PLAIN);
  }

  /**
   * As {@link #read(String, String, String, String)}, for a page of a site generator's repository:
   * the chapter is the first folder below the layout's pages root ("src/" in an mdBook's), and with
   * {@code baseUrl} the page's address follows that generator's rules.
   */
  public static Page read(String relativePath, String markdown, String chapterLabel, String baseUrl,
      MarkdownFolder.Layout layout) {
    String documentId = withoutExtension(relativePath);
    String source = NOTEBOOK.matcher(relativePath).find() ? Notebook.markdown(markdown)
        : isRestructuredText(relativePath, layout) ? RstReader.markdown(markdown)
        : isAsciiDoc(relativePath) ? AdocReader.markdown(markdown)
        // a byte order mark (an editor on Windows) would hide the front matter and make its lines a heading
        : markdown.startsWith("\uFEFF") ? markdown.substring(1) : markdown;
    Node document = PARSER.parse(stripMdx(yamlFrontMatter(source)));
    unquoteInlineCode(document);
    dropInlineTags(document);
    unwrapBlockQuotes(document);
    Map<Node, Integer> linkChars = linkChars(document);
    unwrapLinks(document);
    joinWrappedLines(document);

    YamlFrontMatterVisitor frontMatter = new YamlFrontMatterVisitor();
    document.accept(frontMatter);
    Map<String, List<String>> data = frontMatter.getData();
    String title = first(data, "title");
    String sourceUrl = documentId;
    if (baseUrl != null && !baseUrl.isBlank()) {
      DocusaurusSite site = layout.docusaurus();
      // the page's front matter overrides the site's numberPrefixParser setting
      String prefixes = first(data, "parse_number_prefixes");
      String path = site != null
          ? DocusaurusPath.of(site, relativePath, first(data, "slug"), first(data, "id"),
              prefixes == null ? site.numberPrefixes() : !"false".equalsIgnoreCase(prefixes))
          : SitePath.of(layout, relativePath, first(data, "slug"));
      sourceUrl = baseUrl.replaceAll("/+$", "") + "/" + path;
    }

    List<Page.Section> sections = new ArrayList<>();
    String heading = null;
    String h2 = null;
    String parent = null; // the h2 above an h3 section
    StringBuilder text = new StringBuilder();
    int links = 0; // the section's characters of link text
    for (Node node = document.getFirstChild(); node != null; node = node.getNext()) {
      if (node instanceof YamlFrontMatterBlock || node instanceof ThematicBreak) {
        continue; // a horizontal rule is no words (the text renderer would write "***")
      }
      if (node instanceof Heading h && h.getLevel() <= 3) {
        // "## Kinematics {#kinematics}": the explicit anchor id is markup, not the heading's words
        String headingText = HEADING_ID.matcher(TEXT.render(h)).replaceFirst("").strip();
        if (h.getLevel() == 1) {
          title = title == null ? headingText : title;
          continue;
        }
        addSection(sections, heading, parent, text, links);
        links = 0;
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
      links += linkChars.getOrDefault(node, 0);
    }
    addSection(sections, heading, parent, text, links);
    return new Page(sourceUrl, documentId, title, chapterOf(documentId, layout.pagesRootOf(relativePath)), chapterLabel,
        "markdown", sections);
  }

  /** A page's path without its extension: .md, .mdx, .markdown (MkDocs, Jekyll, Hugo), .qmd, .Rmd, .ipynb or .rst. */
  static String withoutExtension(String path) {
    return PAGE_SUFFIX.matcher(path).replaceFirst("");
  }

  /** Whether the page is AsciiDoc (.adoc, .asciidoc: Asciidoctor's and Antora's sources). */
  static boolean isAsciiDoc(String path) {
    return ASCIIDOC.matcher(path).find();
  }

  /** Whether the page is reStructuredText: a .rst file, or a .txt one in a Sphinx project (read only if it says so). */
  static boolean isRestructuredText(String path, MarkdownFolder.Layout layout) {
    return RESTRUCTURED_TEXT.matcher(path).find()
        || layout.generator() == MarkdownFolder.Generator.SPHINX && path.endsWith(".txt");
  }

  /**
   * Whether a file name is a page's: Markdown (.md, .mdx, .markdown, .qmd (Quarto) or .Rmd), a
   * Jupyter notebook's (.ipynb) or reStructuredText (.rst), in any case.
   */
  public static boolean isMarkdownFile(String name) {
    return EXTENSION.matcher(name).find();
  }

  /** The page without its front matter (an imported partial's, whose title is not the page's). */
  static String withoutFrontMatter(String markdown) {
    return FRONT_MATTER.matcher(markdown).replaceFirst("");
  }

  /** Whether the page's front matter says {@code draft: true}: Docusaurus leaves it out of the site it builds. */
  public static boolean isDraft(String markdown) {
    Matcher front = FRONT_MATTER.matcher(yamlFrontMatter(markdown));
    return front.lookingAt() && DRAFT.matcher(front.group(1)).find();
  }

  /**
   * Hugo's TOML front matter as the YAML front matter that the rest of the reader knows: its
   * top-level {@code key = value} lines (title, slug, draft) read as {@code key: value}; the keys
   * of its tables ({@code [params]}) and multi-line values are left out. Other pages are returned
   * as they are.
   */
  static String yamlFrontMatter(String markdown) {
    Matcher toml = TOML_FRONT_MATTER.matcher(markdown);
    if (!toml.lookingAt()) {
      return markdown;
    }
    StringBuilder yaml = new StringBuilder("---\n");
    for (String line : toml.group(1).split("\\R")) {
      if (line.strip().startsWith("[")) {
        break; // a table: the keys below are its own, not the page's
      }
      Matcher key = TOML_KEY.matcher(line);
      if (key.matches() && !key.group(2).startsWith("\"\"\"") && !key.group(2).startsWith("'''")) {
        yaml.append(key.group(1)).append(": ").append(key.group(2)).append('\n');
      }
    }
    return yaml.append("---\n").append(markdown, toml.end(), markdown.length()).toString();
  }

  /** The module folder: the first folder of the path below {@code pagesRoot} ("docs/"), or of the whole path. */
  static String chapterOf(String documentId, String pagesRoot) {
    String below = !pagesRoot.isEmpty() && documentId.startsWith(pagesRoot)
        ? documentId.substring(pagesRoot.length()) : documentId;
    int slash = below.indexOf('/');
    return slash <= 0 ? null : below.substring(0, slash);
  }

  /** Drops MDX-only lines outside code fences; code is left exactly as written. */
  static String stripMdx(String markdown) {
    StringBuilder out = new StringBuilder(markdown.length());
    StringBuilder prose = new StringBuilder(); // the lines since the last fence, cleaned together
    Deque<Fence> fences = new ArrayDeque<>(); // the fences this line is in, innermost first
    boolean options = false; // at the top of a directive's body, where its option lines go
    boolean yamlOptions = false; // in a directive's options written as YAML between --- lines
    int openBrackets = 0; // of an import or export statement that goes on over the next lines
    Deque<Integer> boxes = new ArrayDeque<>(); // the body indents of the MkDocs boxes around this line, innermost first
    String[] lines = markdown.split("\\R", -1);
    for (int at = 0; at < lines.length; at++) {
      String raw = lines[at];
      String line = raw;
      int dedent = 0;
      if (!boxes.isEmpty() && !raw.isBlank()) {
        // a box's body is indented below its marker: read without that indent, so it is not a code block
        String expanded = raw.replaceFirst("^\\t", "    ");
        while (!boxes.isEmpty() && indent(expanded, 0) < boxes.peek()) {
          boxes.pop();
        }
        if (!boxes.isEmpty()) {
          dedent = boxes.peek();
          line = expanded.substring(dedent);
        }
      }
      if (openBrackets > 0 && !line.isBlank()) {
        openBrackets += brackets(line);
        continue;
      }
      openBrackets = 0; // a statement never goes on past a blank line
      Fence inside = fences.peek();
      boolean inCode = inside != null && inside.kind != Fence.Kind.PROSE;
      if (yamlOptions) {
        yamlOptions = !line.strip().equals("---");
        continue;
      }
      if (options) {
        yamlOptions = line.strip().equals("---");
        options = DIRECTIVE_OPTION.matcher(line).matches();
        if (options || yamlOptions) {
          continue;
        }
      }
      Matcher fence = FENCE.matcher(line);
      boolean bareColons = fence.matches() && fence.group(1).charAt(0) == ':' && fence.group(2).isEmpty();
      if (fence.matches() && (!bareColons || inside != null && inside.closedBy(fence.group(1), ""))) {
        String marks = fence.group(1);
        if (inside != null && inside.closedBy(marks, fence.group(2))) {
          fences.pop();
          if (inside.kind == Fence.Kind.CODE) {
            out.append(inside.closing).append('\n');
          }
          continue;
        }
        if (inside != null && inCode) {
          if (inside.kind == Fence.Kind.CODE) {
            out.append(line).append('\n');
          }
          continue;
        }
        Matcher directive = DIRECTIVE.matcher(fence.group(2));
        String name = directive.matches() ? directive.group(1).toLowerCase(Locale.ROOT) : null;
        boolean textual = name != null && (marks.charAt(0) == ':' ? !CODE_DIRECTIVES.contains(name)
            : TEXT_DIRECTIVES.contains(name) || BOX_TYPES.contains(name) || GENERATED_DIRECTIVES.contains(name));
        if (textual) {
          // a MyST directive: its body is read as text (a box), or not at all (generated there)
          boolean generated = GENERATED_DIRECTIVES.contains(name);
          fences.push(new Fence(marks, generated ? Fence.Kind.GENERATED : Fence.Kind.PROSE, null, false));
          String title = !directive.group(2).isBlank() && TITLED_DIRECTIVES.contains(name)
              ? directive.group(2).strip() : typeTitle(name);
          if (!generated && title != null) {
            prose.append(title).append("\n\n");
          }
          options = true;
          continue;
        }
        out.append(withoutJsx(prose));
        prose.setLength(0);
        // a colon fence is no fence to the Markdown parser: its code is written between backticks
        String indent = line.substring(0, indent(line, 0));
        String opening = marks.charAt(0) == ':' ? indent + "`".repeat(marks.length()) : line;
        String closing = marks.charAt(0) == ':' ? indent + "`".repeat(marks.length()) : indent + marks;
        fences.push(new Fence(marks, Fence.Kind.CODE, closing, RUST.matcher(fence.group(2)).lookingAt()));
        options = name != null;
        out.append(opening).append('\n');
        continue;
      }
      Matcher box = inCode ? null : MKDOCS_BOX.matcher(line);
      Matcher tab = inCode ? null : MKDOCS_TAB.matcher(line);
      if (inCode) {
        if (inside.kind == Fence.Kind.CODE) {
          out.append(inside.rust ? shownRust(line) : line + "\n");
        }
      } else if (MYST_COMMENT.matcher(line).matches() && (at == 0 || lines[at - 1].isBlank()
          || MYST_COMMENT.matcher(lines[at - 1]).matches())) {
        continue; // a MyST comment, which the site does not show
      } else if (box.matches() && bodyFollows(lines, at, dedent + indent(line, 0) + 4)) {
        boxes.push(dedent + indent(line, 0) + 4);
        // the box's title, a paragraph as the site shows it; "" asks for none
        String title = box.group(2) != null ? box.group(2).strip() : typeTitle(box.group(1));
        if (title != null && !title.isEmpty()) {
          prose.append(title).append("\n\n");
        }
      } else if (tab.matches() && bodyFollows(lines, at, dedent + indent(line, 0) + 4)) {
        boxes.push(dedent + indent(line, 0) + 4);
        if (!tab.group(1).isBlank()) {
          prose.append(tab.group(1).strip()).append("\n\n"); // the tab's label, as the site shows it
        }
      } else if (MARKER_LINE.matcher(line).matches()) {
        if (line.strip().toLowerCase(Locale.ROOT).replace(" ", "").equals("{:toc}")) {
          dropLastListItem(prose); // kramdown puts the contents in place of the list item above ("1. TOC")
        }
      } else if (MODULE_LINE.matcher(line).matches()) {
        openBrackets = brackets(line);
      } else {
        Matcher admonition = ADMONITION.matcher(line);
        Matcher alert = ALERT.matcher(line);
        if (alert.matches()) {
          // the box's title, a paragraph of its quote as the site shows it ("Tip"), not the marker
          String title = alert.group(3).isBlank() ? typeTitle(alert.group(2)) : alert.group(3).strip();
          String quote = alert.group(1).stripTrailing();
          prose.append(title == null ? "" : quote + " " + title + "\n").append(quote).append('\n');
        } else if (!admonition.matches()) {
          prose.append(MARKER_TAIL.matcher(line).replaceFirst("")).append('\n');
        } else if (title(admonition) != null) {
          prose.append(title(admonition)).append("\n\n"); // the box's title, a paragraph as the site shows it
        }
      }
    }
    return out.append(withoutJsx(prose)).toString();
  }

  /**
   * A line of Rust code as mdBook and rustdoc show it, with its line end: none for a hidden line
   * ({@code # use std::io;}, a lone {@code #}), one '#' less for an escaped {@code ##}.
   */
  private static String shownRust(String line) {
    String code = line.stripLeading();
    if (code.equals("#") || code.startsWith("# ")) {
      return "";
    }
    return (code.startsWith("##") ? line.replaceFirst("##", "#") : line) + "\n";
  }

  /**
   * An open fence: its marks ({@code ```}, {@code ~~~~}, {@code :::}), what it holds, and for code
   * the line that closes it in the text given to the parser, and whether it is Rust (whose hidden
   * lines the page does not show).
   */
  private record Fence(String marks, Kind kind, String closing, boolean rust) {

    enum Kind { CODE, PROSE, GENERATED }

    /** A fence closes with a line of the same mark, at least as long, and nothing after it. */
    boolean closedBy(String lineMarks, String after) {
      return lineMarks.charAt(0) == marks.charAt(0) && lineMarks.length() >= marks.length() && after.isEmpty();
    }
  }

  /** Removes the last line of {@code prose} when it is a list item. */
  private static void dropLastListItem(StringBuilder prose) {
    int end = prose.length() - 1; // the last line's newline
    if (end < 0) {
      return;
    }
    int start = prose.lastIndexOf("\n", end - 1) + 1;
    if (LIST_ITEM_LINE.matcher(prose.substring(start, end)).matches()) {
      prose.setLength(start);
    }
  }

  /**
   * Removes JSX tags and MDX comments from text outside code fences, also where they span lines
   * ({@code <Tabs values={[ ... ]}>} written over several): a tag ends at the first {@code >}
   * outside its braces and quotes. Inline code stays as written ({@code `List<String>`}); a
   * {@code <} that does not start a tag closed before the next blank line is text.
   */
  static String withoutJsx(CharSequence prose) {
    String text = prose.toString();
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      int skipTo = -1;
      if (c == '`') {
        int close = text.indexOf('`', i + 1);
        int eol = text.indexOf('\n', i);
        if (close > 0 && (eol < 0 || close < eol)) {
          out.append(text, i, close + 1);
          i = close + 1;
          continue;
        }
      } else if (c == '{' && text.startsWith("{/*", i)) {
        int close = text.indexOf("*/}", i + 3);
        skipTo = close < 0 ? -1 : close + 3;
      } else if (c == '{' && ROLE.matcher(text).region(i, text.length()).lookingAt()) {
        // a MyST role shows its text, without a target in angle brackets: {ref}`Setup <setup>` is "Setup"
        int open = text.indexOf('`', i);
        int close = text.indexOf('`', open + 1);
        int eol = text.indexOf('\n', open);
        if (close > 0 && (eol < 0 || close < eol)) {
          String shown = text.substring(open + 1, close);
          String label = shown.replaceFirst("\\s*<[^<>]*>$", "");
          out.append('`').append(label.isBlank() ? shown : label).append('`');
          i = close + 1;
          continue;
        }
      } else if (c == '{') {
        Matcher attributes = ATTRIBUTE_LIST.matcher(text).region(i, text.length());
        skipTo = attributes.lookingAt() && isAttributeList(attributes.group()) ? attributes.end()
            : templateTagEnd(text, i);
        if (skipTo > 0 && out.length() > 0 && out.charAt(out.length() - 1) == ' '
            && (skipTo >= text.length() || " \t\n.,;:!?)".indexOf(text.charAt(skipTo)) >= 0)) {
          out.setLength(out.length() - 1); // "the team { .heart } and", "friends { width=300 };": no space left over
        }
      } else if (c == ':') {
        Matcher icon = ICON.matcher(text).region(i, text.length());
        skipTo = icon.lookingAt() ? icon.end() : -1;
      } else if (c == '<' && JSX_START.matcher(text).region(i, text.length()).lookingAt()) {
        int end = tagEnd(text, i);
        skipTo = end < 0 ? -1 : end + 1;
        if (end > 0) {
          // a component's title or label is shown on the page: <TabItem label="Python">, <Details title="Why?">
          Matcher shown = SHOWN_ATTRIBUTE.matcher(text).region(i, end);
          while (shown.find()) {
            out.append("\n\n").append(shown.group(2) != null ? shown.group(2) : shown.group(3)).append("\n\n");
          }
        }
      }
      if (skipTo > 0) {
        i = skipTo;
      } else {
        out.append(c);
        i++;
      }
    }
    // a line left with only the indentation of a removed tag is a blank line
    return BLANK_LINES.matcher(out).replaceAll("");
  }

  /**
   * Whether braces that look like attributes are an attribute list: kramdown's colon, spaces inside
   * the braces ({@code { width=300 }}), a class or id, or a quoted value; {@code {k=0}} in a formula
   * is text.
   */
  private static boolean isAttributeList(String braces) {
    return braces.startsWith("{:") || ATTRIBUTE_MARK.matcher(braces).find();
  }

  /**
   * Where a template tag opened at {@code start} ends ({@link #TEMPLATE_TAGS}), or -1 when none
   * opens there or it does not close before a blank line.
   */
  private static int templateTagEnd(String text, int start) {
    for (String[] tag : TEMPLATE_TAGS) {
      if (text.startsWith(tag[0], start)) {
        int close = text.indexOf(tag[1], start + tag[0].length());
        int blank = text.indexOf("\n\n", start);
        return close < 0 || blank >= 0 && blank < close ? -1 : close + tag[1].length();
      }
    }
    return -1;
  }

  /**
   * The index of the {@code >} that closes the tag opened at {@code start}, or -1 when none does
   * before a blank line or where a tag cannot go on (prose: "<Enter to go on; then"). A quote opens
   * a string only where JSX has one (an attribute's value after {@code =}, or inside braces), so an
   * apostrophe in prose is no string.
   */
  private static int tagEnd(String text, int start) {
    int braces = 0;
    char quote = 0;
    char last = 0; // the last character outside strings that is not white space
    for (int i = start + 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n' && text.startsWith("\n", i + 1 + indent(text, i + 1))) {
        return -1; // a blank line: this was no tag
      }
      if (quote != 0) {
        quote = c == quote ? 0 : quote;
        continue;
      }
      if ((c == '"' || c == '\'' || c == '`') && (braces > 0 || last == '=')) {
        quote = c;
      } else if (c == '{') {
        braces++;
      } else if (c == '}') {
        braces--;
      } else if (c == '>' && braces <= 0) {
        return i;
      } else if (braces <= 0 && !ATTRIBUTE_CHARS.matches(c)) {
        return -1; // "<Enter to go on; then" is prose: a tag holds only names, = and values
      }
      if (!Character.isWhitespace(c)) {
        last = c;
      }
    }
    return -1;
  }

  /** An admonition fence's title: its own, else (on an opening fence) its type as the site shows it ("Tip"). */
  private static String title(Matcher admonition) {
    String title = admonition.group(2) != null ? admonition.group(2) : admonition.group(3);
    if (title != null && title.startsWith("{") && title.endsWith("}")) {
      return divTitle(title);
    }
    return title != null && !title.isBlank() ? title.strip() : typeTitle(admonition.group(1));
  }

  /**
   * A Pandoc div's title ({@code ::: {.callout-tip title="Before you start"}}, Quarto): its own,
   * else a callout's type ("Tip"); a div with only classes has none.
   */
  private static String divTitle(String attributes) {
    Matcher own = DIV_TITLE.matcher(attributes);
    if (own.find()) {
      return own.group(1).strip();
    }
    Matcher callout = CALLOUT.matcher(attributes);
    return callout.find() ? typeTitle(callout.group(1)) : null;
  }

  /** A box type as its title ("tip" is "Tip"); null for no type or one no site titles. */
  private static String typeTitle(String type) {
    if (type == null || !BOX_TYPES.contains(type.toLowerCase(Locale.ROOT))) {
      return null;
    }
    return Character.toUpperCase(type.charAt(0)) + type.substring(1).toLowerCase(Locale.ROOT);
  }

  /** Whether the next line with text after {@code at} is indented by {@code columns} or more: a box's body. */
  private static boolean bodyFollows(String[] lines, int at, int columns) {
    for (int next = at + 1; next < lines.length; next++) {
      if (!lines[next].isBlank()) {
        return indent(lines[next].replaceFirst("^\\t", "    "), 0) >= columns;
      }
    }
    return false;
  }

  /** Opening minus closing brackets: above 0 while a statement such as {@code import {} goes on. */
  private static int brackets(String line) {
    int open = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      open += c == '{' || c == '(' || c == '[' ? 1 : c == '}' || c == ')' || c == ']' ? -1 : 0;
    }
    return open;
  }

  private static int indent(String text, int from) {
    int i = from;
    while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
      i++;
    }
    return i - from;
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

  /**
   * Inline HTML tags ({@code <small>}, {@code <kbd>}, {@code <span class="...">}, comments) are
   * markup; the words between them are text, as on the built page. A {@code <br>} is a line break.
   */
  private static void dropInlineTags(Node document) {
    List<HtmlInline> tags = new ArrayList<>();
    document.accept(new AbstractVisitor() {
      @Override
      public void visit(HtmlInline tag) {
        tags.add(tag);
      }
    });
    for (HtmlInline tag : tags) {
      if (LINE_BREAK_TAG.matcher(tag.getLiteral()).matches()) {
        tag.insertBefore(new HardLineBreak());
      }
      tag.unlink();
    }
  }

  /** The text renderer puts a block quote in «»; retrieval wants the author's words, so its blocks stand alone. */
  private static void unwrapBlockQuotes(Node document) {
    List<BlockQuote> quotes = new ArrayList<>();
    document.accept(new AbstractVisitor() {
      @Override
      public void visit(BlockQuote quote) {
        quotes.add(quote);
        visitChildren(quote);
      }
    });
    quotes.forEach(MarkdownReader::unwrap);
  }

  /**
   * The text renderer writes a link as {@code "words" (address)} and an image the same way; a reader
   * sees the words (or the image's alt text), and an address such as {@code ./nav2.md} is noise to
   * the embedding and to BM25, so only the words stay, as the HTML reader keeps them.
   */
  private static void unwrapLinks(Node document) {
    List<Node> links = new ArrayList<>();
    document.accept(new AbstractVisitor() {
      @Override
      public void visit(Link link) {
        links.add(link);
        visitChildren(link);
      }

      @Override
      public void visit(Image image) {
        links.add(image);
        visitChildren(image);
      }
    });
    for (Node link : links) {
      if (link instanceof Image image && !HtmlReader.isFigureWords(inlineText(image))) {
        image.unlink(); // an alt text that is the image's file name says nothing, as in the HTML reader
      } else {
        unwrap(link);
      }
    }
  }

  /** Puts {@code node}'s children where it stood, without it. */
  private static void unwrap(Node node) {
    Node child = node.getFirstChild();
    while (child != null) {
      Node next = child.getNext();
      node.insertBefore(child);
      child = next;
    }
    node.unlink();
  }

  /**
   * A line break inside a paragraph of the source (text wrapped at 80 columns) is a space, as a
   * browser shows it and as the HTML reader reads the built page; a hard break ("  " or "\\" at the
   * line's end) stays a new line.
   */
  private static void joinWrappedLines(Node document) {
    List<SoftLineBreak> breaks = new ArrayList<>();
    document.accept(new AbstractVisitor() {
      @Override
      public void visit(SoftLineBreak lineBreak) {
        breaks.add(lineBreak);
      }
    });
    for (SoftLineBreak lineBreak : breaks) {
      lineBreak.insertBefore(new Text(" "));
      lineBreak.unlink();
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
    if (node instanceof TableBlock table) {
      return tableText(table);
    }
    // a blank line of a code block in a list item gets the item's indent, and nothing after it
    return BLANK_LINES.matcher(TEXT.render(node).strip()).replaceAll("");
  }

  /**
   * A GFM table as its built page reads ({@link HtmlReader}): a row a paragraph, its cells words
   * apart. Not the source's pipes, nor the {@code |---|} line under the header.
   */
  private static String tableText(TableBlock table) {
    List<String> rows = new ArrayList<>();
    table.accept(new AbstractVisitor() {
      @Override
      public void visit(CustomNode node) {
        if (node instanceof TableRow row) {
          StringBuilder line = new StringBuilder();
          for (Node cell = row.getFirstChild(); cell != null; cell = cell.getNext()) {
            String words = cell instanceof TableCell ? inlineText(cell) : "";
            if (!words.isEmpty()) {
              line.append(line.length() > 0 ? " " : "").append(words);
            }
          }
          if (line.length() > 0) {
            rows.add(line.toString());
          }
        } else {
          visitChildren(node);
        }
      }
    });
    return String.join("\n\n", rows);
  }

  /**
   * A node's words, its inline content only: a table cell without the separator the text renderer
   * puts after it, an image without its address.
   */
  private static String inlineText(Node node) {
    StringBuilder words = new StringBuilder();
    for (Node inline = node.getFirstChild(); inline != null; inline = inline.getNext()) {
      words.append(TEXT.render(inline));
    }
    return words.toString().strip();
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

  /**
   * Adds the section unless it is blank or navigation: (almost) only links, such as a list of the
   * book's pages, by the HTML reader's rule ({@code links}: its link text, spaces not counted).
   */
  private static void addSection(List<Page.Section> sections, String heading, String parent, StringBuilder text,
      int links) {
    String body = text.toString().strip();
    long letters = body.chars().filter(c -> !Character.isWhitespace(c)).count();
    if (!body.isEmpty() && !(letters > 0 && links >= HtmlReader.LINK_SHARE * letters)) {
      sections.add(new Page.Section(heading, parent, body));
    }
  }

  /** Each top-level block's characters of link text (spaces not counted), read before the links are unwrapped. */
  private static Map<Node, Integer> linkChars(Node document) {
    Map<Node, Integer> chars = new java.util.IdentityHashMap<>();
    for (Node block = document.getFirstChild(); block != null; block = block.getNext()) {
      Node top = block;
      block.accept(new AbstractVisitor() {
        @Override
        public void visit(Text words) {
          // only the words a link shows count (the renderer would add its address)
          for (Node up = words.getParent(); up != null && up != top.getParent(); up = up.getParent()) {
            if (up instanceof Link) {
              int count = (int) words.getLiteral().chars().filter(c -> !Character.isWhitespace(c)).count();
              chars.merge(top, count, Integer::sum);
              return;
            }
          }
        }
      });
    }
    return chars;
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

  /**
   * A code block written line by line, so that inside a list item every line gets the item's
   * indent: the text renderer writes the block in one piece, and only its first line was indented,
   * which broke the relative indentation of code (Python, YAML) in numbered steps.
   */
  private static final class CodeLines implements NodeRenderer {

    private final TextContentWriter writer;

    CodeLines(TextContentNodeRendererContext context) {
      this.writer = context.getWriter();
    }

    @Override
    public Set<Class<? extends Node>> getNodeTypes() {
      return Set.of(FencedCodeBlock.class, IndentedCodeBlock.class);
    }

    @Override
    public void render(Node node) {
      String literal = node instanceof FencedCodeBlock fenced
          ? fenced.getLiteral() : ((IndentedCodeBlock) node).getLiteral();
      String[] lines = literal.stripTrailing().split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        if (i > 0) {
          writer.line();
        }
        writer.write(lines[i]);
      }
      writer.block();
    }
  }
}
