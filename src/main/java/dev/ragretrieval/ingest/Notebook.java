package dev.ragretrieval.ingest;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.regex.Pattern;

/**
 * A Jupyter notebook ({@code .ipynb}, as Jupyter Book, Quarto and mkdocs-jupyter publish it) as the
 * Markdown its page shows: the Markdown cells as written, each code cell as a fenced block in the
 * notebook's language. Outputs are left out: plots and tables are not text, and printed values say
 * little without the code above them, which is there. Raw cells are not shown by the generators.
 */
final class Notebook {

  /** A cell's options at its top ({@code #| echo: false}, Quarto and Jupyter Book): not shown on the page. */
  private static final Pattern CELL_OPTIONS = Pattern.compile("\\A(?:[ \\t]*#\\|[^\\n]*(?:\\n|\\z))+");

  private Notebook() {}

  /** The notebook's cells as Markdown; empty when {@code json} is no notebook. */
  static String markdown(String json) {
    try {
      return cells(new JsonObject(json));
    } catch (DecodeException | ClassCastException e) {
      return ""; // not JSON, or JSON of another shape: no notebook
    }
  }

  private static String cells(JsonObject notebook) {
    JsonArray cells = notebook.getJsonArray("cells");
    if (cells == null) {
      return "";
    }
    String language = language(notebook.getJsonObject("metadata"));
    StringBuilder markdown = new StringBuilder();
    for (Object item : cells) {
      if (!(item instanceof JsonObject cell)) {
        continue;
      }
      String source = source(cell.getValue("source")).strip();
      if (source.isEmpty()) {
        continue;
      }
      String type = cell.getString("cell_type", "");
      if (type.equals("markdown")) {
        markdown.append(source).append("\n\n");
      } else if (type.equals("code")) {
        source = CELL_OPTIONS.matcher(source).replaceFirst("");
        String fence = "`".repeat(Math.max(3, longestBacktickRun(source) + 1));
        markdown.append(fence).append(language).append('\n').append(source).append('\n').append(fence).append("\n\n");
      }
    }
    return markdown.toString();
  }

  /** A cell's source: one string, or (as nbformat 4 writes it) its lines. */
  private static String source(Object source) {
    if (source instanceof String text) {
      return text;
    }
    if (source instanceof JsonArray lines) {
      StringBuilder text = new StringBuilder();
      for (Object line : lines) {
        if (line instanceof String part) {
          text.append(part);
        }
      }
      return text.toString();
    }
    return "";
  }

  private static String language(JsonObject metadata) {
    if (metadata == null) {
      return "";
    }
    JsonObject info = metadata.getJsonObject("language_info");
    if (info != null && info.getValue("name") instanceof String name) {
      return name;
    }
    JsonObject kernel = metadata.getJsonObject("kernelspec");
    return kernel != null && kernel.getValue("language") instanceof String name ? name : "";
  }

  /** A fence longer than any run of backticks in the code, so the code cannot close it. */
  private static int longestBacktickRun(String code) {
    int longest = 0;
    int run = 0;
    for (int i = 0; i < code.length(); i++) {
      run = code.charAt(i) == '`' ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
    return longest;
  }
}
