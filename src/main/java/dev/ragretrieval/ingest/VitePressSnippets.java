package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * VitePress' code snippet imports, expanded as VitePress builds the page: a line
 * {@code <<< @/snippets/setup.js#region{2,3} [Title]} becomes a code block holding that file (or
 * its region, between {@code #region name} and {@code #endregion name} comments, every region of
 * that name in turn), so the page's example is in its text rather than the import line. {@code @}
 * is the site's source folder; another path is relative to the page. The region markers are not
 * shown. A file that is missing or outside the folder gives nothing, as VitePress renders nothing
 * for it with {@code markdown.snippet.silent}.
 */
final class VitePressSnippets {

  private static final Pattern IMPORT =
      Pattern.compile("^([ \\t]*)<<<[ \\t]+(\\S+?)(?:#([\\w.-]+))?(?:\\{[^}\\n]*})?(?:[ \\t]+\\[[^\\]\\n]*])?[ \\t]*$");
  private static final Pattern ANSI_COLOUR = Pattern.compile("\u001B\\[[0-9;]*m");
  private static final Pattern MARKER = Pattern.compile(".*#(?:end)?region\\b.*");

  private VitePressSnippets() {}

  /**
   * {@code markdown} with its snippet imports replaced by code blocks.
   *
   * @param path the page's path below the folder read
   * @param sourceRoot the site's source folder below the folder read ("" or "docs/"), what {@code @} names
   * @param load a file's text by its path below the folder; null when it is missing
   */
  static String expand(String markdown, String path, String sourceRoot, Function<String, String> load) {
    if (!markdown.contains("<<<")) {
      return markdown;
    }
    return CodeFences.mapOutside(markdown, text -> {
      Matcher line = IMPORT.matcher(text);
      return line.matches() ? snippet(line, path, sourceRoot, load) : text;
    });
  }

  /** The code block an import line stands for; "" when its file is missing or outside the folder. */
  private static String snippet(Matcher line, String path, String sourceRoot, Function<String, String> load) {
    String file = line.group(2);
    String resolved = file.startsWith("@/")
        ? FolderPath.below(sourceRoot, file.substring(2))
        : FolderPath.below(FolderPath.folderOf(path), file);
    String text = resolved == null ? null : load.apply(resolved);
    if (text == null) {
      return "";
    }
    // a terminal's colours (VitePress shows an .ansi file in colour) are not words
    String code = ANSI_COLOUR.matcher(line.group(3) == null ? withoutMarkers(text) : region(text, line.group(3)))
        .replaceAll("");
    int dot = resolved.lastIndexOf('.');
    String language = dot > resolved.lastIndexOf('/') ? resolved.substring(dot + 1) : "";
    String indent = line.group(1);
    return indent + "```" + language + "\n" + code.stripTrailing().replaceAll("(?m)^", indent) + "\n" + indent + "```";
  }

  private static String withoutMarkers(String text) {
    List<String> kept = new ArrayList<>();
    for (String line : text.split("\\R", -1)) {
      if (!MARKER.matcher(line).matches()) {
        kept.add(line);
      }
    }
    return String.join("\n", kept);
  }

  /** The lines of every region named {@code name}, in order, without the region markers. */
  private static String region(String text, String name) {
    Pattern start = Pattern.compile(".*#region[ \\t]+" + Pattern.quote(name) + "\\b.*");
    Pattern end = Pattern.compile(".*#endregion(?:[ \\t]+" + Pattern.quote(name) + "\\b.*|[ \\t]*(?:\\*/|-->)?[ \\t]*)");
    List<String> kept = new ArrayList<>();
    boolean inside = false;
    for (String line : text.split("\\R", -1)) {
      if (start.matcher(line).matches()) {
        inside = true;
      } else if (inside && end.matcher(line).matches()) {
        inside = false;
      } else if (inside && !MARKER.matcher(line).matches()) {
        kept.add(line);
      }
    }
    return String.join("\n", kept);
  }
}
