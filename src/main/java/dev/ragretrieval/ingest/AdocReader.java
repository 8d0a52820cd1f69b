package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jsoup.Jsoup;

/**
 * AsciiDoc pages (Asciidoctor's and Antora's sources) read as their built pages show them: a page
 * is turned into the Markdown {@link MarkdownReader} reads. What the conversion covers: the
 * document title and section titles ({@code =} to {@code ======}), paragraphs, lists (ordered,
 * unordered, description lists), admonitions (a paragraph's {@code NOTE:} or a {@code [TIP]}
 * block) with their type as title, listing, literal and source blocks as code in their language,
 * example, sidebar, quote and open blocks as text, tables as rows of words, block titles
 * ({@code .Title}) as a paragraph, attributes ({@code :name: value}, then {@code {name}}) replaced,
 * and inline markup: a link shows its words, a cross reference its text (without one, the title of
 * the section it names: {@link AdocReferences}), {@code kbd:[Ctrl+C]} its keys. Comments, attribute
 * entries, anchors, conditionals' markers and images are no text. Includes are read in place before
 * ({@link AdocIncludes}).
 */
final class AdocReader {

  static final Pattern SECTION = Pattern.compile("^(={1,6}|#{1,6})[ \\t]+(\\S.*?)[ \\t]*(?:[ \\t]=+)?$");
  static final Pattern ATTRIBUTE_ENTRY = Pattern.compile("^:(!?[\\w][\\w-]*!?):(?:[ \\t]+(.*))?$");
  static final Pattern BLOCK_ATTRIBUTES = Pattern.compile("^\\[(.*)]$");
  private static final Pattern BLOCK_TITLE = Pattern.compile("^\\.([^.\\s].*)$");
  private static final Pattern DELIMITER = Pattern.compile("^(-{4,}|\\.{4,}|={4,}|\\*{4,}|_{4,}|/{4,}|\\+{4,}|--|```.*|\\|={3,}|,={3,}|!={3,})$");
  private static final Pattern ADMONITION = Pattern.compile("^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \\t]+(.*)$");
  private static final Pattern LIST_ITEM = Pattern.compile("^[ \\t]*(\\*{1,5}|-|\\.{1,5}|\\d+\\.)[ \\t]+(.*)$");
  private static final Pattern DESCRIPTION = Pattern.compile("^(.+?)(:{2,4}|;;)(?:[ \\t]+(.*))?$");
  private static final Pattern DIRECTIVE = Pattern.compile("^(?:ifdef|ifndef|ifeval|endif|include|toc)::.*\\[.*]$");
  private static final Pattern BLOCK_MACRO = Pattern.compile("^(?:image|video|audio)::.*\\[.*]$");
  private static final Set<String> ADMONITIONS = Set.of("note", "tip", "important", "warning", "caution");

  private static final Pattern ATTRIBUTE_REFERENCE = Pattern.compile("\\{([\\w][\\w-]*)}");
  private static final Pattern BARE_URL_MACRO = Pattern.compile("\\b((?:https?|ftp)://[^\\s\\[]+)\\[([^\\]]*)]");
  private static final Pattern LINK_MACRO = Pattern.compile("\\b(?:link|mailto|xref):([^\\s\\[]+)\\[([^\\]]*)]");
  private static final Pattern CROSS_REFERENCE = Pattern.compile("<<([^,>]+)(?:,\\s*([^>]*))?>>");
  private static final Pattern UI_MACRO = Pattern.compile("\\b(?:kbd|btn|pass|footnote|indexterm2?|icon|image):(?:[^\\s\\[]*)?\\[([^\\]]*)]");
  private static final Pattern MENU_MACRO = Pattern.compile("\\bmenu:([^\\[\\s]+)\\[([^\\]]*)]");
  private static final Pattern INLINE_ANCHOR = Pattern.compile("\\[\\[[^\\]]*]]|\\[#[\\w-]+]");
  private static final Pattern INDEX_TERM = Pattern.compile("\\(\\(\\(.*?\\)\\)\\)|\\(\\((.*?)\\)\\)");
  private static final Pattern PASS_PLUS = Pattern.compile("\\+\\+\\+(.+?)\\+\\+\\+|\\+\\+(.+?)\\+\\+|(?<![\\w+])\\+([^+\\s][^+]*?)\\+(?![\\w+])");
  private static final Pattern HIGHLIGHT = Pattern.compile("(?<![\\w#])#([^#\\s][^#]*?)#(?![\\w#])");

