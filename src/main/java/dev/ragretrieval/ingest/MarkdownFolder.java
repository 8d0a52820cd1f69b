package dev.ragretrieval.ingest;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads a Docusaurus-style docs folder (or the bundled book on the classpath) into pages. Blocking:
 * call it on a worker thread.
 */
public final class MarkdownFolder {

  private MarkdownFolder() {}

  /** What Docusaurus publishes of a site's repository: its docs, its blog and its Markdown pages. */
  private static final List<String> SITE_FOLDERS = List.of("docs/", "blog/", "src/pages/");

  /**
   * Every .md/.mdx file under {@code root}, in path order, skipping hidden folders, node_modules,
   * partials ({@code _name.md}), the root README, and a Docusaurus site's i18n/ and versioned_docs/.
   * In a Docusaurus site's repository (a {@code docusaurus.config.*} at the root) only what the site
   * publishes is read, when there is any: not the repository's specs, notes or change logs.
   */
  public static List<Page> read(Path root, String baseUrl) throws IOException {
    return site(root, baseUrl).pages();
  }

  /** A folder's pages, and the drafts among its files, which are not read. */
  public record Folder(List<Page> pages, List<String> drafts) {}

  /**
   * As {@link #read(Path, String)}, but says which files were left out as drafts ({@code draft: true}
   * in the front matter): Docusaurus does not publish them, so an answer must not cite them.
   */
  public static Folder site(Path root, String baseUrl) throws IOException {
    List<String> paths;
    try (Stream<Path> files = Files.walk(root)) {
      paths = files.filter(Files::isRegularFile)
          .map(file -> root.relativize(file).toString().replace('\\', '/'))
          .filter(MarkdownFolder::isPage)
          .sorted()
          .toList();
    }
    if (isDocusaurusSite(root)) {
      List<String> published = paths.stream().filter(path -> SITE_FOLDERS.stream().anyMatch(path::startsWith)).toList();
      paths = published.isEmpty() ? paths : published;
    }
    return collect(paths, relative -> {
      Path file = root.resolve(relative);
      if (!Files.isRegularFile(file)) {
        return null;
      }
      try {
        return readText(file, relative);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, baseUrl);
  }

  /**
   * A page file's text. A file that is not UTF-8 (another encoding, or binary data named .md) stops
   * the run before anything is written, naming the file ({@code shown}), instead of the decoder's
   * bare "Input length = N".
   */
  public static String readText(Path file, String shown) throws IOException {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (CharacterCodingException e) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST,
          shown + " is not UTF-8 text: save it as UTF-8, or move it out of the folder");
    }
  }

  /**
   * Reads the given page paths through {@code load} (relative path -> text, null when missing);
   * {@code _category_.json} labels are looked up the same way.
   */
  public static List<Page> read(List<String> paths, Function<String, String> load, String baseUrl) {
    return collect(paths, load, baseUrl).pages();
  }

  private static Folder collect(List<String> paths, Function<String, String> load, String baseUrl) {
    Map<String, String> labels = new HashMap<>();
    List<Page> pages = new ArrayList<>();
    List<String> drafts = new ArrayList<>();
    for (String path : paths) {
      String text = load.apply(path);
      if (text == null) {
        throw new UncheckedIOException(new IOException("cannot read " + path));
      }
      if (MarkdownReader.isDraft(text)) {
        drafts.add(path);
        continue;
      }
      String chapter = MarkdownReader.chapterOf(path.replaceFirst("\\.mdx?$", ""));
      String label = chapter == null ? null
          : labels.computeIfAbsent(chapterDir(path), dir -> label(dir, load));
      pages.add(MarkdownReader.read(path, text, label, baseUrl));
    }
    return new Folder(pages, drafts);
  }

  private static boolean isDocusaurusSite(Path root) {
    return Stream.of("js", "ts", "mjs", "cjs", "mts").anyMatch(ext -> Files.isRegularFile(root.resolve("docusaurus.config." + ext)));
  }

  private static boolean isPage(String relative) {
    if (!relative.endsWith(".md") && !relative.endsWith(".mdx")) {
      return false;
    }
    for (String part : relative.split("/")) {
      if (part.startsWith(".") || part.equals("node_modules")) {
        return false;
      }
    }
    // a Docusaurus site's translations and older versions repeat its docs (other languages, old text)
    if (relative.startsWith("i18n/") || relative.startsWith("versioned_docs/")) {
      return false;
    }
    String name = relative.substring(relative.lastIndexOf('/') + 1);
    // the root README describes the repository, not a page of the book
    return !name.startsWith("_") && !relative.equalsIgnoreCase("README.md");
  }

  private static String chapterDir(String path) {
    String[] parts = path.split("/");
    int at = parts[0].equals("docs") ? 1 : 0;
    return String.join("/", java.util.Arrays.copyOfRange(parts, 0, at + 1));
  }

  /** The category's label from its {@code _category_.json}, or {@code _category_.yml}/{@code .yaml}, as Docusaurus reads either. */
  private static String label(String dir, Function<String, String> load) {
    String json = load.apply(dir + "/_category_.json");
    if (json != null) {
      try {
        return label(new JsonObject(json).getValue("label"));
      } catch (DecodeException e) {
        return null; // a broken _category_.json only loses the label
      }
    }
    for (String name : new String[] {"/_category_.yml", "/_category_.yaml"}) {
      String yaml = load.apply(dir + name);
      if (yaml != null) {
        try {
          return new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml) instanceof Map<?, ?> map ? label(map.get("label")) : null;
        } catch (YAMLException e) {
          return null;
        }
      }
    }
    return null;
  }

  private static String label(Object value) {
    return value instanceof String label && !label.isBlank() ? label.strip() : null;
  }
}
