package dev.ragretrieval.retrieval;

import java.util.List;

/** The LLM-ready context block (docs/API.md section 5). */
public record AssembledContext(
    String queryId,
    String query,
    String formattedText,
    int chunkCount,
    int totalChars,
    List<String> sources,
    List<RetrievedChunk> results) {}