  private AdocReader() {}

  /** The page as the Markdown {@link MarkdownReader} reads: its title an h1, its sections h2 and below. */
  static String markdown(String adoc) {
    Map<String, String> attributes = builtInAttributes();
    List<String> lines = new ArrayList<>(List.of(AdocReferences.resolve(adoc.replace("\uFEFF", "")).split("\\R", -1)));
    List<String> out = new ArrayList<>();
    block(lines, attributes, out);
    return String.join("\n", out) + "\n";
  }

  /** The attributes every page has (Asciidoctor's character replacements), to which its entries add. */
  static Map<String, String> builtInAttributes() {
    Map<String, String> attributes = new HashMap<>();
    attributes.put("nbsp", "\u00a0");
    attributes.put("sp", " ");
    attributes.put("empty", "");
    attributes.put("blank", "");
    attributes.put("zwsp", "");
    attributes.put("plus", "+");
    attributes.put("amp", "&");
    return attributes;
  }

  /** What an attribute entry ({@link #ATTRIBUTE_ENTRY}'s match) does: sets its attribute, or unsets it ({@code !}). */
  static void setAttribute(Map<String, String> attributes, Matcher entry) {
    String name = entry.group(1);
    if (name.startsWith("!") || name.endsWith("!")) {
      attributes.remove(name.replace("!", ""));
    } else {
      attributes.put(name, entry.group(2) == null ? "" : entry.group(2).strip());
    }
  }

