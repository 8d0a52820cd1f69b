package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * AsciiDoc's {@code include::file[]}: the page shows that file's text in its place, so it is read
 * there, and a file that another includes is a part of that page, not a page of its own (the
 * Vert.x manuals are one page assembled from many files). A target is relative to the including
 * file, or an Antora resource ({@code partial$setup.adoc}, {@code example$Main.java},
 * {@code ROOT:partial$x.adoc}) in the module's folder of that family. {@code tag=}/{@code tags=}
 * keep the tagged regions, {@code lines=} a range, {@code leveloffset=} moves the included
 * sections' levels; included files' own includes are read a few levels deep. A file missing or
 * outside the folder read gives nothing, as Asciidoctor leaves a warning there.
 */
final class AdocIncludes {

  private static final Pattern INCLUDE = Pattern.compile("^include::([^\\[]+)\\[(.*)]\\s*$");
  private static final Pattern TAG_MARKER = Pattern.compile("\\b(tag|end)::([\\w-]+)\\[]");
  private static final Pattern RESOURCE = Pattern.compile("^(?:([\\w-]+):)?(partial|example|page|attachment)\\$(.+)$");
  private static final Pattern SECTION = Pattern.compile("^(=+)([ \\t]+\\S.*)$");
  private static final int MAX_DEPTH = 4;

  private AdocIncludes() {}

  /** {@code adoc} (the page at {@code path}) with its includes replaced by the files' text. */
  static String expand(String adoc, String path, Function<String, String> load) {
    return expand(adoc, path, load, 0);
  }

  /** The files that the given pages include: parts of those pages, not pages of their own. */
  static Set<String> included(List<String> pages, Function<String, String> load) {
    Set<String> included = new HashSet<>();
    for (String page : pages) {
      String text = load.apply(page);
      if (text == null || !text.contains("include::")) {
        continue;
      }
      for (String line : text.split("\\R")) {
        Matcher include = INCLUDE.matcher(line.strip());
        if (include.matches()) {
          String target = resolve(include.group(1).strip(), page);
          if (target != null && !target.equals(page)) {
            included.add(target);
          }
        }
      }
    }
    return included;
  }

  private static String expand(String adoc, String path, Function<String, String> load, int depth) {
    if (depth >= MAX_DEPTH || !adoc.contains("include::")) {
      return adoc;
    }
    List<String> out = new ArrayList<>();
    boolean code = false; // inside a listing an included file is code: its own includes and sections stay as written
    for (String line : adoc.split("\\R", -1)) {
      String stripped = line.strip();
      if (stripped.equals("----") || stripped.equals("....")) {
        code = !code;
      }
      Matcher include = INCLUDE.matcher(stripped);
      String file = include.matches() ? resolve(include.group(1).strip(), path) : null;
      String text = file == null ? null : load.apply(file);
      if (!include.matches()) {
        out.add(line);
        continue;
      }
      if (text == null) {
        continue;
      }
      String options = include.group(2);
      text = tagged(text, option(options, "tags", option(options, "tag", null)));
      String lines = option(options, "lines", null);
      if (lines != null) {
        text = lines(text, lines);
      }
      text = TAG_MARKER.matcher(text).results().findAny().isPresent()
          ? String.join("\n", text.lines().filter(l -> !TAG_MARKER.matcher(l).find()).toList()) : text;
      if (!code) {
        text = expand(text, file, load, depth + 1);
        text = offset(text, option(options, "leveloffset", null));
      }
      out.addAll(List.of(text.split("\\R", -1)));
    }
    return String.join("\n", out);
  }

  /** A target's path below the folder read: relative to the including file, or an Antora resource of its module. */
  private static String resolve(String target, String path) {
    Matcher resource = RESOURCE.matcher(target);
    if (resource.matches()) {
      int modules = path.indexOf("modules/");
      if (modules < 0) {
        return null;
      }
      String base = path.substring(0, modules + "modules/".length());
      String rest = path.substring(base.length());
      String module = resource.group(1) != null ? resource.group(1) : rest.substring(0, Math.max(rest.indexOf('/'), 0));
      return module.isEmpty() ? null : FolderPath.below(base + module + "/" + resource.group(2) + "s/", resource.group(3));
    }
    if (target.contains("{") || target.contains("://")) {
      return null; // an attribute this reader does not know, or a remote file
    }
    return FolderPath.below(FolderPath.folderOf(path), target);
  }

  private static String option(String options, String name, String otherwise) {
    Matcher m = Pattern.compile("(?:^|,)\\s*" + name + "\\s*=\\s*\"?([^\",]*)\"?").matcher(options);
    return m.find() ? m.group(1).strip() : otherwise;
  }

  /** The lines between {@code tag::name[]} and {@code end::name[]} of the named tags; all when none is named. */
  private static String tagged(String text, String tags) {
    if (tags == null || tags.isEmpty() || tags.equals("**") || tags.equals("*")) {
      return text;
    }
    Set<String> wanted = Set.of(tags.split(";"));
    List<String> kept = new ArrayList<>();
    Set<String> open = new HashSet<>();
    for (String line : text.split("\\R", -1)) {
      Matcher marker = TAG_MARKER.matcher(line);
      if (marker.find()) {
        if (marker.group(1).equals("tag")) {
          open.add(marker.group(2));
        } else {
          open.remove(marker.group(2));
        }
        continue;
      }
      if (open.stream().anyMatch(wanted::contains)) {
        kept.add(line);
      }
    }
    return String.join("\n", kept);
  }

  private static String lines(String text, String ranges) {
    String[] all = text.split("\\R", -1);
    List<String> kept = new ArrayList<>();
    for (String range : ranges.split("[;,]")) {
      String[] ends = range.strip().split("\\.\\.");
      try {
        int from = Integer.parseInt(ends[0].strip());
        int to = ends.length > 1 ? (ends[1].strip().equals("-1") ? all.length : Integer.parseInt(ends[1].strip())) : from;
        for (int line = Math.max(from, 1); line <= Math.min(to, all.length); line++) {
          kept.add(all[line - 1]);
        }
      } catch (NumberFormatException e) {
        return text;
      }
    }
    return String.join("\n", kept);
  }

  /** The included sections moved by {@code leveloffset} (+1: a "== " becomes "=== "). */
  private static String offset(String text, String leveloffset) {
    if (leveloffset == null || leveloffset.isEmpty()) {
      return text;
    }
    int by;
    try {
      by = Integer.parseInt(leveloffset.replace("+", ""));
    } catch (NumberFormatException e) {
      return text;
    }
    List<String> out = new ArrayList<>();
    for (String line : text.split("\\R", -1)) {
      Matcher section = SECTION.matcher(line);
      out.add(section.matches() ? "=".repeat(Math.max(1, Math.min(6, section.group(1).length() + by))) + section.group(2)
          : line);
    }
    return String.join("\n", out);
  }
}
