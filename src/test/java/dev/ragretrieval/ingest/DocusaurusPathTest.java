package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The expected paths are what a real build printed: these files, in a Docusaurus 3.10.2 site
 * (classic preset, defaults), gave these URLs in its sitemap.xml.
 */
class DocusaurusPathTest {

  @ParameterizedTest(name = "{0} -> {4}")
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      docs/02-guides/index.md              | -                 | -     | true  | docs/guides/
      docs/02-guides/01-setup/README.md    | -                 | -     | true  | docs/guides/setup/
      docs/02-guides/03_install.md         | -                 | -     | true  | docs/guides/install
      docs/z-edge/z-edge.md                | -                 | -     | true  | docs/z-edge/
      docs/z-edge/2021-11-notes.md         | -                 | -     | true  | docs/z-edge/2021-11-notes
      docs/z-edge/7.0-release.md           | -                 | -     | true  | docs/z-edge/7.0-release
      docs/z-edge/003 - spaced.md          | -                 | -     | true  | docs/z-edge/spaced
      docs/z-edge/04-abs.md                | /custom/absolute  | -     | true  | docs/custom/absolute
      docs/z-edge/05-rel.md                | renamed           | -     | true  | docs/z-edge/renamed
      docs/z-edge/06-up.md                 | ../up-one         | -     | true  | docs/up-one
      docs/z-edge/07-id.md                 | -                 | my-id | true  | docs/z-edge/my-id
      docs/03-keep/08-kept.md              | -                 | -     | false | docs/03-keep/08-kept
      blog/2024-01-15-hello-world.md       | -                 | -     | true  | blog/2024/01/15/hello-world
      blog/2024-03-05-welcome-post/index.md | -                | -     | true  | blog/2024/03/05/welcome-post
      blog/plain-post.md                   | -                 | -     | true  | blog/plain-post
      blog/2022-02-02-sluggy.md            | custom-slug       | -     | true  | blog/custom-slug
      blog/2023/2023-06-07-nested.md       | -                 | -     | true  | blog/2023/06/07/2023/nested
      src/pages/guides/extra.md            | -                 | -     | true  | guides/extra
      src/pages/index.md                   | -                 | -     | true  | ''
      """)
  @DisplayName("a page's path on the published site follows Docusaurus' rules: number prefixes, index pages, slug, id;"
      + " a blog post's date, a standalone page's path")
  void docusaurusRules(String file, String slug, String id, boolean parsePrefixes, String published) {
    assertThat(DocusaurusPath.of(file, slug, id, parsePrefixes)).isEqualTo(published);
  }

  @Test
  @DisplayName("the sample book's 21 pages get the addresses its Docusaurus build serves; a folder ingested below docs/ too")
  void sampleBook() {
    Map<String, String> built = Map.of(
        "docs/module-1-ros2/01-intro-ros2.md", "docs/module-1-ros2/intro-ros2",
        "docs/module-4-humanoid-control/03-whole-body-control-mpc.md", "docs/module-4-humanoid-control/whole-body-control-mpc",
        "docs/module-5-vla/04-safety-hri.md", "docs/module-5-vla/safety-hri");
    built.forEach((file, url) -> assertThat(DocusaurusPath.of(file, null, null, true)).isEqualTo(url));
    assertThat(SampleBook.pages()).hasSize(21).allSatisfy(page ->
        assertThat(DocusaurusPath.of(page.documentId() + ".md", null, null, true)).doesNotContainPattern("/\\d+-"));
    assertThat(DocusaurusPath.of("module-1-ros2/01-intro-ros2.md", null, null, true)).isEqualTo("module-1-ros2/intro-ros2");
    assertThat(DocusaurusPath.of("intro.md", null, null, true)).isEqualTo("intro");
  }

  @Test
  @DisplayName("with a base URL, source_url is the page's address on the site; without one, the path in the folder")
  void sourceUrl() {
    String markdown = "---\ntitle: Intro\nslug: /start\n---\n\nText.\n";
    assertThat(MarkdownReader.read("docs/module-1/01-intro.md", markdown, null, "https://book.example.org/").sourceUrl())
        .isEqualTo("https://book.example.org/docs/start");
    assertThat(MarkdownReader.read("docs/module-1/01-intro.md", "Text.\n", null, "https://book.example.org").sourceUrl())
        .isEqualTo("https://book.example.org/docs/module-1/intro");
    Page bare = MarkdownReader.read("docs/module-1/01-intro.md", markdown, null, null);
    assertThat(List.of(bare.sourceUrl(), bare.documentId())).containsOnly("docs/module-1/01-intro");
  }
}
