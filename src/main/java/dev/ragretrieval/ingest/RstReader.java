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

/**
 * reStructuredText pages (Sphinx's and docutils' sources) read as their built pages show them. A
 * page is turned into the Markdown {@link MarkdownReader} reads, each directive into what that
 * reader makes of the same directive in MyST (a box as its title and text, code in a fence, nothing
 * for a table of contents or an API reference the site pulls from docstrings): so titles, sections,
 * boxes and code follow one set of rules for both sources. What the conversion covers: section titles (underlined, or
 * over- and underlined, their levels in order of first use), paragraphs, bullet and enumerated lists,
 * definition and field lists, literal blocks ({@code ::}), doctest blocks, block quotes, line blocks,
 * grid and simple tables (their cells words apart), directives (admonitions with their title, code
 * with its language, object descriptions such as {@code .. py:function:: name(args)} as their
 * signature and text, figures' captions; targets, comments, substitution definitions and images are
 * no text), and inline markup (roles show their text, {@code :class:`~a.B`} as "B"; literals;
 * hyperlinks show their words).
 */
final class RstReader {

  private static final Pattern ADORNMENT = Pattern.compile("^([!-/:-@\\[-`{-~])\\1{2,}\\s*$");
  private static final Pattern DIRECTIVE = Pattern.compile("^\\.\\.[ \\t]+([\\w:.+-]+)[ \\t]*::(?:[ \\t]+(.*))?$");
  private static final Pattern EXPLICIT = Pattern.compile("^\\.\\.(?:[ \\t].*)?$");
  private static final Pattern OPTION = Pattern.compile("^:[\\w.+-]+(?: [\\w.+-]+)*:(?:[ \\t].*)?$");
  private static final Pattern BULLET = Pattern.compile("^([-*+\u2022])([ \\t]+)(\\S.*)$");
  private static final Pattern ENUMERATED = Pattern.compile("^(\\(?(?:\\d+|#|[a-zA-Z]|[ivxlcdm]+)[.)])([ \\t]+)(\\S.*)$");
  private static final Pattern FIELD = Pattern.compile("^:([^:`\\s][^:`]*?):(?:[ \\t]+(.*))?$");
  private static final Pattern GRID_BORDER = Pattern.compile("^\\+[-=+:]+\\+\\s*$");
  private static final Pattern SIMPLE_BORDER = Pattern.compile("^=+(?:[ \\t]+=+)+\\s*$");
  private static final Pattern ROLE = Pattern.compile(":(?:[\\w.+-]+:)+`([^`]+)`|`([^`]+)`:(?:[\\w.+-]+:)+");
  /** An inline literal: it ends at two backticks that no third follows (``:role:`x``` holds ":role:`x`"). */
  private static final Pattern LITERAL = Pattern.compile("``(.+?)``(?!`)");
  private static final Pattern REFERENCE = Pattern.compile("`([^`<]*?)\\s*<([^<>`]+)>`__?|`([^`]+)`__?");
  private static final Pattern DEFAULT_ROLE = Pattern.compile("(?<![\\w`])`([^`]+)`(?![\\w`_])");
  private static final Pattern WORD_REFERENCE =
      Pattern.compile("(?<![\\w])([A-Za-z0-9][\\w.-]*?[A-Za-z0-9])__?(?=[\\s.,;:!?)]|$)");
  private static final Pattern HELD = Pattern.compile("\u0000(\\d+)\u0000");
  private static final Pattern SUBSTITUTION = Pattern.compile("\\|([^|\\s][^|]*?)\\|(?:__?)?");
  private static final Pattern FOOTNOTE_REFERENCE = Pattern.compile("\\s?\\[(?:\\d+|#[\\w-]*|\\*|[\\w.-]+)]_");

