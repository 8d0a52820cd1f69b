package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.ragretrieval.ingest.DocusaurusSite.Route;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a site's docusaurus.config says it publishes, and where; shaped like configs of real book repositories. */
class DocusaurusSiteTest {

  @Test
  @DisplayName("the template's config (TypeScript, satisfies, themeConfig with its own docs: {sidebar}) means the defaults")
  void template() {
    DocusaurusSite site = DocusaurusSite.of("""
        import {themes as prismThemes} from 'prism-react-renderer';
        import type {Config} from '@docusaurus/types';
        // docs: false would turn the docs off; this comment says nothing
        const config: Config = {
          title: 'Physical AI & Humanoid Robotics',
          url: 'https://example.github.io',
          baseUrl: '/book/',
          i18n: {defaultLocale: 'en', locales: ['en', 'ur'], localeConfigs: {ur: {direction: 'rtl', path: 'ur'}}},
          presets: [
            [
              'classic',
              {
                docs: {
                  sidebarPath: './sidebars.ts',
                  editUrl: 'https://github.com/example/book/tree/main/',
                },
                blog: {
                  showReadingTime: true,
                  feedOptions: {type: ['rss', 'atom'], xslt: true},
                },
                theme: {customCss: './src/css/custom.css'},
              } satisfies Preset.Options,
            ],
          ],
          themeConfig: {
            docs: {sidebar: {hideable: true}},
            navbar: {items: [{type: 'docSidebar', sidebarId: 'tutorialSidebar', label: 'Book'}]},
          } satisfies Preset.ThemeConfig,
        };
        export default config;
        """);
    assertThat(site).isEqualTo(DocusaurusSite.DEFAULT);
    assertThat(site.folders()).containsExactly("docs/", "blog/", "src/pages/");
  }

  @Test
  @DisplayName("docs served from the site's root, no blog, no prefix parsing (CommonJS, require.resolve, a wrapped object)")
  void docsOnly() {
    DocusaurusSite site = DocusaurusSite.of("""
        /** @type {import('@docusaurus/types').Config} */
        const config = {
          presets: [
            [
              'classic',
              /** @type {import('@docusaurus/preset-classic').Options} */
              ({
                docs: {
                  routeBasePath: '/', // serve the docs at the site's root
                  sidebarPath: require.resolve('./sidebars.js'),
                  numberPrefixParser: false,
                  remarkPlugins: [math],
                },
                blog: false,
                pages: false,
              }),
            ],
          ],
        };
        module.exports = config;
        """);
    assertThat(site.docs()).containsExactly(new Route("docs/", ""));
    assertThat(site.blog()).isNull();
    assertThat(site.pages()).isFalse();
    assertThat(site.numberPrefixes()).isFalse();
    assertThat(site.folders()).containsExactly("docs/");
  }

  @Test
  @DisplayName("a docs folder of another name, a second docs instance, a blog elsewhere; a version's path is not a docs"
      + " folder; a folder above the site's is, given from the folder above (rebased)")
  void movedFolders() {
    DocusaurusSite site = DocusaurusSite.of("""
        export default {
          presets: [['@docusaurus/preset-classic', {
            docs: {path: './book', routeBasePath: 'learn', versions: {current: {label: 'Next', path: 'next'}}},
            blog: {path: "news", routeBasePath: "/updates/", blogTitle: "News"},
          }]],
          plugins: [
            ['@docusaurus/plugin-content-docs', {id: 'sims', path: 'simulations_content', routeBasePath: 'simulations'}],
            [require.resolve('@docusaurus/plugin-content-docs'), {id: 'shared', path: '../shared-docs'}],
            ['content-docs', {id: 'api', path: 'book/api', routeBasePath: 'api'}],
          ],
        };
        """);
    assertThat(site.docs()).containsExactly(new Route("book/", "learn"), new Route("simulations_content/", "simulations"),
        new Route("../shared-docs/", "docs"), new Route("book/api/", "api"));
    assertThat(site.blog()).isEqualTo(new Route("news/", "updates"));
    assertThat(site.pagesRoot()).isEqualTo("book/");
    assertThat(site.docsOf("book/api/robot.md")).isEqualTo(new Route("book/api/", "api"));
    assertThat(site.docsOf("book/intro.md")).isEqualTo(new Route("book/", "learn"));
    assertThat(site.docsOf("docs/intro.md")).isNull();

    assertThat(DocusaurusPath.of(site, "book/01-basics/02-nodes.md", null, null, true)).isEqualTo("learn/basics/nodes");
    assertThat(DocusaurusPath.of(site, "book/api/index.md", null, null, true)).isEqualTo("api/");
    assertThat(DocusaurusPath.of(site, "simulations_content/gazebo.md", null, null, true)).isEqualTo("simulations/gazebo");
    assertThat(DocusaurusPath.of(site, "news/2025-02-03-launch.md", null, null, true)).isEqualTo("updates/2025/02/03/launch");

    assertThat(site.reachesOut()).isTrue();
    DocusaurusSite fromAbove = site.rebased("website");
    assertThat(fromAbove.docs()).containsExactly(new Route("website/book/", "learn"),
        new Route("website/simulations_content/", "simulations"), new Route("shared-docs/", "docs"),
        new Route("website/book/api/", "api"));
    assertThat(fromAbove.folders()).contains("website/news/", "website/src/pages/");
    assertThat(DocusaurusPath.of(fromAbove, "shared-docs/robots/arm.md", null, null, true)).isEqualTo("docs/robots/arm");
    assertThat(DocusaurusPath.of(fromAbove, "website/src/pages/about.md", null, null, true)).isEqualTo("about");
    assertThat(DocusaurusSite.of("export default {presets: [['classic', {docs: {path: '../../docs'}}]]};")
        .rebased("website")).isNull();
    assertThat(DocusaurusSite.DEFAULT.reachesOut()).isFalse();
  }

