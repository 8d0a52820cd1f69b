package dev.ragretrieval.retrieval;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Builds the LLM-ready context of docs/API.md section 5: one block per chunk in rank order, blocks
 * separated by one blank line, added while the whole text stays within the character budget.
 */
public final class ContextAssembler {

  private static final String SEPARATOR = "\n\n";

  public AssembledContext assemble(String queryId, String query, List<RetrievedChunk> chunks, int maxChars) {
    StringBuilder text = new StringBuilder();
    List<RetrievedChunk> used = new ArrayList<>();
    Set<String> sources = new LinkedHashSet<>();
    for (RetrievedChunk chunk : chunks) {
      String block = block(chunk);
      int added = (text.length() == 0 ? 0 : SEPARATOR.length()) + block.length();
      if (text.length() + added > maxChars) {
        break; // a later, shorter block would break rank order; the budget is full
      }
      if (text.length() > 0) {
        text.append(SEPARATOR);
      }
      text.append(block);
      used.add(chunk);
      if (chunk.sourceUrl() != null) {
        sources.add(chunk.sourceUrl());
      }
    }
    String formatted = text.toString();
    return new AssembledContext(queryId, query, formatted, used.size(), formatted.length(),
        List.copyOf(sources), List.copyOf(used));
  }

  static String block(RetrievedChunk chunk) {
    StringBuilder block = new StringBuilder()
        .append("[Result ").append(chunk.rank()).append("] Score: ")
        .append(String.format(Locale.ROOT, "%.2f", chunk.score())).append('\n');
    if (chunk.sourceUrl() != null) {
      block.append("Source: ").append(chunk.sourceUrl()).append('\n');
    }
    String place = place(chunk.chapter(), chunk.section());
    if (place != null) {
      block.append(place).append('\n');
    }
    return block.append("---\n").append(chunk.text() == null ? "" : chunk.text()).toString();
  }

  private static String place(String chapter, String section) {
    if (chapter != null && section != null) {
      return "Chapter: " + chapter + " | Section: " + section;
    }
    if (chapter != null) {
      return "Chapter: " + chapter;
    }
    return section == null ? null : "Section: " + section;
  }
}