  /** Admonitions: a box whose title is its type ("Note"), or its argument for {@code admonition}. */
  private static final Set<String> BOXES = Set.of("admonition", "attention", "caution", "danger", "error", "hint",
      "important", "note", "tip", "warning", "seealso", "todo");
  /** Directives whose body is code, with their language as the argument (or an option). */
  private static final Set<String> CODE = Set.of("code-block", "code", "sourcecode", "highlight", "testcode",
      "doctest", "testoutput", "prompt", "math", "productionlist", "parsed-literal", "code-tab");
  /** Directives whose argument the page shows as their title (a rubric, a tab's label); others' is not text. */
  private static final Set<String> TITLED = Set.of("rubric", "topic", "sidebar", "tab", "group-tab", "dropdown", "card",
      "tab-item", "grid-item-card", "centered", "list-table", "table");
  /** Directives that stand for what the site generates or leaves out: none of their lines is text. */
  private static final Set<String> GENERATED = Set.of("toctree", "contents", "include", "literalinclude", "image",
      "raw", "index", "meta", "sectnum", "header", "footer", "currentmodule", "module", "automodule", "autoclass",
      "autofunction", "automethod", "autoattribute", "autodata", "autoexception", "autosummary", "automodsumm",
      "autoprogram", "click", "default-role", "highlightlang", "tabularcolumns", "bibliography", "graphviz",
      "digraph", "inheritance-diagram", "plot", "ifconfig", "youtube", "video", "iframe");
  /** Sphinx's object descriptions: their argument is a signature the page shows above the description. */
  private static final Pattern DESCRIPTION = Pattern.compile(
      "(?:(?:py|c|cpp|js|rst|std|rb|php):)?(?:function|method|class|attribute|data|exception|decorator"
      + "|decoratormethod|classmethod|staticmethod|property|module|member|var|type|macro|struct|enum|enumerator"
      + "|union|concept|option|envvar|describe|object|confval|setting|directive|role|program|cmdoption|event"
      + "|templatefilter|templatetag|django-admin|django-admin-option|fixture|signal|cvar)");

  private RstReader() {}

  /** The page as the Markdown {@link MarkdownReader} reads: its title an h1, its sections h2 and h3. */
  static String markdown(String rst) {
    List<String> lines = new ArrayList<>(List.of(rst.replace("\uFEFF", "").replace("\t", "        ").split("\\R", -1)));
    Map<String, Integer> levels = new HashMap<>();
    List<String> out = new ArrayList<>();
    block(lines, levels, out, true);
    return String.join("\n", out) + "\n";
  }

