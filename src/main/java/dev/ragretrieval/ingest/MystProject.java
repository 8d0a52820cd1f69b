package dev.ragretrieval.ingest;

import java.math.BigInteger;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * The pages of a MyST project (mystmd, and Jupyter Book 2, which is built on it) and where its site
 * serves each, from the project's {@code myst.yml}. With a {@code toc}, the site publishes the files
 * it lists ({@code file}, with or without its extension, and {@code pattern} globs) in that order,
 * the first being the home page; without one, every .md and .ipynb file but {@code exclude}'s,
 * folder by folder, with {@code index}, {@code readme} or {@code main} at the top as the home page.
 * A page's address is a slug of its file name alone (folders are not part of it unless
 * {@code site.options.folders} is on): the leading number dropped ({@code 01_intro} is
 * {@code intro}, a year kept), lower case, anything but letters, digits and '-' as one '-', at most
 * 50 characters; a slug already taken gets {@code -1}, {@code -2}. Checked against mystmd 1.8's
 * build ({@code MarkdownFolderTest}).
 */
final class MystProject {

  private static final Pattern YEAR_OR_LONG_NUMBER = Pattern.compile("^(?:[12][0-9]{3}|[0-9]{5}).*");
  private static final Pattern LEADING_NUMBER = Pattern.compile("^[0-9_.-]+");
  private static final List<String> INDEX_NAMES = List.of("index", "readme", "main");
  private static final List<String> EXTENSIONS = List.of(".md", ".ipynb");

  private MystProject() {}

  /** Whether {@code myst.yml}'s text describes a project (a {@code project:} key), not only a site. */
  static boolean isProject(String mystYml) {
    return settings(mystYml).get("project") instanceof Map<?, ?>;
  }

  /**
   * The pages the site publishes, in its order, each with its address below the site ("" for the
   * home page).
   *
   * @param mystYml the project's settings
   * @param files the .md and .ipynb files below the project's folder (relative paths, '/' separated)
   */
  static Map<String, String> pages(String mystYml, List<String> files) {
    Map<?, ?> settings = settings(mystYml);
    Map<?, ?> project = settings.get("project") instanceof Map<?, ?> map ? map : Map.of();
    boolean folders = settings.get("site") instanceof Map<?, ?> site && site.get("options") instanceof Map<?, ?> options
        && Boolean.TRUE.equals(options.get("folders"));
    Set<String> excluded = new HashSet<>();
    if (project.get("exclude") instanceof List<?> patterns) {
      for (Object pattern : patterns) {
        if (pattern instanceof String glob) {
          excluded.addAll(matching(glob, files));
        }
      }
    }
    List<String> candidates = files.stream().filter(file -> !excluded.contains(file)).sorted(MystProject::compare).toList();
    List<String> ordered = new ArrayList<>();
    Map<String, Integer> taken = new HashMap<>();
    if (project.get("toc") instanceof List<?> toc && !toc.isEmpty()) {
      taken.put("index", 1); // a toc's first page is "index", whatever its name
      Set<String> explicit = new HashSet<>();
      explicitFiles(toc, candidates, explicit);
      inTocOrder(toc, candidates, explicit, ordered);
    } else {
      ordered.addAll(inFolderOrder(candidates));
      String index = index(ordered);
      if (index != null) {
        ordered.remove(index);
        ordered.add(0, index);
      }
    }
    Map<String, String> addresses = new LinkedHashMap<>();
    for (String file : ordered) {
      if (addresses.containsKey(file)) {
        continue;
      }
      if (addresses.isEmpty() && taken.containsKey("index")) {
        addresses.put(file, "");
        continue;
      }
      String slug = slug(file, folders, taken);
      // without a toc the home page's own slug counts against later pages; it is served at the site's root
      addresses.put(file, addresses.isEmpty() ? "" : slug.replace('.', '/').replaceFirst("/index$", ""));
    }
    return addresses;
  }

  /** The files a toc names explicitly: a pattern matches only the others. */
  private static void explicitFiles(List<?> entries, List<String> candidates, Set<String> explicit) {
    for (Object entry : entries) {
      if (entry instanceof Map<?, ?> map) {
        if (map.get("file") instanceof String file) {
          String found = resolve(file, candidates);
          if (found != null) {
            explicit.add(found);
          }
        }
        if (map.get("children") instanceof List<?> children) {
          explicitFiles(children, candidates, explicit);
        }
      }
    }
  }

  /** The toc's files and its patterns' matches, depth first, as the site lists its pages. */
  private static void inTocOrder(List<?> entries, List<String> candidates, Set<String> explicit, List<String> ordered) {
    for (Object entry : entries) {
      if (!(entry instanceof Map<?, ?> map)) {
        continue;
      }
      if (map.get("file") instanceof String file) {
        String found = resolve(file, candidates);
        if (found != null) {
          ordered.add(found);
        }
      } else if (map.get("pattern") instanceof String pattern) {
        List<String> matches = new ArrayList<>(matching(pattern, candidates).stream()
            .filter(path -> !explicit.contains(path)).sorted(MystProject::compare).toList());
        if ("descending".equals(map.get("sort"))) {
          Collections.reverse(matches);
        }
        ordered.addAll(matches);
      }
      if (map.get("children") instanceof List<?> children) {
        inTocOrder(children, candidates, explicit, ordered);
      }
    }
  }