  private static void block(List<String> lines, Map<String, String> attributes, List<String> out) {
    String style = null;
    String language = null;
    String title = null;
    int n = lines.size();
    int i = 0;
    while (i < n) {
      String line = lines.get(i);
      String stripped = line.strip();
      if (stripped.isEmpty()) {
        out.add("");
        i++;
        continue;
      }
      if (stripped.startsWith("//") && !stripped.startsWith("////")) {
        i++; // a comment
        continue;
      }
      Matcher entry = ATTRIBUTE_ENTRY.matcher(stripped);
      if (entry.matches()) {
        setAttribute(attributes, entry);
        i++;
        continue;
      }
      if (DIRECTIVE.matcher(stripped).matches() || BLOCK_MACRO.matcher(stripped).matches()) {
        i++; // a conditional's marker, an include left over, an image: no text
        continue;
      }
      Matcher section = SECTION.matcher(line);
      if (section.matches()) {
        out.add("");
        out.add("#".repeat(section.group(1).length()) + " " + inline(section.group(2), attributes));
        out.add("");
        style = null;
        title = null;
        i++;
        continue;
      }
      Matcher delimiter = DELIMITER.matcher(stripped);
      if (delimiter.matches()) {
        i = delimited(lines, i, stripped, style, language, title, attributes, out);
        style = null;
        language = null;
        title = null;
        continue;
      }
      Matcher blockAttributes = BLOCK_ATTRIBUTES.matcher(stripped);
      if (blockAttributes.matches()) {
        // [source,java], [NOTE], [quote, Author]; an anchor ([[id]], [#id]) says nothing shown
        if (!stripped.startsWith("[[") && !stripped.startsWith("[#")) {
          String[] positional = blockAttributes.group(1).split(",");
          String first = positional[0].strip().replaceFirst("[#.%].*$", "").toLowerCase(Locale.ROOT);
          style = first.isEmpty() ? style : first;
          if (("source".equals(first) || "listing".equals(first)) && positional.length > 1) {
            language = positional[1].strip();
          }
        }
        i++;
        continue;
      }
      Matcher blockTitle = BLOCK_TITLE.matcher(stripped);
      if (blockTitle.matches() && !line.startsWith(" ")) {
        title = blockTitle.group(1).strip();
        i++;
        continue;
      }
      if (title != null) {
        out.add(inline(title, attributes)); // a block's title, as the page shows it above the block
        out.add("");
        title = null;
      }
      Matcher admonition = ADMONITION.matcher(stripped);
      if (admonition.matches() || style != null && ADMONITIONS.contains(style)) {
        String type = admonition.matches() ? admonition.group(1).toLowerCase(Locale.ROOT) : style;
        out.add(Character.toUpperCase(type.charAt(0)) + type.substring(1));
        out.add("");
        int end = paragraphEnd(lines, i);
        List<String> paragraph = new ArrayList<>(lines.subList(i, end));
        if (admonition.matches()) {
          paragraph.set(0, admonition.group(2));
        }
        paragraph.forEach(text -> out.add(inline(text.strip(), attributes)));
        out.add("");
        style = null;
        i = end;
        continue;
      }
      Matcher item = LIST_ITEM.matcher(line);
      if (item.matches()) {
        String marker = item.group(1);
        int depth = marker.startsWith("*") || marker.startsWith(".") ? marker.length() - 1 : 0;
        boolean ordered = marker.startsWith(".") || Character.isDigit(marker.charAt(0));
        String text = item.group(2).replaceFirst("^\\[[ xX*]]\\s+", "");
        out.add("  ".repeat(depth * (ordered ? 2 : 1)) + (ordered ? "1. " : "- ") + inline(text, attributes));
        i++;
        // the item's text goes on over the following lines until a blank line or the next item
        while (i < n && !lines.get(i).isBlank() && !LIST_ITEM.matcher(lines.get(i)).matches()
            && !lines.get(i).strip().equals("+") && !DELIMITER.matcher(lines.get(i).strip()).matches()) {
          out.add("  ".repeat(depth * (ordered ? 2 : 1) + 1) + inline(lines.get(i).strip(), attributes));
          i++;
        }
        continue;
      }
      if (stripped.equals("+")) {
        i++; // a list continuation: the next block belongs to the item above, read as it comes
        continue;
      }
      Matcher description = DESCRIPTION.matcher(stripped);
      if (description.matches() && !stripped.contains("://") && !line.startsWith(" ")) {
        out.add(inline(description.group(1).strip(), attributes));
        out.add("");
        if (description.group(3) != null && !description.group(3).isBlank()) {
          out.add(inline(description.group(3).strip(), attributes));
          out.add("");
        }
        i++;
        continue;
      }
      if ("source".equals(style) || "listing".equals(style) || "literal".equals(style) || line.startsWith(" ")) {
        // a paragraph styled as code, or an indented one (a literal paragraph)
        int end = paragraphEnd(lines, i);
        out.add("```" + ("source".equals(style) && language != null ? language : ""));
        for (String code : lines.subList(i, end)) {
          out.add(line.startsWith(" ") ? code.replaceFirst("^ {1," + indent(line) + "}", "") : code);
        }
        out.add("```");
        out.add("");
        style = null;
        language = null;
        i = end;
        continue;
      }
      int end = paragraphEnd(lines, i);
      for (String text : lines.subList(i, end)) {
        out.add(inline(text.strip().replaceFirst("\\s\\+$", ""), attributes));
      }
      out.add("");
      style = null;
      i = end;
    }
  }

  /** A delimited block starting at {@code i}; returns the line after its closing delimiter. */
  private static int delimited(List<String> lines, int i, String delimiter, String style, String language,
      String title, Map<String, String> attributes, List<String> out) {
    String closing = delimiter.startsWith("```") ? "```" : delimiter;
    int end = i + 1;
    while (end < lines.size() && !lines.get(end).strip().equals(closing)) {
      end++;
    }
    List<String> content = new ArrayList<>(lines.subList(i + 1, Math.min(end, lines.size())));
    int next = Math.min(end + 1, lines.size());
    char kind = delimiter.charAt(0);
    if (kind == '/') {
      return next; // a comment block
    }
    if (title != null && kind != '|' && kind != ',' && kind != '!') {
      out.add(inline(title, attributes));
      out.add("");
    }
    if (kind == '-' && delimiter.length() >= 4 || kind == '.' || kind == '`') {
      String lang = kind == '`' ? delimiter.substring(3).strip() : language == null ? "" : language;
      out.add("");
      out.add("```" + lang.replaceAll("[^\\w+#.-]", ""));
      out.addAll(content);
      out.add("```");
      out.add("");
      return next;
    }
    if (kind == '+') {
      out.add(Jsoup.parse(String.join("\n", content)).text()); // raw HTML: its words
      out.add("");
      return next;
    }
    if (kind == '|' || kind == ',' || kind == '!') {
      table(content, delimiter, title, attributes, out);
      return next;
    }
    // example, sidebar, quote and open blocks: their text; an admonition block its type first
    if (style != null && ADMONITIONS.contains(style)) {
      out.add(Character.toUpperCase(style.charAt(0)) + style.substring(1));
      out.add("");
    }
    block(content, attributes, out);
    out.add("");
    return next;
  }