  /** Converts one block of lines (dedented), appending Markdown lines to {@code out}. */
  private static void block(List<String> lines, Map<String, Integer> levels, List<String> out, boolean top) {
    int i = 0;
    int n = lines.size();
    boolean first = true;
    while (i < n) {
      String line = lines.get(i);
      if (line.isBlank()) {
        out.add("");
        i++;
        continue;
      }
      int indent = indent(line);
      if (indent > 0) {
        // a block quote: read as its text
        int end = indentedEnd(lines, i, 1);
        block(dedent(lines.subList(i, end)), levels, out, false);
        out.add("");
        i = end;
        continue;
      }
      // :orphan: and :tocdepth: at the top of a page are settings for Sphinx, not text
      if (top && first && (line.startsWith(":orphan:") || line.startsWith(":tocdepth:") || line.startsWith(":nosearch:"))) {
        i++;
        continue;
      }
      first = false;
      int heading = heading(lines, i, levels, out);
      if (heading > 0) {
        i += heading;
        continue;
      }
      if (EXPLICIT.matcher(line).matches()) {
        i = explicit(lines, i, levels, out);
        continue;
      }
      if (GRID_BORDER.matcher(line).matches()) {
        i = gridTable(lines, i, out);
        continue;
      }
      if (SIMPLE_BORDER.matcher(line).matches()) {
        i = simpleTable(lines, i, out);
        continue;
      }
      if (line.startsWith(">>>")) {
        int end = i;
        while (end < n && !lines.get(end).isBlank()) {
          end++;
        }
        out.add("```python");
        out.addAll(lines.subList(i, end));
        out.add("```");
        i = end;
        continue;
      }
      Matcher bullet = BULLET.matcher(line);
      Matcher enumerated = ENUMERATED.matcher(line);
      if (bullet.matches() || enumerated.matches() && (i + 1 >= n || !lines.get(i + 1).isBlank()
          || i + 2 < n && ENUMERATED.matcher(lines.get(i + 2)).matches() || line.startsWith("#."))) {
        Matcher item = bullet.matches() ? bullet : enumerated;
        String marker = bullet.matches() ? "-" : "1.";
        int column = item.group(1).length() + item.group(2).length();
        int end = indentedEnd(lines, i + 1, column);
        List<String> body = new ArrayList<>();
        body.add(item.group(3));
        body.addAll(dedentBy(lines.subList(i + 1, end), column));
        List<String> converted = new ArrayList<>();
        block(body, levels, converted, false);
        trimBlank(converted);
        String pad = " ".repeat(marker.length() + 1);
        for (int k = 0; k < converted.size(); k++) {
          out.add(k == 0 ? marker + " " + converted.get(k) : converted.get(k).isEmpty() ? "" : pad + converted.get(k));
        }
        i = end;
        continue;
      }
      Matcher field = FIELD.matcher(line);
      if (field.matches()) {
        int end = indentedEnd(lines, i + 1, 1);
        List<String> body = new ArrayList<>();
        body.add(field.group(1).strip() + ":" + (field.group(2) == null ? "" : " " + field.group(2)));
        body.addAll(dedent(lines.subList(i + 1, end)));
        block(body, levels, out, false);
        out.add("");
        i = end;
        continue;
      }
      if (line.startsWith("| ") || line.equals("|")) {
        while (i < n && (lines.get(i).startsWith("|") || lines.get(i).startsWith("  ") && !lines.get(i).isBlank())) {
          out.add(inline(lines.get(i).replaceFirst("^\\|\\s?", "").strip()) + "  ");
          i++;
        }
        out.add("");
        continue;
      }
      // a paragraph: its lines up to a blank line, or a definition list item (a term, its definition indented)
      int end = i;
      while (end < n && !lines.get(end).isBlank() && indent(lines.get(end)) == 0) {
        end++;
      }
      if (end < n && !lines.get(end).isBlank() && end == i + 1) {
        // term, then its definition indented below it
        int definitionEnd = indentedEnd(lines, end, 1);
        out.add(inline(line.replaceFirst("\\s+:\\s+.*$", "")));
        out.add("");
        block(dedent(lines.subList(end, definitionEnd)), levels, out, false);
        out.add("");
        i = definitionEnd;
        continue;
      }
      List<String> paragraph = new ArrayList<>(lines.subList(i, end));
      String last = paragraph.get(paragraph.size() - 1);
      boolean literal = last.endsWith("::");
      if (literal) {
        String kept = last.equals("::") ? "" : last.endsWith(" ::") ? last.substring(0, last.length() - 3)
            : last.substring(0, last.length() - 1);
        paragraph.set(paragraph.size() - 1, kept);
      }
      for (String text : paragraph) {
        if (!text.isBlank()) {
          out.add(inline(text));
        }
      }
      out.add("");
      i = end;
      if (literal) {
        i = literalBlock(lines, i, out);
      }
    }
  }

  /** The lines a section title takes at {@code i} (its heading is added), or 0 when none starts there. */
  private static int heading(List<String> lines, int i, Map<String, Integer> levels, List<String> out) {
    Title title = titleAt(lines, i);
    if (title == null) {
      return 0;
    }
    title(title.text(), title.style(), levels, out);
    return title.lines();
  }

  /** A section title: its text as written, its adornment style, and the lines it takes (2 or 3). */
  record Title(String text, String style, int lines) {}

