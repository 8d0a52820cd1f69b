package dev.ragretrieval.ingest;

import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A page's lines outside its fenced code blocks, for the generators' include syntaxes that a page
 * can also show as code (VitePress' {@code <<<} imports, Docusaurus' partials): shown in code, they
 * stay as written. A fence closes with a line of its own mark, at least as long, as CommonMark says.
 */
final class CodeFences {

  private static final Pattern FENCE = Pattern.compile("[ \\t]*(`{3,}|~{3,})");

  private CodeFences() {}

  /** {@code markdown} with each line outside code replaced by what {@code line} makes of it. */
  static String mapOutside(String markdown, UnaryOperator<String> line) {
    StringBuilder out = new StringBuilder(markdown.length());
    String fence = null; // the open fence's marks
    for (String text : markdown.split("\\R", -1)) {
      Matcher marks = FENCE.matcher(text);
      if (marks.lookingAt()) {
        String mark = marks.group(1);
        if (fence == null) {
          fence = mark;
        } else if (mark.charAt(0) == fence.charAt(0) && mark.length() >= fence.length()
            && text.substring(marks.end()).isBlank()) {
          fence = null;
        }
      } else if (fence == null) {
        text = line.apply(text);
      }
      out.append(text).append('\n');
    }
    return out.substring(0, out.length() - 1);
  }
}