  /** A toc's file among the candidates: as written, or with .md or .ipynb added. */
  private static String resolve(String file, List<String> candidates) {
    String path = FolderPath.below("", file.strip().replace('\\', '/'));
    if (path == null) {
      return null;
    }
    if (candidates.contains(path)) {
      return path;
    }
    for (String extension : EXTENSIONS) {
      if (candidates.contains(path + extension)) {
        return path + extension;
      }
    }
    return null;
  }

  private static List<String> matching(String glob, List<String> files) {
    PathMatcher matcher;
    try {
      matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob.strip().replaceFirst("^\\./", ""));
    } catch (IllegalArgumentException e) {
      return List.of(); // a pattern Java's globs cannot read matches nothing
    }
    return files.stream().filter(file -> matcher.matches(Path.of(file))).toList();
  }

  /** mystmd's walk without a toc: each folder's files (its index first), then its subfolders. */
  private static List<String> inFolderOrder(List<String> files) {
    return files.stream().sorted(Comparator.comparing((String file) -> FolderPath.folderOf(file), MystProject::compareFolders)
        .thenComparing(MystProject::compare)).toList();
  }

  /** A folder's files come before its subfolders'. */
  private static int compareFolders(String a, String b) {
    if (a.equals(b)) {
      return 0;
    }
    if (b.startsWith(a)) {
      return -1;
    }
    if (a.startsWith(b)) {
      return 1;
    }
    return compare(a, b);
  }

  /** The home page without a toc: index, readme or main at the top (.md first), else the first .md. */
  private static String index(List<String> files) {
    for (String extension : EXTENSIONS) {
      for (String name : INDEX_NAMES) {
        for (String file : files) {
          if (file.toLowerCase(Locale.ROOT).equals(name + extension)) {
            return file;
          }
        }
      }
    }
    for (String extension : EXTENSIONS) {
      for (String file : files) {
        if (file.endsWith(extension)) {
          return file;
        }
      }
    }
    return null;
  }

  /** The page's slug, numbered when another page has it already. */
  private static String slug(String file, boolean folders, Map<String, Integer> taken) {
    String name = file.substring(file.lastIndexOf('/') + 1);
    name = name.substring(0, name.lastIndexOf('.'));
    String slug = slugOf(name);
    if (folders) {
      List<String> parts = new ArrayList<>();
      for (String folder : FolderPath.folderOf(file).split("/")) {
        if (!folder.isEmpty()) {
          parts.add(slugOf(folder));
        }
      }
      parts.add(slug);
      slug = String.join(".", parts);
    }
    boolean folderIndex = slug.endsWith(".index");
    String key = folderIndex ? slug.substring(0, slug.length() - ".index".length()) : slug;
    int seen = taken.merge(key, 1, Integer::sum);
    return seen == 1 ? slug : key + "-" + (seen - 1) + (folderIndex ? ".index" : "");
  }

  /** mystmd's slug of a file or folder name. */
  static String slugOf(String name) {
    String words = name;
    if (!YEAR_OR_LONG_NUMBER.matcher(name).matches()) {
      String removed = LEADING_NUMBER.matcher(name).replaceFirst("");
      words = removed.isEmpty() ? name : removed;
    }
    String slug = words.replace("&", "-and-").toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-")
        .replaceAll("-+", "-").replaceAll("^-|-$", "");
    return slug.length() > 50 ? slug.substring(0, 50) : slug;
  }

  /** Natural order, as mystmd sorts: digits by value, case and punctuation aside. */
  private static int compare(String a, String b) {
    String x = a.toLowerCase(Locale.ROOT);
    String y = b.toLowerCase(Locale.ROOT);
    int i = 0;
    int j = 0;
    while (i < x.length() && j < y.length()) {
      char c = x.charAt(i);
      char d = y.charAt(j);
      if (Character.isDigit(c) && Character.isDigit(d)) {
        int endI = i;
        while (endI < x.length() && Character.isDigit(x.charAt(endI))) {
          endI++;
        }
        int endJ = j;
        while (endJ < y.length() && Character.isDigit(y.charAt(endJ))) {
          endJ++;
        }
        int byValue = new BigInteger(x.substring(i, endI)).compareTo(new BigInteger(y.substring(j, endJ)));
        if (byValue != 0) {
          return byValue;
        }
        i = endI;
        j = endJ;
      } else if (c != d) {
        return Character.compare(c, d);
      } else {
        i++;
        j++;
      }
    }
    return Integer.compare(x.length() - i, y.length() - j);
  }

  private static Map<?, ?> settings(String mystYml) {
    try {
      return new Yaml(new SafeConstructor(new LoaderOptions())).load(mystYml) instanceof Map<?, ?> map ? map : Map.of();
    } catch (YAMLException e) {
      return Map.of(); // unreadable settings: no toc, every file
    }
  }
}
