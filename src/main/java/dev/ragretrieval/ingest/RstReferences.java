package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sphinx's cross-references without a title of their own: {@code :ref:`file-uploads`} shows the
 * title of the section that label stands above ("File Uploads"), {@code :doc:`/howto/static-files`}
 * the title of that page. The label or the path is no words a reader sees, so before a folder's
 * reStructuredText is read its references are given those titles, from every page of the folder
 * ({@code :ref:`File Uploads <file-uploads>`}). A reference to something outside the folder stays
 * as written, and the page shows its label.
 */
final class RstReferences {

  private static final Pattern LABEL = Pattern.compile("^\\.\\.[ \\t]+_([^:`]+):[ \\t]*$");
  private static final Pattern UNTITLED = Pattern.compile(":(ref|doc):`([^`<]+)`");

  private final Map<String, String> labels = new HashMap<>();
  private final Map<String, String> pages = new HashMap<>();

  /** Adds a page's title and its labelled sections' titles ({@code path}: its path below the folder). */
  void add(String path, String rst) {
    List<String> lines = List.of(rst.split("\\R", -1));
    List<String> waiting = new ArrayList<>(); // labels waiting for the title below them
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher label = LABEL.matcher(line);
      if (label.matches()) {
        waiting.add(label.group(1).strip().toLowerCase(Locale.ROOT));
        continue;
      }
      RstReader.Title title = line.startsWith(" ") ? null : RstReader.titleAt(lines, i);
      if (title != null) {
        String text = RstReader.plain(title.text());
        pages.putIfAbsent(MarkdownReader.withoutExtension(path), text);
        waiting.forEach(name -> labels.putIfAbsent(name, text));
        waiting.clear();
        i += title.lines() - 1;
      } else if (!line.isBlank()) {
        waiting.clear(); // a label above a paragraph or a directive names no section
      }
    }
  }

  /** {@code rst} (the page at {@code path}) with its untitled references given the titles they show. */
  String resolve(String rst, String path) {
    if (!rst.contains(":ref:`") && !rst.contains(":doc:`")) {
      return rst;
    }
    Matcher reference = UNTITLED.matcher(rst);
    StringBuilder out = new StringBuilder();
    while (reference.find()) {
      String target = reference.group(2).strip();
      String title = reference.group(1).equals("ref") ? labels.get(target.toLowerCase(Locale.ROOT)) : page(path, target);
      reference.appendReplacement(out, Matcher.quoteReplacement(title == null ? reference.group()
          : ":" + reference.group(1) + ":`" + title.replace("`", "").replace("<", "") + " <" + target + ">`"));
    }
    reference.appendTail(out);
    return out.toString();
  }

  /** A :doc: target's title: the path from the folder's root ("/a/b") or from the page's folder. */
  private String page(String path, String target) {
    String below = target.startsWith("/") ? FolderPath.below("", target.substring(1))
        : FolderPath.below(FolderPath.folderOf(path), target);
    return below == null ? null : pages.get(MarkdownReader.withoutExtension(below));
  }
}
