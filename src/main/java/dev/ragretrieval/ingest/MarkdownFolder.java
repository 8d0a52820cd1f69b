package dev.ragretrieval.ingest;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads a folder of Markdown pages (a Docusaurus docs folder, a site generator's repository, or the
 * bundled book on the classpath) into pages. Blocking: call it on a worker thread.
 */
public final class MarkdownFolder {

  private MarkdownFolder() {}

  /**
   * Where a site generator's repository keeps the pages it publishes ({@code folders}; null: all of
   * it), the folder whose first subfolders are the chapters ({@code pagesRoot}), a file that is the
   * site's table of contents, not a page ({@code contents}, or null), and what ends a page's address
   * after its name ({@code pageSuffix}: "/", ".html" or nothing, as the generator's settings say;
   * null where {@link DocusaurusPath}'s rules apply), and for those the Docusaurus site's folders and
   * routes ({@code docusaurus}; its defaults for a plain folder, null for the other generators); for
   * a MyST project, each page's address ({@code addresses}: its site's are not the files' paths);
   * and the site's translations, not read ({@code languages}).
   */
  public record Layout(Generator generator, List<String> folders, String pagesRoot, String contents,
      String pageSuffix, DocusaurusSite docusaurus, Map<String, String> addresses, SiteLanguages languages) {
    /** A folder of pages, or a Docusaurus docs/ folder inside it. */
    static final Layout PLAIN = new Layout(null, null, "docs/", null, null, DocusaurusSite.DEFAULT);

    Layout(Generator generator, List<String> folders, String pagesRoot, String contents, String pageSuffix) {
      this(generator, folders, pagesRoot, contents, pageSuffix, null);
    }

    Layout(Generator generator, List<String> folders, String pagesRoot, String contents, String pageSuffix,
        DocusaurusSite docusaurus) {
      this(generator, folders, pagesRoot, contents, pageSuffix, docusaurus, null, SiteLanguages.NONE);
    }

    /** This layout with each page's address below the site given (a MyST project's, {@link MystProject}). */
    Layout withAddresses(Map<String, String> pageAddresses) {
      return new Layout(generator, folders, pagesRoot, contents, pageSuffix, docusaurus, Map.copyOf(pageAddresses),
          languages);
    }

    /** This layout with the site's translations, which are not read. */
    Layout withLanguages(SiteLanguages siteLanguages) {
      return new Layout(generator, folders, pagesRoot, contents, pageSuffix, docusaurus, addresses, siteLanguages);
    }

    /** The folder whose first subfolders are the chapters of the page at {@code path}: its docs instance's. */
    String pagesRootOf(String path) {
      DocusaurusSite.Route docs = docusaurus == null ? null : docusaurus.docsOf(path);
      return docs == null ? pagesRoot : docs.folder();
    }
  }

  /** The site generators whose repositories are recognised, by the name their users know. */
  public enum Generator {
    DOCUSAURUS("Docusaurus"), MKDOCS("MkDocs"), MDBOOK("mdBook"), STARLIGHT("Starlight"), VITEPRESS("VitePress"),
    HUGO("Hugo"), JUPYTER_BOOK("Jupyter Book"), QUARTO("Quarto"), MYST("MyST"), SPHINX("Sphinx"), ANTORA("Antora");

    private final String label;

