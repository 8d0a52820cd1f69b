package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MdBookIncludesTest {

  @TempDir
  Path root;

  private static final String MAIN_RS = """
      use std::io;
      // ANCHOR: here
      fn main() {
          // ANCHOR: inner
          println!("Guess the number!");
          // ANCHOR_END: inner
      }
      // ANCHOR_END: here
      """;

  private static final Map<String, String> FILES = Map.of(
      "listings/ch02/src/main.rs", MAIN_RS,
      "src/shared/note.md", "Shared note: {{#include ../../listings/ch02/output.txt}}",
      "listings/ch02/output.txt", "Compiling guessing_game v0.1.0\n");

  private static String expand(String markdown) {
    return MdBookIncludes.expand(markdown, "src/ch02-00-guessing-game.md", FILES::get);
  }

  @Test
  @DisplayName("a whole file, a line, line ranges and anchors, as mdBook includes them; anchor lines never shown")
  void parts() {
    assertThat(expand("```rust\n{{#include ../listings/ch02/src/main.rs}}\n```")).isEqualTo(
        "```rust\nuse std::io;\nfn main() {\n    println!(\"Guess the number!\");\n}\n```");
    assertThat(expand("{{#include ../listings/ch02/src/main.rs:1}}")).isEqualTo("use std::io;");
    assertThat(expand("{{#include ../listings/ch02/src/main.rs::3}}")).isEqualTo("use std::io;\nfn main() {");
    assertThat(expand("{{#include ../listings/ch02/src/main.rs:7:}}")).isEqualTo("}");
    assertThat(expand("{{#include ../listings/ch02/src/main.rs:5:5}}")).isEqualTo("    println!(\"Guess the number!\");");
    assertThat(expand("{{#rustdoc_include ../listings/ch02/src/main.rs:here}}"))
        .isEqualTo("fn main() {\n    println!(\"Guess the number!\");\n}");
    assertThat(expand("{{#include ../listings/ch02/src/main.rs:inner}}"))
        .isEqualTo("    println!(\"Guess the number!\");");
  }

  @Test
  @DisplayName("an included Markdown file's own links are expanded; a missing file, one outside the book, a title"
      + " and an unknown anchor give nothing; an escaped link is shown as written")
  void edges() {
    assertThat(expand("{{#include shared/note.md}}")).isEqualTo("Shared note: Compiling guessing_game v0.1.0");
    assertThat(expand("a {{#include missing.rs}}b")).isEqualTo("a b");
    assertThat(expand("a{{#include ../../../etc/passwd}}b")).isEqualTo("ab");
    assertThat(expand("{{#title Guessing}}Text")).isEqualTo("Text");
    assertThat(expand("[{{#include ../listings/ch02/src/main.rs:nowhere}}]")).isEqualTo("[]");
    assertThat(expand("Write \\{{#include file.rs}} to include.")).isEqualTo("Write {{#include file.rs}} to include.");
    assertThat(FolderPath.below(FolderPath.folderOf("src/a/b.md"), "../../x.rs")).isEqualTo("x.rs");
    assertThat(FolderPath.below(FolderPath.folderOf("src/b.md"), "../../x.rs")).isNull();
    assertThat(FolderPath.below("website/", "../docs/")).isEqualTo("docs/");
  }

  @Test
  @DisplayName("an mdBook repository's pages carry the listings they include, read from the repository's folder")
  void inAFolder() throws Exception {
    Files.createDirectories(root.resolve("src"));
    Files.createDirectories(root.resolve("listings/ch02/src"));
    Files.writeString(root.resolve("book.toml"), "[book]\ntitle = \"Book\"\n");
    Files.writeString(root.resolve("src/SUMMARY.md"), "- [Guessing](ch02.md)\n");
    Files.writeString(root.resolve("listings/ch02/src/main.rs"), MAIN_RS);
    Files.writeString(root.resolve("src/ch02.md"),
        "# Guessing Game\n\n## Processing a Guess\n\n```rust\n{{#rustdoc_include ../listings/ch02/src/main.rs:here}}\n```\n");
    Page page = MarkdownFolder.read(root, null).get(0);
    assertThat(page.sections().get(0).text()).isEqualTo("fn main() {\n    println!(\"Guess the number!\");\n}");
  }
}