  /** A table's rows: each a paragraph of its cells' words. */
  private static void table(List<String> content, String delimiter, String title, Map<String, String> attributes,
      List<String> out) {
    if (title != null) {
      out.add(inline(title, attributes));
      out.add("");
    }
    char separator = delimiter.charAt(0) == ',' ? ',' : delimiter.charAt(0) == '!' ? '!' : '|';
    int columns = 0;
    List<String> cells = new ArrayList<>();
    for (String line : content) {
      String stripped = line.strip();
      if (stripped.isEmpty()) {
        continue;
      }
      List<String> parts = new ArrayList<>(List.of(stripped.split(Pattern.quote(String.valueOf(separator)), -1)));
      if (separator == '|' || separator == '!') {
        String before = parts.remove(0).strip(); // the text before a line's first '|' goes on the previous cell
        if (!before.isEmpty() && !cells.isEmpty()) {
          cells.set(cells.size() - 1, (cells.get(cells.size() - 1) + " " + before).strip());
        }
        if (columns == 0) {
          columns = parts.size();
        }
      } else if (columns == 0) {
        columns = parts.size();
      }
      for (String part : parts) {
        // a cell's spec before its text ("2+" or "a") is no words
        cells.add(part.strip());
      }
    }
    columns = Math.max(columns, 1);
    for (int start = 0; start < cells.size(); start += columns) {
      List<String> row = cells.subList(start, Math.min(start + columns, cells.size())).stream()
          .filter(cell -> !cell.isEmpty()).map(cell -> inline(cell, attributes)).toList();
      if (!row.isEmpty()) {
        out.add(String.join(" ", row));
        out.add("");
      }
    }
  }

  private static int paragraphEnd(List<String> lines, int i) {
    int end = i;
    while (end < lines.size() && !lines.get(end).isBlank() && (end == i
        || !DELIMITER.matcher(lines.get(end).strip()).matches() && !BLOCK_ATTRIBUTES.matcher(lines.get(end).strip()).matches()
        && !LIST_ITEM.matcher(lines.get(end)).matches() && !lines.get(end).strip().equals("+"))) {
      end++;
    }
    return end;
  }

  private static int indent(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) == ' ') {
      i++;
    }
    return i;
  }

  /** Inline markup as the page shows it, written so that Markdown reads the same words. */
  static String inline(String text, Map<String, String> attributes) {
    String s = replaced(ATTRIBUTE_REFERENCE, text, m -> attributes.getOrDefault(m.group(1), m.group()));
    s = INLINE_ANCHOR.matcher(s).replaceAll("");
    s = replaced(INDEX_TERM, s, m -> m.group(1) == null ? "" : m.group(1));
    s = replaced(LINK_MACRO, s, m -> m.group(2).isBlank() ? m.group(1).replaceAll("\\.adoc(#.*)?$", "") : m.group(2));
    s = replaced(BARE_URL_MACRO, s, m -> m.group(2).isBlank() ? m.group(1) : m.group(2).replaceAll("\\^$", ""));
    s = replaced(CROSS_REFERENCE, s, m -> m.group(2) != null && !m.group(2).isBlank() ? m.group(2)
        : m.group(1).replaceAll("\\.adoc(#.*)?$", "").replaceFirst("^_", "").replace('_', ' '));
    s = replaced(MENU_MACRO, s, m -> m.group(1) + (m.group(2).isBlank() ? "" : " > " + m.group(2).replace(">", " > ")));
    s = replaced(UI_MACRO, s, m -> m.group(1));
    s = replaced(PASS_PLUS, s, m -> "`" + (m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3))
        .replace("`", "") + "`");
    s = replaced(HIGHLIGHT, s, m -> m.group(1));
    // AsciiDoc's *bold* and _italic_ read in Markdown as emphasis: the same words
    return s;
  }

  /** Each match of {@code pattern} in {@code text} replaced by what {@code with} makes of it, taken literally. */
  private static String replaced(Pattern pattern, String text, Function<MatchResult, String> with) {
    return pattern.matcher(text).replaceAll(m -> Matcher.quoteReplacement(with.apply(m)));
  }
}
