package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DocusaurusPartialsTest {

  private static final Map<String, String> FILES = Map.of(
      "docs/components/_warning.mdx", "---\ntitle: not shown\n---\n\n:::caution\nThis shows older patterns.\n:::\n",
      "docs/components/_outer.md", "import Inner from './_inner.md'\n\nOuter text.\n\n<Inner />\n",
      "docs/components/_inner.md", "Inner text.\n");

  private static String expand(String markdown) {
    return DocusaurusPartials.expand(markdown, "docs/tutorials/part-1.md", FILES::get);
  }

  @Test
  @DisplayName("an imported .md/.mdx partial is read where its tag stands, without its front matter, its own partials"
      + " too")
  void partials() {
    assertThat(expand("import Warning from \"../components/_warning.mdx\";\n\n# Part 1\n\n<Warning />\n\nText."))
        .isEqualTo("import Warning from \"../components/_warning.mdx\";\n\n# Part 1\n\n\n"
            + ":::caution\nThis shows older patterns.\n:::\n\n\nText.");
    assertThat(expand("import Outer from '../components/_outer.md'\n\n<Outer/>"))
        .contains("Outer text.", "Inner text.");
  }

  @Test
  @DisplayName("a tag inside code, a component that is no imported Markdown, and a missing partial are left as they"
      + " are (the missing one gives nothing)")
  void edges() {
    String shown = "import Warning from '../components/_warning.mdx'\n\n```mdx\n<Warning />\n```";
    assertThat(expand(shown)).isEqualTo(shown);
    String component = "import Tabs from '@theme/Tabs';\n\n<Tabs />";
    assertThat(expand(component)).isEqualTo(component);
    assertThat(expand("import Gone from './_gone.mdx'\n\na\n<Gone />\nb")).isEqualTo("import Gone from './_gone.mdx'\n\na\n\nb");
  }
}
