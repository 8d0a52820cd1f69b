package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NotebookTest {

  @TempDir
  Path root;

  /** A notebook as Jupyter saves it (nbformat 4): sources as lists of lines, outputs beside the code. */
  private static String notebook() {
    JsonObject output = new JsonObject().put("output_type", "stream").put("name", "stdout")
        .put("text", new JsonArray().add("0.7071067811865476\n"));
    JsonArray cells = new JsonArray()
        .add(new JsonObject().put("cell_type", "markdown")
            .put("source", new JsonArray().add("# Joint Angles\n").add("\n").add("Angles are in radians.")))
        .add(new JsonObject().put("cell_type", "code").put("execution_count", 1)
            .put("source", new JsonArray().add("#| echo: true\n").add("import math\n").add("print(math.sin(math.pi / 4))"))
            .put("outputs", new JsonArray().add(output)))
        .add(new JsonObject().put("cell_type", "raw").put("source", "\\newpage"))
        .add(new JsonObject().put("cell_type", "markdown").put("source", "## Limits\n\nEach joint has a range."))
        .add(new JsonObject().put("cell_type", "code").put("source", "doc = \"\"\"\n```\nfenced\n```\n\"\"\""));
    JsonObject metadata = new JsonObject()
        .put("kernelspec", new JsonObject().put("name", "python3").put("language", "python"))
        .put("language_info", new JsonObject().put("name", "python"));
    return new JsonObject().put("cells", cells).put("metadata", metadata).put("nbformat", 4).encodePrettily();
  }

  @Test
  @DisplayName("a notebook reads as its page shows it: Markdown cells as text, code cells as code, not the"
      + " outputs, raw cells or cell options (#|); a fence inside the code does not end it")
  void cellsAsMarkdown() {
    Page page = MarkdownReader.read("book/angles.ipynb", notebook(), null, null);
    assertThat(page.pageTitle()).isEqualTo("Joint Angles");
    assertThat(page.documentId()).isEqualTo("book/angles");
    assertThat(page.sections()).extracting(Page.Section::heading).containsExactly(null, "Limits");
    assertThat(page.sections().get(0).text()).isEqualTo(
        "Angles are in radians.\n\nimport math\nprint(math.sin(math.pi / 4))");
    assertThat(page.sections().get(1).text()).isEqualTo("Each joint has a range.\n\ndoc = \"\"\"\n```\nfenced\n```\n\"\"\"");
  }

  @Test
  @DisplayName("a folder's notebooks are pages beside its Markdown; a file that is no notebook has no text")
  void notebooksInAFolder() throws Exception {
    Files.createDirectories(root.resolve("chapters/.ipynb_checkpoints"));
    Files.writeString(root.resolve("chapters/angles.ipynb"), notebook());
    Files.writeString(root.resolve("chapters/.ipynb_checkpoints/angles-checkpoint.ipynb"), notebook());
    Files.writeString(root.resolve("chapters/intro.md"), "# Intro\n\nWhat the book covers.\n");
    Files.writeString(root.resolve("chapters/broken.ipynb"), "{\"cells\": [");

    assertThat(MarkdownFolder.read(root, null)).extracting(Page::documentId, Page::pageTitle).containsExactly(
        tuple("chapters/angles", "Joint Angles"),
        tuple("chapters/broken", null),
        tuple("chapters/intro", "Intro"));
    assertThat(MarkdownReader.read("chapters/broken.ipynb", "{\"cells\": [", null, null).sections()).isEmpty();
    assertThat(MarkdownReader.read("chapters/odd.ipynb", "{\"cells\": {\"cell_type\": 3}}", null, null).sections())
        .isEmpty();
    assertThat(MarkdownReader.read("chapters/odd.ipynb", "{\"cells\": [{\"cell_type\": 3, \"source\": \"x\"}]}", null,
        null).sections()).isEmpty();
  }
}
