package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * mdBook's include links, expanded as mdBook expands them when it builds the book: a page's
 * {@code {{#include ../listings/ch02/src/main.rs}}} is replaced by that file, so the code a chapter
 * shows is in its text rather than the link (the Rust book writes 700 of its listings this way).
 * Supported: a whole file; a line range ({@code :2}, {@code :2:}, {@code ::10}, {@code :2:10}); an
 * anchor ({@code :here}, the lines between {@code ANCHOR: here} and {@code ANCHOR_END: here});
 * {@code rustdoc_include} and {@code playground} read the same (the lines mdBook hides outside the
 * range are not shown, so they are left out). Anchor lines are never shown. A link to a file that is
 * missing or outside the folder is dropped, as mdBook drops it with a warning; an escaped
 * {@code \{{#include}}} is shown as written, without the backslash.
 */
final class MdBookIncludes {

  private static final Pattern LINK =
      Pattern.compile("(\\\\)?\\{\\{#(include|rustdoc_include|playground|title)[ \\t]+([^}]*?)[ \\t]*}}");
  private static final Pattern ANCHOR_LINE = Pattern.compile(".*\\bANCHOR(?:_END)?:\\s*[\\w-]+.*");
  private static final Pattern RANGE = Pattern.compile("(\\d*)(?::(\\d*))?");
  /** How deep included files' own links are followed, as mdBook limits it. */
  private static final int MAX_DEPTH = 10;

  private MdBookIncludes() {}

  /**
   * {@code markdown} with its include links replaced.
   *
   * @param path the page's path below the folder, with '/' separators
   * @param load a file's text by its path below the folder; null when it is missing
   */
  static String expand(String markdown, String path, Function<String, String> load) {
    return expand(markdown, path, load, 0);
  }

  private static String expand(String markdown, String path, Function<String, String> load, int depth) {
    if (!markdown.contains("{{#")) {
      return markdown;
    }
    Matcher link = LINK.matcher(markdown);
    StringBuilder out = new StringBuilder(markdown.length());
    while (link.find()) {
      String replacement;
      if (link.group(1) != null) {
        replacement = link.group().substring(1); // escaped: shown as written
      } else if (link.group(2).equals("title") || depth >= MAX_DEPTH) {
        replacement = "";
      } else {
        replacement = included(link.group(3), path, load, depth);
      }
      link.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    link.appendTail(out);
    return out.toString();
  }

  /** The part of the file that {@code target} ({@code file[:range-or-anchor]}) names; "" when there is none. */
  private static String included(String target, String page, Function<String, String> load, int depth) {
    String file = target;
    String part = null;
    int colon = target.indexOf(':');
    if (colon >= 0) {
      file = target.substring(0, colon);
      part = target.substring(colon + 1);
    }
    String resolved = FolderPath.below(FolderPath.folderOf(page), file.strip());
    String text = resolved == null ? null : load.apply(resolved);
    if (text == null) {
      return "";
    }
    List<String> lines = new ArrayList<>(List.of(text.split("\\R", -1)));
    if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
      lines.remove(lines.size() - 1); // the file's last line break ends its last line
    }
    List<String> shown = part == null || part.isEmpty() ? lines : part(lines, part);
    List<String> kept = shown.stream().filter(line -> !ANCHOR_LINE.matcher(line).matches()).toList();
    String body = String.join("\n", kept);
    return resolved.endsWith(".md") ? expand(body, resolved, load, depth + 1) : body;
  }

  /** The lines a range ({@code 2:10}, 1-based, either end open) or an anchor name selects. */
  private static List<String> part(List<String> lines, String part) {
    Matcher range = RANGE.matcher(part);
    if (range.matches()) {
      int from = range.group(1).isEmpty() ? 1 : Integer.parseInt(range.group(1));
      // ":2" is line 2 alone; "2:" to the end; "::10" and "2:10" to line 10
      int to = range.group(2) == null ? from : range.group(2).isEmpty() ? lines.size() : Integer.parseInt(range.group(2));
      from = Math.max(1, from);
      to = Math.min(lines.size(), to);
      return from > to ? List.of() : lines.subList(from - 1, to);
    }
    String name = part.strip();
    Pattern start = Pattern.compile(".*\\bANCHOR:\\s*" + Pattern.quote(name) + "\\b.*");
    Pattern end = Pattern.compile(".*\\bANCHOR_END:\\s*" + Pattern.quote(name) + "\\b.*");
    List<String> selected = new ArrayList<>();
    boolean inside = false;
    for (String line : lines) {
      if (start.matcher(line).matches()) {
        inside = true;
      } else if (end.matcher(line).matches()) {
        inside = false;
      } else if (inside) {
        selected.add(line);
      }
    }
    return selected;
  }


}
