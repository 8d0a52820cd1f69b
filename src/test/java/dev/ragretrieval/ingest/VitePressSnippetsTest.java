package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class VitePressSnippetsTest {

  private static final Map<String, String> FILES = Map.of(
      "docs/snippets/setup.js", "import { a } from 'b'\n// #region config\nexport default {\n  title: 'Book'\n}\n"
          + "// #endregion config\nconsole.log(a)\n",
      "docs/guide/local.py", "print('local')\n",
      "docs/snippets/init.ansi", "\u001B[90m│\u001B[39m  ./docs\u001B[0m\n");

  private static String expand(String markdown) {
    return VitePressSnippets.expand(markdown, "docs/guide/setup.md", "docs/", FILES::get);
  }

  @Test
  @DisplayName("an import line becomes a code block of the file (from the source folder with @, else the page's"
      + " folder), or of its region; region markers, highlight marks, titles and terminal colours are not shown")
  void imports() {
    assertThat(expand("Intro\n\n<<< @/snippets/setup.js{2} [setup.js]\n\nEnd")).isEqualTo("Intro\n\n```js\n"
        + "import { a } from 'b'\nexport default {\n  title: 'Book'\n}\nconsole.log(a)\n```\n\nEnd");
    assertThat(expand("<<< @/snippets/setup.js#config{1}")).isEqualTo("```js\nexport default {\n  title: 'Book'\n}\n```");
    assertThat(expand("  <<< ./local.py")).isEqualTo("  ```py\n  print('local')\n  ```");
    assertThat(expand("<<< @/snippets/init.ansi")).isEqualTo("```ansi\n│  ./docs\n```");
  }

  @Test
  @DisplayName("an import shown inside a code block stays as written; a missing file or one outside the folder gives"
      + " nothing")
  void edges() {
    String shown = "````md\n<<< @/snippets/setup.js\n````";
    assertThat(expand(shown)).isEqualTo(shown);
    assertThat(expand("a\n<<< @/snippets/missing.js\nb")).isEqualTo("a\n\nb");
    assertThat(expand("a\n<<< ../../../etc/passwd\nb")).isEqualTo("a\n\nb");
    assertThat(expand("x <<< not an import")).isEqualTo("x <<< not an import");
  }
}
