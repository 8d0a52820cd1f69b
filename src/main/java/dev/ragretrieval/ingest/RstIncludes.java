package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * reStructuredText's {@code .. include:: file} and Sphinx's {@code .. literalinclude:: file}: the
 * page shows that file's text (or code) in its place, so it is read there (a Sphinx project keeps
 * shared text in files it does not publish, often in a {@code _}-named folder, and a tutorial's code
 * in files of its own). The path is relative to the page, or to the project's folder when it starts
 * with '/' (a relative one may reach above the project's folder, {@code ../README.rst}, where the
 * folder given holds it); {@code :start-after:}, {@code :end-before:} and {@code :lines:} cut the text,
 * {@code :literal:}, {@code :code:} and a literalinclude show it as code (in {@code :language:});
 * included files' own includes are read a few levels deep. A file
 * missing or outside the folder read gives nothing (docutils would stop with an error, Sphinx warns).
 */
final class RstIncludes {

  private static final Pattern INCLUDE =
      Pattern.compile("^([ \\t]*)\\.\\.[ \\t]+(include|literalinclude)::[ \\t]+(\\S.*?)[ \\t]*$");
  private static final Pattern LINE_RANGE = Pattern.compile("(\\d*)(?:-(\\d*))?");
  private static final Pattern OPTION = Pattern.compile("^[ \\t]+:([\\w-]+):(?:[ \\t]+(.*?))?[ \\t]*$");
  private static final int MAX_DEPTH = 4;

  private RstIncludes() {}

  /**
   * {@code rst} with its includes replaced by the files' text.
   *
   * @param path the page's path below the folder read
   * @param load a file's text by its path below the folder; null when it is missing
   */
  static String expand(String rst, String path, Function<String, String> load) {
    return expand(rst, path, load, 0);
  }

  private static String expand(String rst, String path, Function<String, String> load, int depth) {
    if (depth >= MAX_DEPTH || !rst.contains("include::")) {
      return rst;
    }
    String[] lines = rst.split("\\R", -1);
    List<String> out = new ArrayList<>(lines.length);
    for (int i = 0; i < lines.length; i++) {
      Matcher include = INCLUDE.matcher(lines[i]);
      if (!include.matches()) {
        out.add(lines[i]);
        continue;
      }
      String indent = include.group(1);
      boolean literal = include.group(2).equals("literalinclude");
      String startAfter = null;
      String endBefore = null;
      String code = literal ? "" : null;
      String wanted = null;
      while (i + 1 < lines.length && OPTION.matcher(lines[i + 1]).matches()) {
        Matcher option = OPTION.matcher(lines[++i]);
        option.matches();
        String value = option.group(2) == null ? "" : option.group(2);
        switch (option.group(1)) {
          case "start-after" -> startAfter = value;
          case "end-before" -> endBefore = value;
          case "literal" -> code = code == null ? "" : code;
          case "code", "language" -> code = value;
          case "lines" -> wanted = value;
          default -> { } // encoding, tab-width, start-line and the like: the text as it is
        }
      }
      String target = include.group(3);
      // <file> is docutils' own standard include; there is nothing to read for it here
      String file = target.startsWith("<") ? null : target.startsWith("/") ? FolderPath.below("", target.substring(1))
          : FolderPath.reaching(FolderPath.folderOf(path), target);
      String text = file == null ? null : load.apply(file);
      if (text == null) {
        continue;
      }
      if (startAfter != null && text.contains(startAfter)) {
        text = text.substring(text.indexOf(startAfter) + startAfter.length());
      }
      if (endBefore != null && text.contains(endBefore)) {
        text = text.substring(0, text.indexOf(endBefore));
      }
      if (wanted != null) {
        text = lines(text, wanted);
      }
      List<String> included = new ArrayList<>();
      if (code != null) {
        included.add(".. code-block:: " + code);
        included.add("");
        for (String line : text.split("\\R", -1)) {
          included.add("    " + line);
        }
      } else {
        included.addAll(List.of(expand(text, file, load, depth + 1).split("\\R", -1)));
      }
      out.add("");
      for (String line : included) {
        out.add(line.isEmpty() ? "" : indent + line);
      }
      out.add("");
    }
    return String.join("\n", out);
  }

  /** The lines a {@code :lines:} option keeps: "1-5,10,20-" (from 1); all of them when it cannot be read. */
  private static String lines(String text, String wanted) {
    String[] all = text.split("\\R", -1);
    List<String> kept = new ArrayList<>();
    for (String range : wanted.split(",")) {
      Matcher m = LINE_RANGE.matcher(range.strip());
      if (!m.matches() || m.group(1).isEmpty() && m.group(2) == null) {
        return text;
      }
      int from = m.group(1).isEmpty() ? 1 : number(m.group(1));
      int to = m.group(2) == null ? from : m.group(2).isEmpty() ? all.length : number(m.group(2));
      for (int line = Math.max(from, 1); line <= Math.min(to, all.length); line++) {
        kept.add(all[line - 1]);
      }
    }
    return String.join("\n", kept);
  }

  /** A line number; one past any file's end when it is too large to read. */
  private static int number(String digits) {
    return digits.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(digits);
  }
}
