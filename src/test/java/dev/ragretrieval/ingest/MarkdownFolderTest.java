package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.ragretrieval.error.ErrorCode;
import dev.ragretrieval.error.ServiceException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MarkdownFolderTest {

  @TempDir
  Path root;

  @Test
  @DisplayName("a .md file that is not UTF-8 stops the read with a one-line error naming it, not the decoder's message")
  void notUtf8IsNamed() throws Exception {
    Files.createDirectories(root.resolve("docs/module-1"));
    Files.writeString(root.resolve("docs/module-1/fine.md"), "# Fine\n\nZero moment point walking.\n");
    // Latin-1 bytes of "Café" and a stray byte: what a file saved in another encoding, or binary data, looks like
    Files.write(root.resolve("docs/module-1/latin1.md"), "# Caf\u00e9\n\nna\u00efve text\n".getBytes(StandardCharsets.ISO_8859_1));

    assertThatThrownBy(() -> MarkdownFolder.read(root, null))
        .isInstanceOfSatisfying(ServiceException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST))
        .hasMessage("docs/module-1/latin1.md is not UTF-8 text: save it as UTF-8, or move it out of the folder");

    Files.writeString(root.resolve("docs/module-1/latin1.md"), "# Caf\u00e9\n\nna\u00efve text\n", StandardCharsets.UTF_8);
    assertThat(MarkdownFolder.read(root, null)).extracting(Page::pageTitle).containsExactly("Fine", "Caf\u00e9");
  }

  @Test
  @DisplayName("a category's label comes from _category_.json or, as Docusaurus also reads it, _category_.yml;"
      + " a broken file only loses the label")
  void categoryLabels() throws Exception {
    for (String module : new String[] {"m1", "m2", "m3", "m4"}) {
      Files.createDirectories(root.resolve("docs/" + module));
      Files.writeString(root.resolve("docs/" + module + "/page.md"), "# Page of " + module + "\n\nText.\n");
    }
    Files.writeString(root.resolve("docs/m1/_category_.json"), "{\"label\": \"Module 1: ROS 2\", \"position\": 1}");
    Files.writeString(root.resolve("docs/m2/_category_.yml"), "label: 'Module 2: Simulation'\nposition: 2\n");
    Files.writeString(root.resolve("docs/m3/_category_.yaml"), "label: [not, a, label]\n");
    Files.writeString(root.resolve("docs/m4/_category_.yml"), "label: 'unclosed\n  - : :\n");

    assertThat(MarkdownFolder.read(root, null)).extracting(Page::chapter, Page::chapterLabel).containsExactly(
        tuple("m1", "Module 1: ROS 2"),
        tuple("m2", "Module 2: Simulation"),
        tuple("m3", null),
        tuple("m4", null));
  }

  @Test
  @DisplayName("a site's folder: its docs, not its translations, older versions, partials, node_modules or README;"
      + " with a docusaurus.config.* at its root, only what the site publishes (docs, blog, src/pages)")
  void siteFolder() throws Exception {
    for (String file : new String[] {"docs/m1/intro.md", "docs/m1/_partial.md", "blog/2024-01-01-hello.md",
        "i18n/fr/docusaurus-plugin-content-docs/current/m1/intro.md", "versioned_docs/version-1.0/m1/intro.md",
        "node_modules/pkg/readme.md", ".docusaurus/x.md", "README.md"}) {
      Files.createDirectories(root.resolve(file).getParent());
      Files.writeString(root.resolve(file), "# Page\n\nText of " + file + ".\n");
    }
    assertThat(MarkdownFolder.read(root, null)).extracting(Page::sourceUrl)
        .containsExactly("blog/2024-01-01-hello", "docs/m1/intro");

    // a Docusaurus site's repository: what the site publishes, not the specs and notes beside it
    for (String file : new String[] {"specs/001-book/spec.md", "CLAUDE.md", "history/prompts/1.md", "src/pages/about.md"}) {
      Files.createDirectories(root.resolve(file).getParent());
      Files.writeString(root.resolve(file), "# Page\n\nText of " + file + ".\n");
    }
    assertThat(MarkdownFolder.read(root, null)).extracting(Page::sourceUrl)
        .contains("specs/001-book/spec", "CLAUDE", "history/prompts/1");
    Files.writeString(root.resolve("docusaurus.config.ts"), "export default {};\n");
    assertThat(MarkdownFolder.read(root, null)).extracting(Page::sourceUrl)
        .containsExactly("blog/2024-01-01-hello", "docs/m1/intro", "src/pages/about");
    assertThat(MarkdownFolder.site(root, null).leftOut())
        .containsExactly("CLAUDE.md", "history/prompts/1.md", "specs/001-book/spec.md");
  }

  @Test
  @DisplayName("a linked folder is read as if it were there (generators follow links); a link back to a folder"
      + " above it is not walked again, a broken link is no page, and a Python virtual environment is not read")
  void linkedFolders(@TempDir Path elsewhere) throws Exception {
    Files.createDirectories(elsewhere.resolve("shared"));
    Files.writeString(elsewhere.resolve("shared/safety.md"), "# Safety\n\nStop the robot first.\n");
    write("docs/m1/intro.md");
    Files.createSymbolicLink(root.resolve("docs/m2"), elsewhere.resolve("shared"));
    Files.createSymbolicLink(root.resolve("docs/m1/up"), root.resolve("docs"));
    Files.createSymbolicLink(root.resolve("docs/m1/gone.md"), elsewhere.resolve("missing.md"));
    // a Python virtual environment beside the docs (an MkDocs or Sphinx project's venv/) holds packages' Markdown
    write("venv/pyvenv.cfg", "venv/lib/python3.12/site-packages/mkdocs-1.6.dist-info/licenses/LICENSE.md");
    Files.createSymbolicLink(root.resolve("venv/lib64"), root.resolve("venv/lib"));

    assertThat(MarkdownFolder.read(root, null)).extracting(Page::sourceUrl, Page::pageTitle).containsExactly(
        tuple("docs/m1/intro", "intro.md"),
        tuple("docs/m2/safety", "Safety"));
  }

  @Test
  @DisplayName("a repository whose book is a site in a subfolder (book/, website/): the site's pages with its folder"
      + " in their paths, or with --base-url its addresses; the specs, prompts and notes beside it are named, not read")
  void siteInASubfolder() throws Exception {
    write("book/docs/module-1/01-intro.md", "book/docs/module-1/02-nodes.md", "book/blog/2025-01-02-launch.md",
        "book/README.md", "specs/001-textbook/spec.md", "history/prompts/0001-write-chapter.prompt.md", "CLAUDE.md",
        "backend/README.md", "README.md");
    Files.writeString(root.resolve("book/docusaurus.config.ts"), "export default {};\n");

    MarkdownFolder.Folder folder = MarkdownFolder.site(root, null);
    assertThat(folder.pages()).extracting(Page::sourceUrl, Page::documentId, Page::chapter).containsExactly(
        tuple("book/blog/2025-01-02-launch", "book/blog/2025-01-02-launch", "blog"),
        tuple("book/docs/module-1/01-intro", "book/docs/module-1/01-intro", "module-1"),
        tuple("book/docs/module-1/02-nodes", "book/docs/module-1/02-nodes", "module-1"));
    assertThat(folder.readAs()).singleElement().satisfies(site -> {
      assertThat(site.generator()).isEqualTo(MarkdownFolder.Generator.DOCUSAURUS);
      assertThat(site.folders()).containsExactly("book/docs/", "book/blog/", "book/src/pages/");
    });
    assertThat(folder.leftOut()).containsExactly("CLAUDE.md", "backend/README.md", "book/README.md",
        "history/prompts/0001-write-chapter.prompt.md", "specs/001-textbook/spec.md");

    // the site's published address: the pages' addresses there, as if its folder had been given
    assertThat(MarkdownFolder.site(root, "https://example.org/").pages()).extracting(Page::sourceUrl)
        .containsExactly("https://example.org/blog/2025/01/02/launch", "https://example.org/docs/module-1/intro",
            "https://example.org/docs/module-1/nodes");

    // a second site two levels down: both are read; one address cannot serve both
    write("apps/handbook/docs/guide.md");
    Files.writeString(root.resolve("apps/handbook/mkdocs.yml"), "site_name: Handbook\n");
    assertThat(MarkdownFolder.site(root, null).pages()).extracting(Page::sourceUrl)
        .containsExactly("apps/handbook/docs/guide", "book/blog/2025-01-02-launch", "book/docs/module-1/01-intro",
            "book/docs/module-1/02-nodes");
    assertThatThrownBy(() -> MarkdownFolder.site(root, "https://example.org/"))
        .isInstanceOfSatisfying(ServiceException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST))
        .hasMessage("the folder holds 2 sites (apps/handbook/, book/): ingest each of those folders with its own"
            + " --base-url");
  }

  @Test
  @DisplayName("a generator's settings in a subfolder whose site has no page (a template) leave the folder read whole")
  void settingsWithoutPages() throws Exception {
    write("guide/setup.md", "guide/usage.md", "template/docusaurus.config.js", "template/docs/.gitkeep");
    assertThat(MarkdownFolder.site(root, null).pages()).extracting(Page::sourceUrl)
        .containsExactly("guide/setup", "guide/usage");
    assertThat(MarkdownFolder.site(root, null).readAs()).isEmpty();
  }

  @Test
  @DisplayName("a draft (draft: true in its front matter) is not read, and the folder names it")
  void draftsAreLeftOut() throws Exception {
    Files.createDirectories(root.resolve("docs/m1"));
    Files.writeString(root.resolve("docs/m1/done.md"), "---\ntitle: Done\ndraft: false\n---\n\nPublished.\n");
    Files.writeString(root.resolve("docs/m1/wip.md"), "---\r\ntitle: WIP\r\ndraft: true # not yet\r\n---\r\n\nHalf.\r\n");
    Files.writeString(root.resolve("docs/m1/about-drafts.md"), "# Drafts\n\ndraft: true is how a page stays unpublished.\n");

    MarkdownFolder.Folder folder = MarkdownFolder.site(root, null);
    assertThat(folder.pages()).extracting(Page::pageTitle).containsExactly("Drafts", "Done");
    assertThat(folder.drafts()).containsExactly("docs/m1/wip.md");
  }

  private static void deleteTree(Path folder) throws Exception {
    try (var paths = Files.walk(folder)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private void write(String... files) throws Exception {
    for (String file : files) {
      Files.createDirectories(root.resolve(file).getParent() == null ? root : root.resolve(file).getParent());
      String name = file.substring(file.lastIndexOf('/') + 1);
      Files.writeString(root.resolve(file), file.endsWith(".md") ? "# " + name + "\n\nText of " + file + ".\n" : "");
    }
  }

  @Test
  @DisplayName("an MkDocs repository: its docs_dir only, chapters below it, and with --base-url the addresses MkDocs"
      + " serves (guide/setup/, index.md and README.md as their folder; checked against an MkDocs 1.6 build)")
  void mkdocsRepository() throws Exception {
    write("README.md", "CHANGELOG.md", "pages/index.md", "pages/guide/setup.md", "pages/guide/README.md",
        "pages/01-intro.md");
    Files.writeString(root.resolve("mkdocs.yml"), "site_name: Book\ndocs_dir: 'pages'  # not docs\n"
        + "markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n");
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, "https://book.example.org/");
    assertThat(folder.readAs().get(0).generator()).isEqualTo(MarkdownFolder.Generator.MKDOCS);
    assertThat(folder.pages()).extracting(Page::sourceUrl, Page::chapter).containsExactly(
        tuple("https://book.example.org/01-intro/", null),
        tuple("https://book.example.org/guide/", "guide"),
        tuple("https://book.example.org/guide/setup/", "guide"),
        tuple("https://book.example.org/", null));

    // use_directory_urls: false serves files (checked against a build with that setting)
    Files.writeString(root.resolve("mkdocs.yml"), "docs_dir: pages\nuse_directory_urls: false\n");
    assertThat(MarkdownFolder.site(root, "https://book.example.org/").pages()).extracting(Page::sourceUrl)
        .containsExactly("https://book.example.org/01-intro.html", "https://book.example.org/guide/index.html",
        "https://book.example.org/guide/setup.html", "https://book.example.org/index.html");
  }

  @Test
  @DisplayName("a Hugo repository: its content/ only, a section's _index.md as its page, TOML front matter, drafts"
      + " left out, and the addresses Hugo serves (lower case, spaces as '-', the slug; checked against a Hugo 0.140"
      + " build's sitemap)")
  void hugoRepository() throws Exception {
    write("README.md", "archetypes/default.md", "content/docs/bundle/index.md", "content/docs/Setup Guide.md");
    Files.writeString(root.resolve("hugo.toml"), "baseURL = 'https://book.example.org/'\ntitle = 'Book'\n");
    Files.writeString(root.resolve("content/_index.md"), "---\ntitle: Home\n---\nThe book.\n");
    Files.writeString(root.resolve("content/docs/_index.md"), "---\ntitle: Docs\n---\nAll the guides.\n");
    Files.writeString(root.resolve("content/docs/custom.md"), "+++\ntitle = \"Custom\"\nslug = \"My-Custom\"\n+++\nText.\n");
    Files.writeString(root.resolve("content/docs/draft.md"), "+++\ntitle = \"Soon\"\ndraft = true\n+++\nNot yet.\n");
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, "https://book.example.org/");
    assertThat(folder.readAs().get(0).generator()).isEqualTo(MarkdownFolder.Generator.HUGO);
    assertThat(folder.drafts()).containsExactly("content/docs/draft.md");
    assertThat(folder.pages()).extracting(Page::sourceUrl, Page::pageTitle, Page::chapter).containsExactly(
        tuple("https://book.example.org/", "Home", null),
        tuple("https://book.example.org/docs/setup-guide/", "Setup Guide.md", "docs"),
        tuple("https://book.example.org/docs/", "Docs", "docs"),
        tuple("https://book.example.org/docs/bundle/", "index.md", "docs"),
        tuple("https://book.example.org/docs/my-custom/", "Custom", "docs"));
  }

  @Test
  @DisplayName("a Hugo site with defaultContentLanguageInSubdir serves its default language's pages in that language's"
      + " folder, with one language or several, its settings' keys in any case (checked against Hugo 0.140 builds'"
      + " sitemaps)")
  void hugoDefaultLanguageInSubfolder() throws Exception {
    String site = "https://ex.org/book/";
    write("content/guide/setup.md", "content/guide/_index.md");
    Files.writeString(root.resolve("hugo.toml"),
        "baseURL = 'https://ex.org/book/'\ndefaultContentLanguageInSubdir = true\n");
    assertThat(MarkdownFolder.site(root, site).pages()).extracting(Page::documentId, Page::sourceUrl).containsExactly(
        tuple("content/guide/_index", site + "en/guide/"), tuple("content/guide/setup", site + "en/guide/setup/"));

    // Hugo's addresses are in lower case, the language's folder too
    Files.writeString(root.resolve("hugo.toml"),
        "defaultContentLanguage = 'pt-BR'\ndefaultContentLanguageInSubdir = true\n");
    assertThat(MarkdownFolder.site(root, site).pages()).extracting(Page::sourceUrl)
        .containsExactly(site + "pt-br/guide/", site + "pt-br/guide/setup/");

    Files.writeString(root.resolve("hugo.toml"),
        "baseURL = 'https://ex.org/book/'\ndefaultContentLanguageInSubdir = false\n");
    assertThat(MarkdownFolder.site(root, site).pages()).extracting(Page::sourceUrl)
        .containsExactly(site + "guide/", site + "guide/setup/");

    Files.delete(root.resolve("hugo.toml"));
    write("content/de/guide/setup.md", "content/en/guide/setup.md");
    Files.writeString(root.resolve("hugo.yaml"), "DefaultContentLanguage: de\ndefaultcontentlanguageinsubdir: true\n"
        + "languages:\n  en:\n    contentDir: content/en\n  de:\n    contentDir: content/de\n");
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, site);
    assertThat(folder.pages()).extracting(Page::documentId, Page::sourceUrl)
        .containsExactly(tuple("content/de/guide/setup", site + "de/guide/setup/"));
    assertThat(folder.translations()).containsExactly("content/en/", "*.en.md");
  }

  @Test
  @DisplayName("a Starlight or VitePress site's translations (its locales but root) are not read, as Docusaurus'"
      + " i18n/ is not, and the folder says which; a VitePress page's snippet import is read from the site")
  void translationsLeftOut() throws Exception {
    write("src/content/docs/guides/setup.md", "src/content/docs/de/guides/setup.md",
        "src/content/docs/zh-cn/guides/setup.md", "src/content/docs/ui/buttons.md");
    Files.writeString(root.resolve("astro.config.mjs"), "export const locales = {\n"
        + "  root: { label: 'English', lang: 'en' },\n  de: { label: 'Deutsch', lang: 'de' },\n"
        + "  'zh-cn': { label: '简体中文', lang: 'zh-CN' },\n};\nexport default { ui: { theme: 'dark' } };\n");
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, null);
    assertThat(folder.pages()).extracting(Page::documentId)
        .containsExactly("src/content/docs/guides/setup", "src/content/docs/ui/buttons");
    assertThat(folder.translations()).containsExactly("src/content/docs/de/", "src/content/docs/zh-cn/");

    Files.delete(root.resolve("astro.config.mjs"));
    write("docs/.vitepress/config.mts", "docs/index.md", "docs/ja/index.md", "docs/snippets/init.sh");
    Files.writeString(root.resolve("docs/.vitepress/config.mts"), "export default {\n  locales: {\n"
        + "    root: { label: 'English', lang: 'en-US' },\n    ja: { label: '日本語', lang: 'ja' }\n  }\n}\n");
    Files.writeString(root.resolve("docs/snippets/init.sh"), "npx vitepress init\n");
    Files.writeString(root.resolve("docs/index.md"), "# Start\n\n## Install\n\nRun this:\n\n<<< @/snippets/init.sh\n");
    folder = MarkdownFolder.site(root, null);
    assertThat(folder.pages()).extracting(Page::documentId).containsExactly("docs/index");
    assertThat(folder.translations()).containsExactly("docs/ja/");
    assertThat(folder.pages().get(0).sections().get(0).text()).isEqualTo("Run this:\n\nnpx vitepress init");
  }

  @Test
  @DisplayName("an MkDocs site's translations (mkdocs-static-i18n: setup.fr.md, or a folder a language) and a Hugo"
      + " site's (setup.fr.md, or a language's contentDir) are not read; the default language's pages are at the"
      + " addresses the real builds gave (MkDocs 1.6.1 with mkdocs-static-i18n 1.3.1, Hugo 0.140.2)")
  void mkdocsAndHugoTranslations() throws Exception {
    write("docs/index.md", "docs/index.fr.md", "docs/guide/setup.md", "docs/guide/setup.fr.md", "docs/guide/setup.de.md",
        "docs/guide/only.en.md", "docs/guide/setup.v2.md");
    String i18n = "site_name: Test\nplugins:\n  - search\n  - i18n:\n%s      languages:\n        - locale: en\n"
        + "          default: true\n          name: English\n        - locale: fr\n          name: Français\n"
        + "        - locale: de\n          build: false\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
        + "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n";
    Files.writeString(root.resolve("mkdocs.yml"), i18n.formatted(""));
    String site = "https://ex.org/";
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, site);
    assertThat(folder.pages()).extracting(Page::documentId, Page::sourceUrl).containsExactly(
        tuple("docs/guide/only.en", site + "guide/only/"), tuple("docs/guide/setup", site + "guide/setup/"),
        tuple("docs/guide/setup.v2", site + "guide/setup.v2/"), tuple("docs/index", site));
    assertThat(folder.translations()).containsExactly("*.fr.md", "*.de.md");

    deleteTree(root.resolve("docs"));
    write("docs/en/index.md", "docs/fr/index.md", "docs/en/guide/setup.md", "docs/fr/guide/setup.md", "docs/top.md");
    Files.writeString(root.resolve("mkdocs.yml"), i18n.formatted("      docs_structure: folder\n"));
    folder = MarkdownFolder.site(root, site);
    assertThat(folder.pages()).extracting(Page::documentId, Page::sourceUrl).containsExactly(
        tuple("docs/en/guide/setup", site + "guide/setup/"), tuple("docs/en/index", site), tuple("docs/top", site + "top/"));
    assertThat(folder.pages().get(0).chapter()).isEqualTo("guide");
    assertThat(folder.translations()).containsExactly("docs/fr/", "docs/de/");

    deleteTree(root.resolve("docs"));
    Files.delete(root.resolve("mkdocs.yml"));
    write("content/guide/setup.md", "content/guide/setup.fr.md", "content/about.en.md", "content/guide/_index.md");
    Files.writeString(root.resolve("hugo.toml"), "baseURL = 'https://ex.org/'\ndefaultContentLanguage = 'en'\n"
        + "[languages]\n  [languages.en]\n    weight = 1\n  [languages.fr]\n    weight = 2\n  [languages.fr.params]\n"
        + "    x = 1\n");
    folder = MarkdownFolder.site(root, site);
    assertThat(folder.pages()).extracting(Page::documentId, Page::sourceUrl).containsExactly(
        tuple("content/about.en", site + "about/"), tuple("content/guide/_index", site + "guide/"),
        tuple("content/guide/setup", site + "guide/setup/"));
    assertThat(folder.translations()).containsExactly("*.fr.md");

    Files.delete(root.resolve("hugo.toml"));
    write("content/de/guide/setup.md", "content/en/guide/setup.md");
    Files.writeString(root.resolve("hugo.yaml"), "defaultContentLanguage: de\nlanguages:\n  en:\n"
        + "    contentDir: content/en\n  de:\n    contentDir: content/de\n");
    folder = MarkdownFolder.site(root, site);
    assertThat(folder.pages()).extracting(Page::documentId, Page::sourceUrl)
        .containsExactly(tuple("content/de/guide/setup", site + "guide/setup/"));
    assertThat(folder.translations()).containsExactly("content/en/", "*.en.md");
  }

  @Test
  @DisplayName("a Docusaurus site in website/ whose docs are ../docs (Docusaurus 1's layout): its docs and pages are"
      + " read from the repository, at the site's addresses; what else the repository holds is named, not read")
  void docsBesideTheSite() throws Exception {
    write("README.md", "CHANGELOG.md", "docs/intro.md", "docs/api/store.md", "website/src/pages/about.md",
        "examples/todos/README.md");
    Files.writeString(root.resolve("website/docusaurus.config.js"), "module.exports = {presets: [['classic', {"
        + "docs: {path: '../docs', routeBasePath: '/'}, blog: false}]]};\n");
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, "https://book.example.org");
    assertThat(folder.pages()).extracting(Page::sourceUrl, Page::chapter).containsExactly(
        tuple("https://book.example.org/api/store", "api"),
        tuple("https://book.example.org/intro", null),
        // a standalone page's chapter is its first folder, as src/ is for a site at the folder's root
        tuple("https://book.example.org/about", "website"));
    assertThat(folder.readAs()).extracting(MarkdownFolder.Layout::folders)
        .containsExactly(List.of("docs/", "website/src/pages/"));
    assertThat(folder.leftOut()).containsExactly("CHANGELOG.md", "examples/todos/README.md");
  }

  @Test
  @DisplayName("Jupyter Book (_toc.yml and _config.yml) and Quarto (_quarto.yml) repositories: Markdown, notebooks and"
      + " .qmd pages at name.html (checked against a Jupyter Book 1.0 build), not their _build/ or _site/ output")
  void jupyterBookAndQuartoRepositories() throws Exception {
    write("README.md", "intro.md", "part-1/01-basics.md", "_build/jupyter_execute/part-1/02-arrays.md");
    Files.writeString(root.resolve("part-1/02-arrays.ipynb"), "{\"cells\": [{\"cell_type\": \"markdown\","
        + " \"source\": \"# Arrays\\n\\nArrays hold numbers.\"}]}");
    Files.writeString(root.resolve("_toc.yml"), "format: jb-book\nroot: intro\n");
    Files.writeString(root.resolve("_config.yml"), "title: Book\n");
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, "https://book.example.org/");
    assertThat(folder.readAs().get(0).generator()).isEqualTo(MarkdownFolder.Generator.JUPYTER_BOOK);
    assertThat(folder.pages()).extracting(Page::sourceUrl, Page::pageTitle, Page::chapter).containsExactly(
        tuple("https://book.example.org/intro.html", "intro.md", null),
        tuple("https://book.example.org/part-1/01-basics.html", "01-basics.md", "part-1"),
        tuple("https://book.example.org/part-1/02-arrays.html", "Arrays", "part-1"));

    Files.delete(root.resolve("_toc.yml"));
    Files.writeString(root.resolve("_quarto.yml"), "project:\n  type: book\n");
    write("index.qmd", "_site/index.md", "_common.md");
    folder = MarkdownFolder.site(root, "https://book.example.org");
    assertThat(folder.readAs().get(0).generator()).isEqualTo(MarkdownFolder.Generator.QUARTO);
    assertThat(folder.pages()).extracting(Page::sourceUrl).containsExactly("https://book.example.org/index.html",
        "https://book.example.org/intro.html", "https://book.example.org/part-1/01-basics.html",
        "https://book.example.org/part-1/02-arrays.html");
  }

  @Test
  @DisplayName("A MyST project (mystmd, Jupyter Book 2) without a toc: every .md and .ipynb but exclude's and _build/,"
      + " each at a slug of its file name (number dropped, numbered when taken), README as the home page;"
      + " the addresses mystmd 1.8.3 gave the same files")
  void mystProjectWithoutToc() throws Exception {
    write("README.md", "01_intro.md", "2024-notes.md", "A & B.md", "guide/index.md", "guide/setup.md",
        "guide/02-setup.md", "drafts/x.md", "CONTRIBUTING.md", "Deep/Nested/10_Big Topic.md", "Deep/Nested/9_small.md",
        "12345-code.md", "_build/site/public/intro-9ed44f.md", "sub/myst.yml", "sub/own-project.md");
    Files.createDirectories(root.resolve("other"));
    Files.writeString(root.resolve("other/setup.ipynb"), "{\"cells\": [{\"cell_type\": \"markdown\","
        + " \"source\": \"# Setup notebook\\n\\nRun it.\"}]}");
    Files.writeString(root.resolve("myst.yml"), "version: 1\nproject:\n  title: X\n  exclude:\n    - drafts/**\n"
        + "site:\n  template: book-theme\n");
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, "https://book.example.org/");
    assertThat(folder.readAs()).extracting(MarkdownFolder.Layout::generator).containsExactly(MarkdownFolder.Generator.MYST);
    Map<String, String> addresses = new HashMap<>();
    folder.pages().forEach(page -> addresses.put(page.documentId(), page.sourceUrl()));
    String site = "https://book.example.org/";
    assertThat(addresses).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
        Map.entry("README", site),
        Map.entry("01_intro", site + "intro"),
        Map.entry("12345-code", site + "12345-code"),
        Map.entry("2024-notes", site + "2024-notes"),
        Map.entry("A & B", site + "a-and-b"),
        Map.entry("CONTRIBUTING", site + "contributing"),
        Map.entry("Deep/Nested/10_Big Topic", site + "big-topic"),
        Map.entry("Deep/Nested/9_small", site + "small"),
        Map.entry("guide/02-setup", site + "setup"),
        Map.entry("guide/index", site + "index"),
        Map.entry("guide/setup", site + "setup-1"),
        Map.entry("other/setup", site + "setup-2")));
    assertThat(folder.leftOut()).containsExactly("drafts/x.md");
  }

  @Test
  @DisplayName("A MyST project with a toc: its files (extension optional) and patterns in its order, the first as the"
      + " home page, the rest left out; with site.options.folders, the folders in the address (mystmd 1.8.3's)")
  void mystProjectWithToc() throws Exception {
    write("01_intro.md", "A & B.md", "guide/index.md", "guide/setup.md", "guide/02-setup.md", "Deep/Nested/10_Big Topic.md",
        "Deep/Nested/9_small.md", "other/setup.md", "notes.md");
    String toc = "version: 1\nproject:\n  title: X\n  toc:\n    - file: 01_intro\n    - title: Guide\n      children:\n"
        + "        - file: guide/index.md\n        - pattern: guide/*setup.md\n        - file: other/setup.md\n"
        + "    - pattern: Deep/**/*.md\n    - file: A & B.md\n";
    Files.writeString(root.resolve("myst.yml"), toc + "site:\n  options:\n    folders: true\n");
    String site = "https://book.example.org/";
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, site);
    assertThat(folder.pages()).extracting(Page::documentId, Page::sourceUrl).containsExactly(
        tuple("01_intro", site),
        tuple("guide/index", site + "guide"),
        tuple("guide/02-setup", site + "guide/setup"),
        tuple("guide/setup", site + "guide/setup-1"),
        tuple("other/setup", site + "other/setup"),
        tuple("Deep/Nested/9_small", site + "deep/nested/small"),
        tuple("Deep/Nested/10_Big Topic", site + "deep/nested/big-topic"),
        tuple("A & B", site + "a-and-b"));
    assertThat(folder.leftOut()).containsExactly("notes.md");

    Files.writeString(root.resolve("myst.yml"), toc);
    assertThat(MarkdownFolder.site(root, site).pages()).extracting(Page::sourceUrl).containsExactly(site,
        site + "index-1", site + "setup", site + "setup-1", site + "setup-2", site + "small", site + "big-topic",
        site + "a-and-b");
  }

  @Test
  @DisplayName("a Sphinx project (conf.py) in a repository's docs/: its .rst pages at name.html, or name/ with Read"
      + " the Docs' dirhtml builder; .md pages only with myst_parser; not _build/, _static/, exclude_patterns,"
      + " nor the repository's README.rst")
  void sphinxProject() throws Exception {
    write("README.rst", "docs/index.rst", "docs/guide/setup.rst", "docs/guide/notes.md", "docs/_build/html/x.rst",
        "docs/_static/y.rst", "docs/drafts/old.rst", "docs/conf.py");
    Files.writeString(root.resolve("docs/conf.py"), "project = 'Robot'\nextensions = []\n"
        + "exclude_patterns = ['_build', 'drafts/*']\n");
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, "https://robot.example.org/");
    assertThat(folder.readAs()).extracting(MarkdownFolder.Layout::generator).containsExactly(MarkdownFolder.Generator.SPHINX);
    assertThat(folder.pages()).extracting(Page::documentId, Page::sourceUrl).containsExactly(
        tuple("docs/guide/setup", "https://robot.example.org/guide/setup.html"),
        tuple("docs/index", "https://robot.example.org/index.html"));
    assertThat(folder.leftOut()).isEmpty(); // the root README describes the repository

    Files.writeString(root.resolve("docs/conf.py"), "project = 'Robot'\nextensions = ['myst_parser']\n");
    Files.writeString(root.resolve(".readthedocs.yaml"), "version: 2\nsphinx:\n  configuration: docs/conf.py\n"
        + "  builder: dirhtml\n");
    assertThat(MarkdownFolder.site(root, "https://robot.example.org/").pages()).extracting(Page::sourceUrl)
        .containsExactly("https://robot.example.org/drafts/old/", "https://robot.example.org/guide/notes/",
            "https://robot.example.org/guide/setup/", "https://robot.example.org/");

    // docs/index.rst includes the repository's README from above the project: read when the folder given holds it
    Files.writeString(root.resolve("README.rst"), "Robot\n=====\n\nA robot arm library.\n");
    Files.writeString(root.resolve("docs/index.rst"), ".. include:: ../README.rst\n");
    Page index = MarkdownFolder.read(root, null).stream().filter(page -> page.documentId().equals("docs/index"))
        .findFirst().orElseThrow();
    assertThat(index.pageTitle()).isEqualTo("Robot");
    assertThat(index.sections().get(0).text()).isEqualTo("A robot arm library.");
    assertThat(MarkdownFolder.read(root.resolve("docs"), null).stream().filter(page -> page.documentId().equals("index"))
        .findFirst().orElseThrow().sections()).isEmpty();
    // a file an include reads from above the project is part of a page, not a page file left out
    Files.writeString(root.resolve("CHANGES.rst"), "Changes\n=======\n\nVersion 2 adds a gripper.\n");
    Files.writeString(root.resolve("NOTES.rst"), "Notes\n=====\n\nUnsorted.\n");
    Files.writeString(root.resolve("docs/changes.rst"), ".. include:: ../CHANGES.rst\n");
    assertThat(MarkdownFolder.site(root, null).leftOut()).contains("NOTES.rst").doesNotContain("CHANGES.rst");

    // Django's manual: source_suffix = '.txt' makes its .txt files reStructuredText pages (not requirements.txt)
    Files.writeString(root.resolve("docs/conf.py"), "project = 'Robot'\nsource_suffix = '.txt'\n"
        + "exclude_patterns = ['_build', 'requirements.txt', 'drafts/*']\n");
    Files.createDirectories(root.resolve("docs/topics"));
    Files.writeString(root.resolve("docs/topics/arms.txt"), "Arms\n====\n\nAn arm has joints.\n\nReach\n-----\n\n"
        + "Use :func:`~robot.reach`.\n");
    Files.writeString(root.resolve("docs/requirements.txt"), "sphinx\n");
    folder = MarkdownFolder.site(root, null);
    assertThat(folder.pages()).extracting(Page::documentId, Page::pageTitle).contains(tuple("docs/topics/arms", "Arms"))
        .doesNotContain(tuple("docs/requirements", null));
    Page arms = folder.pages().stream().filter(page -> page.documentId().equals("docs/topics/arms")).findFirst().get();
    assertThat(arms.sections()).extracting(Page.Section::heading, Page.Section::text)
        .containsExactly(tuple(null, "An arm has joints."), tuple("Reach", "Use reach."));
  }

  @Test
  @DisplayName(".markdown files are pages too (MkDocs, Hugo, Jekyll read them), with the extension dropped as .md's;"
      + " not in a Docusaurus site, which publishes .md and .mdx only")
  void markdownSuffix() throws Exception {
    write("guide/setup.markdown", "guide/intro.md", "guide/notes.rst", "guide/old.adoc");
    Files.writeString(root.resolve("guide/setup.markdown"), "# Setup\n\nInstall it.\n");
    Files.writeString(root.resolve("guide/notes.rst"), "Notes\n=====\n\nA note.\n");
    Files.writeString(root.resolve("guide/old.adoc"), "= Old\n\nOld text.\n");
    // a plain folder reads every page file; MkDocs publishes Markdown only, not the .rst and .adoc beside it
    assertThat(MarkdownFolder.site(root, null).pages()).extracting(Page::sourceUrl, Page::pageTitle)
        .containsExactly(tuple("guide/intro", "intro.md"), tuple("guide/notes", "Notes"), tuple("guide/old", "Old"),
            tuple("guide/setup", "Setup"));
    Files.writeString(root.resolve("mkdocs.yml"), "site_name: Book\ndocs_dir: guide\n");
    assertThat(MarkdownFolder.site(root, "https://book.example.org/").pages()).extracting(Page::sourceUrl)
        .containsExactly("https://book.example.org/intro/", "https://book.example.org/setup/");
    Files.delete(root.resolve("mkdocs.yml"));
    Files.writeString(root.resolve("docusaurus.config.js"), "export default {};\n");
    Files.move(root.resolve("guide"), root.resolve("docs"));
    assertThat(MarkdownFolder.site(root, null).pages()).extracting(Page::sourceUrl).containsExactly("docs/intro");
  }

  @Test
  @DisplayName("a Docsify site's folder: its README.md is the home page, its _sidebar.md navigation")
  void docsifyFolder() throws Exception {
    write("README.md", "_sidebar.md", "guide/setup.md");
    assertThat(MarkdownFolder.site(root, null).pages()).extracting(Page::sourceUrl).containsExactly("guide/setup");
    Files.writeString(root.resolve("index.html"), "<div id=\"app\"></div><script>window.$docsify = {loadSidebar: true}"
        + "</script><script src=\"//cdn.jsdelivr.net/npm/docsify@4\"></script>");
    assertThat(MarkdownFolder.site(root, null).pages()).extracting(Page::sourceUrl)
        .containsExactly("README", "guide/setup");
  }

  @Test
  @DisplayName("an mdBook repository: its src only (not the repository's README), without SUMMARY.md (the table of"
      + " contents); README.md is index.html, a page name.html (checked against an mdBook 0.5.4 build)")
  void mdbookRepository() throws Exception {
    write("README.md", "src/SUMMARY.md", "src/README.md", "src/ch1/01-intro.md", "src/ch1/README.md");
    Files.writeString(root.resolve("book.toml"), "[book]\ntitle = \"Book\"\n");
    assertThat(MarkdownFolder.site(root, "https://book.example.org").pages())
        .extracting(Page::sourceUrl, Page::chapter).containsExactly(
            tuple("https://book.example.org/index.html", null),
            tuple("https://book.example.org/ch1/01-intro.html", "ch1"),
            tuple("https://book.example.org/ch1/index.html", "ch1"));
  }

  @Test
  @DisplayName("Starlight (src/content/docs, slugged addresses or the front matter's slug) and VitePress (the folder"
      + " holding .vitepress, name.html) repositories (checked against Starlight 0.37 and VitePress 1.6 builds)")
  void starlightAndVitepressRepositories() throws Exception {
    write("README.md", "src/content/docs/index.md", "src/content/docs/Module 1/Getting Started.md",
        "src/pages/extra.md");
    Files.writeString(root.resolve("src/content/docs/Module 1/custom.md"),
        "---\ntitle: Custom\nslug: guides/custom-page\n---\n\nA page with its own slug.\n");
    Files.writeString(root.resolve("astro.config.mjs"), "export default {};\n");
    assertThat(MarkdownFolder.site(root, "https://book.example.org/docs").pages())
        .extracting(Page::sourceUrl, Page::chapter).containsExactly(
            tuple("https://book.example.org/docs/module-1/getting-started/", "Module 1"),
            tuple("https://book.example.org/docs/guides/custom-page/", "Module 1"),
            tuple("https://book.example.org/docs/", null));

    Files.delete(root.resolve("astro.config.mjs"));
    write("docs/.vitepress/config.mts", "docs/index.md", "docs/guide/setup.md", "CONTRIBUTING.md");
    MarkdownFolder.Folder folder = MarkdownFolder.site(root, "https://book.example.org");
    assertThat(folder.readAs().get(0).generator()).isEqualTo(MarkdownFolder.Generator.VITEPRESS);
    assertThat(folder.pages()).extracting(Page::sourceUrl, Page::chapter).containsExactly(
        tuple("https://book.example.org/guide/setup.html", "guide"),
        tuple("https://book.example.org/", null));

    // cleanUrls: true drops the .html (checked against a build's sitemap with that setting)
    Files.writeString(root.resolve("docs/.vitepress/config.mts"), "export default { cleanUrls: true }\n");
    assertThat(MarkdownFolder.site(root, "https://book.example.org").pages()).extracting(Page::sourceUrl)
        .containsExactly("https://book.example.org/guide/setup", "https://book.example.org/");
  }
}