  /** The section title starting at line {@code i}: underlined, or over- and underlined; null when none does. */
  static Title titleAt(List<String> lines, int i) {
    int n = lines.size();
    String line = lines.get(i);
    Matcher over = ADORNMENT.matcher(line);
    if (over.matches() && i + 2 < n && !lines.get(i + 1).isBlank() && ADORNMENT.matcher(lines.get(i + 2)).matches()
        && lines.get(i + 2).strip().equals(line.strip())) {
      return new Title(lines.get(i + 1).strip(), "over" + over.group(1), 3);
    }
    if (i + 1 < n && !line.isBlank() && !over.matches()) {
      Matcher under = ADORNMENT.matcher(lines.get(i + 1));
      if (under.matches() && lines.get(i + 1).strip().length() >= Math.min(line.strip().length(), 3)
          && (i + 2 >= n || lines.get(i + 2).isBlank() || !ADORNMENT.matcher(lines.get(i + 2)).matches())) {
        return new Title(line.strip(), under.group(1), 2);
      }
    }
    return null;
  }

  /** A title's heading: its level is its adornment style's place in the order the page first used them. */
  private static void title(String text, String style, Map<String, Integer> levels, List<String> out) {
    int level = levels.computeIfAbsent(style, s -> levels.size() + 1);
    out.add("");
    out.add("#".repeat(Math.min(level, 6)) + " " + inline(text));
    out.add("");
  }

  /** An explicit markup block at {@code i} (a directive, target, comment ...); returns the line after it. */
  private static int explicit(List<String> lines, int i, Map<String, Integer> levels, List<String> out) {
    String line = lines.get(i);
    int end = indentedEnd(lines, i + 1, 1);
    Matcher directive = DIRECTIVE.matcher(line);
    if (!directive.matches()) {
      return end; // a comment, a target (.. _label:), a footnote or citation: no text on the page
    }
    String name = directive.group(1).toLowerCase(Locale.ROOT);
    String argument = directive.group(2) == null ? "" : directive.group(2).strip();
    List<String> body = dedent(lines.subList(i + 1, end));
    // the argument may go on over the lines before the options or the first blank line
    int at = 0;
    while (at < body.size() && !body.get(at).isBlank() && !OPTION.matcher(body.get(at)).matches()) {
      argument = (argument + " " + body.get(at).strip()).strip();
      at++;
    }
    Map<String, String> options = new HashMap<>();
    while (at < body.size() && OPTION.matcher(body.get(at)).matches()) {
      String option = body.get(at);
      int colon = option.indexOf(':', 1);
      options.put(option.substring(1, colon), option.substring(colon + 1).strip());
      at++;
    }
    List<String> content = new ArrayList<>(body.subList(at, body.size()));
    trimBlank(content);
    String base = name.contains(":") ? name.substring(name.lastIndexOf(':') + 1) : name;
    if (GENERATED.contains(name) || GENERATED.contains(base) || name.startsWith("auto")) {
      return end;
    }
    if (line.startsWith(".. |")) {
      return end; // a substitution definition
    }
    if (name.endsWith(":run")) {
      return end; // pallets' click:run: the page shows the output of running it, which the source does not hold
    }
    if (CODE.contains(base) || base.endsWith("example")) {
      String language = base.equals("math") ? "math" : argument.isEmpty() ? options.getOrDefault("language", "")
          : argument.split("\\s+")[0];
      out.add("");
      if (options.containsKey("caption") && !options.get("caption").isBlank()) {
        out.add(inline(options.get("caption"))); // the file name or title the page shows above the code
        out.add("");
      }
      out.add("```" + language);
      out.addAll(content);
      out.add("```");
      out.add("");
      return end;
    }
    if (BOXES.contains(base)) {
      String title = base.equals("admonition") && !argument.isEmpty() ? argument
          : base.equals("seealso") ? "See also" : base.equals("todo") ? "Todo"
          : Character.toUpperCase(base.charAt(0)) + base.substring(1);
      out.add("");
      out.add(inline(title));
      out.add("");
      if (!base.equals("admonition") && !argument.isEmpty()) {
        content.add(0, "");
        content.add(0, argument); // ".. note:: text" starts the box's text on the directive's line
      }
      block(content, levels, out, false);
      out.add("");
      return end;
    }
    if (base.equals("versionadded") || base.equals("versionchanged") || base.equals("deprecated")
        || base.equals("versionremoved")) {
      String[] parts = argument.split("\\s+", 2);
      String says = switch (base) {
        case "versionadded" -> "Added in version ";
        case "versionchanged" -> "Changed in version ";
        case "versionremoved" -> "Removed in version ";
        default -> "Deprecated since version ";
      };
      out.add("");
      out.add(inline(says + parts[0] + (parts.length > 1 || !content.isEmpty() ? ": " : ".")
          + (parts.length > 1 ? parts[1] : "")));
      out.add("");
      block(content, levels, out, false);
      out.add("");
      return end;
    }
    if (DESCRIPTION.matcher(name).matches()) {
      // the signature the page shows, then its description
      out.add("");
      if (!argument.isEmpty()) {
        out.add("`" + argument.replace("`", "") + "`");
        out.add("");
      }
      block(content, levels, out, false);
      out.add("");
      return end;
    }
    // any other directive: its text, if it has any, below its argument where the page shows that as a title
    out.add("");
    if (!argument.isEmpty() && TITLED.contains(base)) {
      out.add(inline(argument));
      out.add("");
    }
    block(content, levels, out, false);
    out.add("");
    return end;
  }
  /** The indented literal block after a paragraph ending with "::", as a code fence. */
  private static int literalBlock(List<String> lines, int i, List<String> out) {
    int n = lines.size();
    int start = i;
    while (start < n && lines.get(start).isBlank()) {
      start++;
    }
    if (start >= n) {
      return start;
    }
    int end;
    List<String> code;
    if (indent(lines.get(start)) > 0) {
      end = indentedEnd(lines, start, 1);
      code = dedent(lines.subList(start, end));
    } else if (lines.get(start).matches("^[!-/:-@\\[-`{-~].*")) {
      // a quoted literal block: unindented lines that start with the same punctuation
      char quote = lines.get(start).charAt(0);
      end = start;
      while (end < n && !lines.get(end).isEmpty() && lines.get(end).charAt(0) == quote) {
        end++;
      }
      code = new ArrayList<>(lines.subList(start, end));
    } else {
      return start;
    }
    trimBlank(code);
    out.add("```");
    out.addAll(code);
    out.add("```");
    out.add("");
    return end;
  }

