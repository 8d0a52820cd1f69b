package dev.ragretrieval.ingest;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Docusaurus' imported Markdown: a page that writes {@code import Warning from './_warning.mdx'}
 * and then {@code <Warning />} shows that file's text there, so it is read there (the partial,
 * its name starting with '_', is no page of its own). Only a default import of a {@code .md} or
 * {@code .mdx} file by a relative path, used as a self-closing tag on a line of its own, outside
 * code; a partial's own partials are read too, a few levels deep. A file that is missing or outside
 * the folder gives nothing, as the component would render nothing useful to read.
 */
final class DocusaurusPartials {

  private static final Pattern IMPORT =
      Pattern.compile("(?m)^import[ \\t]+([A-Z]\\w*)[ \\t]+from[ \\t]+['\"](\\.{1,2}/[^'\"]+\\.mdx?)['\"];?[ \\t]*$");
  private static final Pattern USE = Pattern.compile("^([ \\t]*)<([A-Z]\\w*)(?:[ \\t][^<>]*)?/>[ \\t]*$");
  private static final int MAX_DEPTH = 4;

  private DocusaurusPartials() {}

  /**
   * {@code markdown} with its imported partials' text where they are used.
   *
   * @param path the page's path below the folder read
   * @param load a file's text by its path below the folder; null when it is missing
   */
  static String expand(String markdown, String path, Function<String, String> load) {
    return expand(markdown, path, load, 0);
  }

  private static String expand(String markdown, String path, Function<String, String> load, int depth) {
    if (depth >= MAX_DEPTH || !markdown.contains("import ")) {
      return markdown;
    }
    Map<String, String> partials = new HashMap<>();
    Matcher imported = IMPORT.matcher(markdown);
    while (imported.find()) {
      partials.put(imported.group(1), FolderPath.below(FolderPath.folderOf(path), imported.group(2)));
    }
    if (partials.isEmpty()) {
      return markdown;
    }
    return CodeFences.mapOutside(markdown, line -> {
      Matcher use = USE.matcher(line);
      if (!use.matches() || !partials.containsKey(use.group(2))) {
        return line;
      }
      String file = partials.get(use.group(2));
      String text = file == null ? null : load.apply(file);
      if (text == null) {
        return "";
      }
      String body = MarkdownReader.withoutFrontMatter(text).strip();
      return "\n" + expand(body, file, load, depth + 1) + "\n";
    });
  }
}
