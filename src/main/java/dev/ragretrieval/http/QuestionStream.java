package dev.ragretrieval.http;

import dev.ragretrieval.retrieval.AssembledContext;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievalRequest;
import dev.ragretrieval.retrieval.RetrievalService;
import dev.ragretrieval.retrieval.RetrievedChunk;
import dev.ragretrieval.upstream.Deadline;

/**
 * One question answered as a stream (SSE or NDJSON): meta -> chunk per result -> context (when
 * asked) -> done; a failure after meta is an error event. The search is planned first, so meta
 * tells the search mode really used; a failure there is still an ordinary error response. Two
 * writes: meta at once, everything else and the end of the response together once the search
 * has answered.
 */
final class QuestionStream {

  private final RetrievalService service;

  QuestionStream(RetrievalService service) {
    this.service = service;
  }

  void answer(Exchange exchange, StreamFormat format, RetrievalRequest unplanned, Deadline deadline) {
    service.plan(unplanned, deadline)
        .onSuccess(request -> planned(exchange, format, request, deadline))
        .onFailure(exchange::fail);
  }

  private void planned(Exchange exchange, StreamFormat format, RetrievalRequest request, Deadline deadline) {
    exchange.startStream(format);
    Exchange.Events meta = exchange.events().add("meta", json -> ResultJson.meta(json, exchange.queryId(), request));
    // meta goes out at once while the question is embedded; a question whose vector is cached is
    // answered after one search, and its meta goes out with the rest of the stream, in one write
    if (!service.queryVectorCached(request)) {
      meta.send();
    }
    service.retrieve(request, exchange.queryId(), deadline)
        .map(exchange::record)
        .onSuccess(result -> {
          Exchange.Events events = exchange.events();
          for (RetrievedChunk chunk : result.results()) {
            events.add("chunk", json -> ResultJson.chunk(json, chunk));
          }
          if (request.includeContext()) {
            AssembledContext context = service.assemble(result);
            events.add("context", json -> ResultJson.context(json, context));
          }
          events.add("done", json -> ResultJson.done(json, result)).sendAndEnd();
        })
        .onFailure(exchange::fail);
  }
}