  /** A grid table's rows: each row's cells words apart, a paragraph a row. */
  private static int gridTable(List<String> lines, int i, List<String> out) {
    int n = lines.size();
    int end = i;
    List<String> row = new ArrayList<>();
    while (end < n && (lines.get(end).startsWith("+") || lines.get(end).startsWith("|"))) {
      String line = lines.get(end).strip();
      if (GRID_BORDER.matcher(line).matches()) {
        flushRow(row, out);
      } else if (line.length() > 1) {
        String[] cells = line.substring(1, line.endsWith("|") ? line.length() - 1 : line.length()).split("\\|");
        for (int c = 0; c < cells.length; c++) {
          while (row.size() <= c) {
            row.add("");
          }
          row.set(c, (row.get(c) + " " + cells[c].strip()).strip());
        }
      }
      end++;
    }
    flushRow(row, out);
    return end;
  }

  private static void flushRow(List<String> row, List<String> out) {
    String text = String.join(" ", row.stream().filter(cell -> !cell.isBlank()).toList()).strip();
    if (!text.isEmpty()) {
      out.add(inline(text));
      out.add("");
    }
    row.clear();
  }

  /** A simple table: its lines between the borders, each a paragraph of its cells. */
  private static int simpleTable(List<String> lines, int i, List<String> out) {
    int n = lines.size();
    int end = i + 1;
    int borders = 1;
    while (end < n && (borders < 3 || !lines.get(end).isBlank())) {
      String line = lines.get(end);
      if (SIMPLE_BORDER.matcher(line).matches()) {
        borders++;
        end++;
        // the last border ends the table: a blank line or the end of the block follows it
        if (borders >= 2 && (end >= n || lines.get(end).isBlank())) {
          break;
        }
        continue;
      }
      if (!line.isBlank() && !line.strip().matches("^[-=\\s]+$")) {
        out.add(inline(line.strip().replaceAll("\\s{2,}", " ")));
        out.add("");
      }
      end++;
    }
    return end;
  }