  @Test
  @DisplayName("the object reader: quoted keys, strings holding braces, colons and comment marks, code values")
  void topLevel() {
    String text = "{'path': 'a{b}', url: \"https://x.org/a//b\", `tpl`: 1, routeBasePath: `/r`, sidebarPath: require('./s'),"
        + " nested: {path: 'deep'}, list: ['path', {path: 'x'}], flag: true}";
    assertThat(DocusaurusSite.topLevel(text, 0))
        .containsEntry("path", "a{b}")
        .containsEntry("url", "https://x.org/a//b")
        .containsEntry("routeBasePath", "/r")
        .containsEntry("sidebarPath", DocusaurusSite.CODE)
        .containsEntry("nested", DocusaurusSite.CODE)
        .containsEntry("flag", true)
        .doesNotContainValue("deep");
  }

  @Test
  @DisplayName("a site's repository with docs at its root route, read with --base-url: the addresses Docusaurus serves")
  void docsOnlyAddresses(@TempDir Path root) throws Exception {
    Files.createDirectories(root.resolve("docs/01-module-1"));
    Files.writeString(root.resolve("docusaurus.config.js"),
        "module.exports = {presets: [['classic', {docs: {routeBasePath: '/'}, blog: false}]]};\n");
    Files.writeString(root.resolve("docs/intro.md"), "# Welcome\n\nThe book.\n");
    Files.writeString(root.resolve("docs/01-module-1/02-gait.md"), "# Gait\n\nWalking.\n");
    Files.createDirectories(root.resolve("blog"));
    Files.writeString(root.resolve("blog/2025-01-01-old.md"), "# Old post\n\nNot published: the blog is off.\n");

    assertThat(MarkdownFolder.site(root, "https://book.example.org/").pages()).extracting(Page::sourceUrl)
        .containsExactly("https://book.example.org/module-1/gait", "https://book.example.org/intro");
  }

  @Test
  @DisplayName("a site of several books, one docs instance each and the preset's docs off: each book's chapters are"
      + " the folders below its own docs folder, and its addresses its route's")
  void booksAsInstances(@TempDir Path root) throws Exception {
    Files.writeString(root.resolve("docusaurus.config.ts"), """
        export default {
          presets: [['classic', {docs: false, blog: false}]],
          plugins: [
            ['@docusaurus/plugin-content-docs', {id: 'gait', path: 'docs/books/gait', routeBasePath: 'books/gait'}],
            ['@docusaurus/plugin-content-docs', {id: 'hands', path: 'docs/books/hands', routeBasePath: 'books/hands'}],
          ],
        };
        """);
    for (String page : new String[] {"docs/books/gait/01-balance/01-zmp.md", "docs/books/hands/02-grasping/index.md"}) {
      Files.createDirectories(root.resolve(page).getParent());
      Files.writeString(root.resolve(page), "# Page\n\nText.\n");
    }
    Files.writeString(root.resolve("docs/books/hands/02-grasping/_category_.json"), "{\"label\": \"Grasping\"}");

    assertThat(MarkdownFolder.site(root, "https://robots.example.org").pages())
        .extracting(Page::sourceUrl, Page::chapter, Page::chapterLabel).containsExactly(
            tuple("https://robots.example.org/books/gait/balance/zmp", "01-balance", null),
            tuple("https://robots.example.org/books/hands/grasping/", "02-grasping", "Grasping"));
  }
}