    Generator(String label) {
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  private static final Pattern MKDOCS_DOCS_DIR = Pattern.compile("(?m)^docs_dir:[ \\t]*['\"]?([^'\"#\\s]+)");
  private static final Pattern MKDOCS_FILE_URLS = Pattern.compile("(?m)^use_directory_urls:[ \\t]*(false|no|off)\\b");
  private static final Pattern VITEPRESS_CLEAN_URLS = Pattern.compile("\\bcleanUrls['\"]?\\s*:\\s*true\\b");
  private static final Pattern DOCSIFY = Pattern.compile("\\$docsify\\b");
  private static final Pattern HUGO_CONTENT_DIR =
      Pattern.compile("(?m)^[ \\t]*['\"]?contentDir['\"]?[ \\t]*[=:][ \\t]*['\"]?([^'\"#\\s,]+)");
  private static final Pattern MYST_PROJECT = Pattern.compile("(?m)^project:");
  /** A Sphinx project's conf.py: it names its extensions, theme or project. */
  private static final Pattern SPHINX_CONF = Pattern.compile("(?m)^(?:extensions|html_theme|project|master_doc|root_doc)\\s*=");
  /** Sphinx reads Markdown and notebooks only through one of these extensions. */
  private static final Pattern SPHINX_MARKDOWN = Pattern.compile("\\b(?:myst_parser|myst_nb|recommonmark|nbsphinx)\\b");
  /** Read the Docs building with Sphinx's dirhtml builder: guide/setup/ rather than guide/setup.html. */
  private static final Pattern READTHEDOCS_DIRHTML = Pattern.compile("(?m)^[ \\t]*builder:[ \\t]*['\"]?dirhtml\\b");
  private static final Pattern SPHINX_EXCLUDE = Pattern.compile("(?ms)^exclude_patterns\\s*=\\s*\\[(.*?)]");
  /** Sphinx's source_suffix naming .txt (Django's manual): its .txt files are reStructuredText pages. */
  private static final Pattern SPHINX_TXT = Pattern.compile("(?m)^source_suffix\\s*=.*['\"]\\.txt['\"]");
  private static final Pattern ROOT_README = Pattern.compile("(?i)README\\.(?:md|rst|adoc|asciidoc)");
  private static final Pattern ANTORA_PAGE = Pattern.compile("modules/[^/]+/pages/");
  private static final Pattern QUOTED = Pattern.compile("['\"]([^'\"]+)['\"]");
  private static final Pattern MDBOOK_SRC = Pattern.compile("(?m)^[ \\t]*src[ \\t]*=[ \\t]*['\"]([^'\"]+)['\"]");

  /**
   * Every .md/.mdx file under {@code root} (.markdown, .qmd, .Rmd, .ipynb and .rst too, outside a
   * Docusaurus site), in path order, skipping hidden folders, node_modules, partials
   * ({@code _name.md}), the root README, and a Docusaurus site's i18n/ and versioned_docs/.
   * In a site generator's repository only what the site publishes is read, when there is any: not
   * the repository's specs, notes or change logs ({@link #layout}).
   */
  public static List<Page> read(Path root, String baseUrl) throws IOException {
    return site(root, baseUrl).pages();
  }

  /**
   * A folder's pages; the drafts among its files, which are not read; the generators' sites whose
   * published folders alone were read (their folders as seen from the given one; empty when the whole
   * folder was read); the page files beside what those sites publish, not read; a site's
   * translations, not read either: their folders, or their names ({@code *.fr.md}); and the files
   * read into pages as their parts (includes), as paths from the folder read.
   */
  public record Folder(List<Page> pages, List<String> drafts, List<Layout> readAs, List<String> leftOut,
      List<String> translations, Set<String> parts) {
    public Folder {
      readAs = List.copyOf(readAs);
      leftOut = List.copyOf(leftOut);
      translations = List.copyOf(translations);
      parts = Set.copyOf(parts);
    }
  }

  /**
   * As {@link #read(Path, String)}, but says which files were left out as drafts ({@code draft: true}
   * in the front matter): Docusaurus does not publish them, so an answer must not cite them.
   */
  public static Folder site(Path root, String baseUrl) throws IOException {
    Layout layout = layout(root);
    if (layout == Layout.PLAIN) {
      Folder nested = nestedSites(root, baseUrl);
      if (nested != null) {
        return nested;
      }
    }
    return siteAt(root, root, layout, baseUrl);
  }

  /**
   * The sites of generators in subfolders (two levels down at most) of a folder that is none itself:
   * a repository that keeps its book in book/ or website/ beside a backend, specs and notes. Each is
   * read as if it had been given, its paths prefixed with its folder; what lies outside them is not
   * read, and {@link Folder#leftOut} names it. Null when no such site holds a page.
   */
  private static Folder nestedSites(Path root, String baseUrl) throws IOException {
    Map<String, Layout> sites = new LinkedHashMap<>();
    findSites(root, root, 2, sites);
    if (sites.size() > 1 && baseUrl != null) {
      throw new ServiceException(ErrorCode.INVALID_REQUEST, "the folder holds " + sites.size() + " sites ("
          + String.join("/, ", sites.keySet()) + "/): ingest each of those folders with its own --base-url");
    }
    List<Page> pages = new ArrayList<>();
    List<String> drafts = new ArrayList<>();
    List<Layout> readAs = new ArrayList<>();
    List<String> read = new ArrayList<>();
    List<String> translations = new ArrayList<>();
    Set<String> parts = new HashSet<>();
    for (Map.Entry<String, Layout> entry : sites.entrySet()) {
      String site = entry.getKey();
      Layout layout = entry.getValue();
      DocusaurusSite outward = layout.docusaurus() != null && layout.docusaurus().reachesOut()
          ? layout.docusaurus().rebased(site) : null;
      if (outward != null) {
        // a site in website/ whose docs are ../docs (Docusaurus 1's layout, kept by many projects): read
        // from this folder, which holds both, with the site's folders given from here
        Layout here = new Layout(Generator.DOCUSAURUS, outward.folders(), outward.pagesRoot(), null, null, outward);
        Folder folder = siteAt(root, root, here, baseUrl);
        if (!folder.pages().isEmpty() && !folder.readAs().isEmpty()) {
          pages.addAll(folder.pages());
          drafts.addAll(folder.drafts());
          parts.addAll(folder.parts());
          translations.addAll(folder.translations());
          readAs.add(here);
          read.addAll(here.folders());
        }
        continue;
      }
      Folder folder = siteAt(root.resolve(site), root, layout, baseUrl);
      // a settings file whose site publishes no page (a template, a test fixture) is no site
      if (folder.pages().isEmpty() || layout.folders() != null && folder.readAs().isEmpty()) {
        continue;
      }
      String prefix = site + "/";
      for (Page page : folder.pages()) {
        pages.add(new Page(baseUrl == null ? prefix + page.sourceUrl() : page.sourceUrl(), prefix + page.documentId(),
            page.pageTitle(), page.chapter(), page.chapterLabel(), page.sourceType(), page.sections()));
      }
      folder.drafts().forEach(draft -> drafts.add(prefix + draft));
      // an include may reach above the site's folder (a Sphinx project's ../README.rst)
      folder.parts().stream().map(part -> FolderPath.reaching(prefix, part)).filter(Objects::nonNull).forEach(parts::add);
      folder.translations().forEach(translation -> translations.add(prefix + translation));
      List<String> published = layout.folders() == null ? List.of("") : layout.folders();
      List<String> prefixed = published.stream().map(f -> prefix + f).toList();
      readAs.add(new Layout(layout.generator(), prefixed, prefix + layout.pagesRoot(), null, layout.pageSuffix(),
          layout.docusaurus()));
      read.addAll(prefixed);
    }
    if (pages.isEmpty()) {
      return null;
    }
    List<String> leftOut = files(root).stream()
        .map(file -> relative(root, file))
        .filter(path -> isPage(path, true) && read.stream().noneMatch(path::startsWith) && !parts.contains(path))
        .sorted()
        .toList();
    return new Folder(pages, drafts, readAs, leftOut, translations, parts);
  }

  /** Adds the folders below {@code folder} (down to {@code depth} levels) that hold a generator's settings. */
  private static void findSites(Path root, Path folder, int depth, Map<String, Layout> sites) throws IOException {
    List<Path> children;
    try (Stream<Path> list = Files.list(folder)) {
      children = list.filter(Files::isDirectory).filter(dir -> !skipped(dir)).sorted().toList();
    }
    for (Path child : children) {
      Layout layout = layout(child);
      if (layout != Layout.PLAIN) {
        sites.put(relative(root, child), layout);
      } else if (depth > 1) {
        findSites(root, child, depth - 1, sites);
      }
    }
  }

  /** {@code path} below {@code root}, with forward slashes. */
  private static String relative(Path root, Path path) {
    return root.relativize(path).toString().replace('\\', '/');
  }

  /** The pages of the site at {@code root}; an include may read a file above it that is still below {@code given}. */
  private static Folder siteAt(Path root, Path given, Layout layout, String baseUrl) throws IOException {
    if (layout.generator() == Generator.MYST) {
      return mystProject(root, layout, baseUrl);
    }
    List<String> paths;
    // a Docsify site's README.md is its home page, not a description of the repository
    boolean docsify = docsify(root);
    boolean hugo = layout.generator() == Generator.HUGO;
    // Quarto leaves out files and folders whose name starts with '_' (its _site/ and _book/ output),
    // Jupyter Book its _build/ (copies of every notebook)
    // and Sphinx its _build/, _static/, _templates/ and the files it includes from _-named folders
    boolean underscoreFolders = layout.generator() == Generator.QUARTO || layout.generator() == Generator.JUPYTER_BOOK
        || layout.generator() == Generator.SPHINX;
    // Docusaurus publishes .md and .mdx only; MkDocs, Hugo and Jekyll read .markdown too, Quarto .qmd and .ipynb
    boolean markdownSuffix = layout.generator() != Generator.DOCUSAURUS;
    // which files the generator makes pages of: Sphinx its source suffixes, Antora its modules' pages/ folders
    String sphinxConf = layout.generator() == Generator.SPHINX ? text(root.resolve("conf.py")) : "";
    Predicate<String> generatorPage = generatorPages(sphinxConf, layout);
    boolean sphinxText = SPHINX_TXT.matcher(sphinxConf).find();
    paths = files(root).stream()
        .map(file -> relative(root, file))
        .filter(path -> isPage(path, markdownSuffix) || docsify && path.equals("README.md")
            || sphinxText && path.endsWith(".txt") && isPage(path.substring(0, path.length() - 4) + ".rst", true)
            // a Hugo section's _index.md is its page, not a partial
            || hugo && path.endsWith("_index.md") && isPage(path.replace("_index.md", "index.md"), true))
        .filter(path -> !underscoreFolders || !path.startsWith("_") && !path.contains("/_"))
        .filter(generatorPage)
        .sorted()
        .toList();
    // a site's translations repeat its pages in other languages (as Docusaurus' i18n/)
    SiteLanguages languages = layout.languages();
    paths = paths.stream().filter(path -> !languages.isTranslation(path)).toList();
    List<String> translations = languages.named();
    List<Layout> readAs = List.of();
    List<String> leftOut = List.of();
    if (layout.folders() != null) {
      List<String> published = paths.stream()
          .filter(path -> layout.folders().stream().anyMatch(path::startsWith) && !path.equals(layout.contents()))
          .toList();
      if (!published.isEmpty()) {
        readAs = List.of(layout);
        Set<String> kept = new HashSet<>(published);
        leftOut = paths.stream().filter(path -> !kept.contains(path) && !path.equals(layout.contents())).toList();
        paths = published;
      }
    }
    Folder folder = collect(paths, layout, loader(root, given), baseUrl);
    return new Folder(folder.pages(), folder.drafts(), readAs, leftOut, translations, folder.parts());
  }

  /**
   * Which files a Sphinx project (its conf.py's text) reads: its .rst pages, its .md and .ipynb ones only with
   * myst_parser, MyST-NB or nbsphinx among its extensions, none that its {@code exclude_patterns}
   * match; an Antora component: its modules' AsciiDoc pages; Hugo and a plain folder: every page
   * file; the other generators: no AsciiDoc, and reStructuredText only in Jupyter Book 1.
   */
  private static Predicate<String> generatorPages(String sphinxConf, Layout layout) {
    if (layout.generator() == Generator.ANTORA) {
      // Antora publishes modules/<module>/pages/*.adoc; partials, examples and nav files are parts of pages
      return path -> ANTORA_PAGE.matcher(path).lookingAt() && MarkdownReader.isAsciiDoc(path);
    }
    if (layout.generator() == Generator.HUGO || layout.generator() == null) {
      return path -> true; // Hugo renders AsciiDoc and reStructuredText pages too; a plain folder is read whole
    }
    if (layout.generator() != Generator.SPHINX) {
      // the other generators publish Markdown (Jupyter Book 1, through Sphinx, reStructuredText too)
      boolean rst = layout.generator() == Generator.JUPYTER_BOOK;
      return path -> !MarkdownReader.isAsciiDoc(path) && (rst || !path.toLowerCase(Locale.ROOT).endsWith(".rst"));
    }
    boolean markdown = SPHINX_MARKDOWN.matcher(sphinxConf).find();
    List<PathMatcher> excluded = new ArrayList<>();
    Matcher patterns = SPHINX_EXCLUDE.matcher(sphinxConf);
    if (patterns.find()) {
      Matcher quoted = QUOTED.matcher(patterns.group(1));
      while (quoted.find()) {
        try {
          excluded.add(FileSystems.getDefault().getPathMatcher("glob:" + quoted.group(1)));
        } catch (IllegalArgumentException e) {
          // a pattern Java's globs cannot read excludes nothing
        }
      }
    }
    return path -> (markdown || path.toLowerCase(Locale.ROOT).endsWith(".rst") || path.endsWith(".txt"))
        && excluded.stream().noneMatch(glob -> glob.matches(Path.of(path))
            || glob.matches(Path.of(MarkdownReader.withoutExtension(path))));
  }

  /**
   * A MyST project's pages: those its {@code myst.yml} publishes ({@link MystProject}), of the .md and
   * .ipynb files outside its {@code _build/} output and any project of its own in a subfolder.
   */
  private static Folder mystProject(Path root, Layout layout, String baseUrl) throws IOException {
    Set<String> nested = new HashSet<>();
    List<String> files = new ArrayList<>();
    for (Path file : files(root)) {
      String path = relative(root, file);
      if (path.endsWith("/myst.yml")) {
        nested.add(FolderPath.folderOf(path));
      }
      String lower = path.toLowerCase(Locale.ROOT);
      if ((lower.endsWith(".md") || lower.endsWith(".ipynb")) && !("/" + path).contains("/_build/")) {
        files.add(path);
      }
    }
    files.removeIf(path -> nested.stream().anyMatch(path::startsWith));
    Map<String, String> addresses = MystProject.pages(readText(root.resolve("myst.yml"), "myst.yml"), files);
    Layout site = layout.withAddresses(addresses);
    Folder folder = collect(List.copyOf(addresses.keySet()), site, loader(root, root), baseUrl);
    List<String> leftOut = files.stream().filter(path -> !addresses.containsKey(path)).sorted().toList();
    return new Folder(folder.pages(), folder.drafts(), List.of(site), leftOut, List.of(), folder.parts());
  }

  /**
   * A file's text by its path from {@code root} ("../x" may reach above it, not above {@code bound},
   * the folder given); null when there is no such file.
   */
  private static Function<String, String> loader(Path root, Path bound) {
    Path limit = bound.toAbsolutePath().normalize();
    return relative -> {
      Path file = root.resolve(relative).toAbsolutePath().normalize();
      if (!file.startsWith(limit) || !Files.isRegularFile(file)) {
        return null;
      }
      try {
        return readText(file, relative);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
  }

  /**
   * Every file under {@code root}. Hidden folders, node_modules and Python virtual environments are
   * not entered ({@link #skipped}: a site's repository holds tens of thousands of files there, none
   * of them a page); linked folders are, as the generators follow them, but not a link back to a
   * folder above (walked already).
   */
  static List<Path> files(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    Files.walkFileTree(root, EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        return !dir.equals(root) && skipped(dir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (attrs.isRegularFile()) {
          files.add(file);
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof FileSystemLoopException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }
    });
    return files;
  }

  /** A hidden folder, node_modules or a Python virtual environment (its packages ship Markdown files). */
  private static boolean skipped(Path dir) {
    String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
    return name.startsWith(".") || name.equals("node_modules") || Files.isRegularFile(dir.resolve("pyvenv.cfg"));
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
    return collect(paths, Layout.PLAIN, load, baseUrl).pages();
  }

  private static Folder collect(List<String> paths, Layout layout, Function<String, String> files, String baseUrl) {
    // each file read once: the references' and the includes' passes below read pages the loop reads again
    Map<String, Optional<String>> read = new HashMap<>();
    Function<String, String> load =
        path -> read.computeIfAbsent(path, p -> Optional.ofNullable(files.apply(p))).orElse(null);
    Map<String, String> labels = new HashMap<>();
    List<Page> pages = new ArrayList<>();
    List<String> drafts = new ArrayList<>();
    // reStructuredText's untitled references show their target's title, from any page of the folder
    RstReferences references = new RstReferences();
    for (String path : paths) {
      String text = MarkdownReader.isRestructuredText(path, layout) ? quietly(load).apply(path) : null;
      if (text != null) {
        references.add(path, text);
      }
    }
    // an AsciiDoc file that another includes is part of that page, not a page of its own
    Set<String> parts = AdocIncludes.included(paths.stream().filter(MarkdownReader::isAsciiDoc).toList(), quietly(load));
    for (String path : paths) {
      if (parts.contains(path)) {
        continue;
      }
      String text = load.apply(path);
      if (text == null) {
        throw new UncheckedIOException(new IOException("cannot read " + path));
      }
      if (MarkdownReader.isDraft(text)) {
        drafts.add(path);
        continue;
      }
      if (layout.generator() == null || layout.generator() == Generator.DOCUSAURUS) {
        text = DocusaurusPartials.expand(text, path, quietly(load));
      }
      if (MarkdownReader.isAsciiDoc(path)) {
        text = AdocIncludes.expand(text, path, quietly(load));
      } else if (MarkdownReader.isRestructuredText(path, layout)) {
        text = references.resolve(RstIncludes.expand(text, path, quietly(load)), path);
      } else if (layout.generator() == null || layout.generator() == Generator.MDBOOK) {
        text = MdBookIncludes.expand(text, path, quietly(load));
      } else if (layout.generator() == Generator.VITEPRESS) {
        text = VitePressSnippets.expand(text, path, layout.pagesRoot(), quietly(load));
      }
      String chapter = MarkdownReader.chapterOf(MarkdownReader.withoutExtension(path), layout.pagesRootOf(path));
      String label = chapter == null ? null
          : labels.computeIfAbsent(chapterDir(path, layout.pagesRootOf(path)), dir -> label(dir, load));
      pages.add(MarkdownReader.read(path, text, label, baseUrl, layout));
    }
    // the files read as parts of pages: what the loader was asked for and found, beyond the pages
    Set<String> pageFiles = new HashSet<>(paths);
    Set<String> included = new HashSet<>();
    read.forEach((path, text) -> {
      if (text.isPresent() && !pageFiles.contains(path)) {
        included.add(path);
      }
    });
    return new Folder(pages, drafts, List.of(), List.of(), List.of(), included);
  }

  /**
   * What the generator whose settings sit at {@code root} publishes: Docusaurus its docs/, blog/ and
   * src/pages/; MkDocs its {@code docs_dir} (docs/); mdBook its {@code src} (src/), whose SUMMARY.md
   * is the book's table of contents; Starlight src/content/docs/; VitePress the folder that holds
   * its .vitepress/ settings; Quarto, MyST (its pages {@link MystProject}'s) and Jupyter Book the
   * whole folder; Hugo its {@code contentDir}. The translations in their settings
   * ({@link SiteLanguages}) are not read. Anything else is a plain folder of pages.
   */
  static Layout layout(Path root) {
    Path docusaurus = config(root, "docusaurus.config.");
    if (docusaurus != null) {
      DocusaurusSite site = DocusaurusSite.DEFAULT;
      try {
        site = DocusaurusSite.of(Files.readString(docusaurus));
      } catch (IOException e) {
        // unreadable settings: Docusaurus' defaults
      }
      return new Layout(Generator.DOCUSAURUS, site.folders(), site.pagesRoot(), null, null, site);
    }
    for (String name : new String[] {"mkdocs.yml", "mkdocs.yaml"}) {
      if (Files.isRegularFile(root.resolve(name))) {
        String settings = text(root.resolve(name));
        String docs = setting(settings, MKDOCS_DOCS_DIR, "docs");
        String suffix = MKDOCS_FILE_URLS.matcher(settings).find() ? ".html" : "/";
        SiteLanguages languages = SiteLanguages.mkdocs(settings, docs);
        // with mkdocs-static-i18n's folders, the default language's folder is the site's root
        return new Layout(Generator.MKDOCS, List.of(docs), Objects.requireNonNullElse(languages.home(), docs), null,
            suffix).withLanguages(languages);
      }
    }
    if (Files.isRegularFile(root.resolve("book.toml"))) {
      String src = setting(text(root.resolve("book.toml")), MDBOOK_SRC, "src");
      return new Layout(Generator.MDBOOK, List.of(src), src, src + "SUMMARY.md", ".html");
    }
    Path astro = config(root, "astro.config.");
    if (astro != null && Files.isDirectory(root.resolve("src/content/docs"))) {
      return new Layout(Generator.STARLIGHT, List.of("src/content/docs/"), "src/content/docs/", null, "/")
          .withLanguages(SiteLanguages.locales(text(astro), "src/content/docs/"));
    }
    if (Files.isRegularFile(root.resolve("_quarto.yml")) || Files.isRegularFile(root.resolve("_quarto.yaml"))) {
      return new Layout(Generator.QUARTO, List.of(""), "", null, ".html");
    }
    // Jupyter Book 2 is a MyST project: its myst.yml, not Jupyter Book 1's _toc.yml, says what it publishes
    if (Files.isRegularFile(root.resolve("myst.yml")) && says(root.resolve("myst.yml"), MYST_PROJECT)) {
      return new Layout(Generator.MYST, List.of(""), "", null, "");
    }
    if (Files.isRegularFile(root.resolve("_toc.yml")) && Files.isRegularFile(root.resolve("_config.yml"))) {
      return new Layout(Generator.JUPYTER_BOOK, List.of(""), "", null, ".html");
    }
    if (Files.isRegularFile(root.resolve("antora.yml")) && Files.isDirectory(root.resolve("modules"))) {
      // an Antora component: its modules' pages/ folders, the ROOT module's pages at the component's root
      return new Layout(Generator.ANTORA, List.of("modules/"), "modules/ROOT/pages/", null, ".html");
    }
    if (Files.isRegularFile(root.resolve("conf.py")) && says(root.resolve("conf.py"), SPHINX_CONF)) {
      // Read the Docs' settings sit at the repository's root, one or two folders above the project's
      boolean dirhtml = Stream.of(".", "..", "../..").flatMap(up -> Stream.of(".readthedocs.yaml", ".readthedocs.yml")
          .map(name -> root.resolve(up).resolve(name))).filter(Files::isRegularFile).findFirst()
          .map(file -> says(file, READTHEDOCS_DIRHTML)).orElse(false);
      return new Layout(Generator.SPHINX, List.of(""), "", null, dirhtml ? "/" : ".html");
    }
    Path hugo = hugoConfig(root);
    if (hugo != null) {
      String settings = text(hugo);
      SiteLanguages languages = SiteLanguages.hugo(settings, hugo.getFileName().toString().endsWith(".toml"));
      // a language with its own contentDir: the default language's is the one read
      String content = Objects.requireNonNullElse(languages.home(), setting(settings, HUGO_CONTENT_DIR, "content"));
      return new Layout(Generator.HUGO, List.of(content), content, null, "/").withLanguages(languages);
    }
    for (String folder : new String[] {"", "docs/"}) {
      Path config = config(root.resolve(folder + ".vitepress"), "config.");
      if (config != null) {
        // cleanUrls: true serves guide/setup.md at guide/setup, not guide/setup.html
        String suffix = says(config, VITEPRESS_CLEAN_URLS) ? "" : ".html";
        return new Layout(Generator.VITEPRESS, folder.isEmpty() ? null : List.of(folder), folder, null, suffix)
            .withLanguages(SiteLanguages.locales(text(config), folder));
      }
    }
    return Layout.PLAIN;
  }

  /**
   * A Hugo site's settings: {@code hugo.toml} (or .yaml, .json), or the older {@code config.toml}
   * (.yaml) beside a {@code content/} folder and Hugo's {@code layouts/}, {@code themes/} or
   * {@code archetypes/}; null when there is none.
   */
  private static Path hugoConfig(Path root) {
    for (String ext : new String[] {"toml", "yaml", "yml", "json"}) {
      if (Files.isRegularFile(root.resolve("hugo." + ext))) {
        return root.resolve("hugo." + ext);
      }
    }
    boolean hugoFolders = Files.isDirectory(root.resolve("content")) && Stream.of("layouts", "themes", "archetypes")
        .anyMatch(folder -> Files.isDirectory(root.resolve(folder)));
    for (String ext : new String[] {"toml", "yaml", "yml"}) {
      if (hugoFolders && Files.isRegularFile(root.resolve("config." + ext))) {
        return root.resolve("config." + ext);
      }
    }
    return null;
  }

  /** The generator's settings file {@code <prefix><js|ts|mjs|cjs|mts>} in {@code folder}, or null. */
  private static Path config(Path folder, String prefix) {
    return Stream.of("js", "ts", "mjs", "cjs", "mts").map(ext -> folder.resolve(prefix + ext))
        .filter(Files::isRegularFile).findFirst().orElse(null);
  }

  /** Whether {@code root} is a Docsify site: its index.html a shell that renders the folder's Markdown in the browser. */
  static boolean docsify(Path root) {
    return says(root.resolve("index.html"), DOCSIFY);
  }

  /** Whether a settings file turns on what {@code pattern} finds; false when it cannot be read. */
  private static boolean says(Path file, Pattern pattern) {
    return pattern.matcher(text(file)).find();
  }

  /** A settings file's text; "" when it cannot be read (the generator's defaults then apply). */
  private static String text(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** A folder named in a settings file's text, as "name/"; {@code otherwise} when it names none. */
  private static String setting(String settings, Pattern pattern, String otherwise) {
    Matcher matcher = pattern.matcher(settings);
    String folder = matcher.find() ? matcher.group(1) : otherwise;
    folder = folder.replace('\\', '/').replaceFirst("^\\./", "").replaceAll("/+$", "");
    return folder.isEmpty() || folder.equals(".") ? "" : folder + "/";
  }

  private static boolean isPage(String relative, boolean markdownSuffix) {
    // Docusaurus reads .md and .mdx exactly; the others (MarkdownReader's rule) the rest too, in any case
    boolean markdown = markdownSuffix ? MarkdownReader.isMarkdownFile(relative)
        : relative.endsWith(".md") || relative.endsWith(".mdx");
    if (!markdown) {
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
    return !name.startsWith("_") && !ROOT_README.matcher(relative).matches();
  }

  /** {@code load} with a file it cannot read as text (not UTF-8) as missing: an included listing, not a page. */
  private static Function<String, String> quietly(Function<String, String> load) {
    return path -> {
      try {
        return load.apply(path);
      } catch (ServiceException | UncheckedIOException e) {
        return null;
      }
    };
  }

  /** The chapter's folder: the first folder below the pages root. */
  private static String chapterDir(String path, String pagesRoot) {
    String below = !pagesRoot.isEmpty() && path.startsWith(pagesRoot) ? path.substring(pagesRoot.length()) : path;
    return path.substring(0, path.length() - below.length()) + below.substring(0, below.indexOf('/'));
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