  /** Inline markup as the page shows it, written so that Markdown reads the same words. */
  static String inline(String text) {
    // each converted span is held out of the later rules (a literal's "<" is no link target)
    List<String> held = new ArrayList<>();
    Function<String, String> hold = span -> {
      held.add(span);
      return "\u0000" + (held.size() - 1) + "\u0000";
    };
    String s = replaced(LITERAL, text, m -> hold.apply(code(m.group(1))));
    // roles: :func:`name`, :ref:`Title <label>`, :class:`~pkg.Name` (shown as "Name")
    s = replaced(ROLE, s, m -> hold.apply(code(shown(m.group(1) != null ? m.group(1) : m.group(2)))));
    s = replaced(REFERENCE, s, m -> m.group(3) != null ? m.group(3)
        : m.group(1).isEmpty() ? m.group(2) : m.group(1));
    s = replaced(DEFAULT_ROLE, s, m -> hold.apply(code(shown(m.group(1)))));
    s = replaced(SUBSTITUTION, s, m -> m.group(1));
    s = FOOTNOTE_REFERENCE.matcher(s).replaceAll("");
    s = replaced(WORD_REFERENCE, s, m -> m.group(1));
    return replaced(HELD, s, m -> held.get(Integer.parseInt(m.group(1))));
  }

  /** Inline markup as plain words (a title quoted in a reference): what {@link #inline} shows, without code marks. */
  static String plain(String text) {
    return inline(text).replace("`", "");
  }

  /** What a role's or reference's text shows: its title before a target in angle brackets, "~" shortened. */
  private static String shown(String text) {
    String shown = text.strip();
    Matcher titled = Pattern.compile("^(.*?)\\s*<([^<>]+)>$", Pattern.DOTALL).matcher(shown);
    if (titled.matches() && !titled.group(1).isBlank()) {
      return titled.group(1);
    }
    if (titled.matches()) {
      shown = titled.group(2);
    }
    shown = shown.replaceFirst("^!", "");
    if (shown.startsWith("~")) {
      shown = shown.substring(shown.lastIndexOf('.') + 1);
    }
    return shown;
  }

  /** Text as inline code, which Markdown leaves as written ({@code __init__} is not bold). */
  private static String code(String text) {
    String fence = text.contains("`") ? "``" : "`";
    return fence + (text.startsWith("`") || text.endsWith("`") ? " " + text + " " : text) + fence;
  }


  private static int indent(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) == ' ') {
      i++;
    }
    return i;
  }

  /** The end of the lines from {@code from} that are blank or indented at least {@code column}. */
  private static int indentedEnd(List<String> lines, int from, int column) {
    int end = from;
    int lastText = from;
    while (end < lines.size() && (lines.get(end).isBlank() || indent(lines.get(end)) >= column)) {
      if (!lines.get(end).isBlank()) {
        lastText = end + 1;
      }
      end++;
    }
    return Math.max(lastText, from);
  }

  /** The lines without their common indent. */
  private static List<String> dedent(List<String> lines) {
    int common = Integer.MAX_VALUE;
    for (String line : lines) {
      if (!line.isBlank()) {
        common = Math.min(common, indent(line));
      }
    }
    return dedentBy(lines, common == Integer.MAX_VALUE ? 0 : common);
  }

  private static List<String> dedentBy(List<String> lines, int column) {
    List<String> out = new ArrayList<>(lines.size());
    for (String line : lines) {
      out.add(line.isBlank() ? "" : line.substring(Math.min(column, indent(line))));
    }
    return out;
  }

  private static void trimBlank(List<String> lines) {
    while (!lines.isEmpty() && lines.get(0).isBlank()) {
      lines.remove(0);
    }
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
      lines.remove(lines.size() - 1);
    }
  }

  /** Each match of {@code pattern} in {@code text} replaced by what {@code with} makes of it, taken literally. */
  private static String replaced(Pattern pattern, String text, Function<MatchResult, String> with) {
    return pattern.matcher(text).replaceAll(m -> Matcher.quoteReplacement(with.apply(m)));
  }
}
