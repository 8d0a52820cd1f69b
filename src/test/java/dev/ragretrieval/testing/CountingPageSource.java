package dev.ragretrieval.testing;

import dev.ragretrieval.ingest.Page;
import dev.ragretrieval.ingest.PageSource;
import dev.ragretrieval.ingest.SourcePage;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Pages as a {@link PageSource} that counts how many of them the ingest reads (parses). */
public final class CountingPageSource implements PageSource {

  private final List<Page> pages;
  private final AtomicInteger reads;
  private int next;

  public CountingPageSource(List<Page> pages, AtomicInteger reads) {
    this.pages = List.copyOf(pages);
    this.reads = reads;
  }

  @Override
  public synchronized Future<List<SourcePage>> next(int max) {
    List<SourcePage> group = new ArrayList<>();
    for (; next < pages.size() && group.size() < max; next++) {
      SourcePage page = SourcePage.of(pages.get(next));
      group.add(new SourcePage(page.sourceUrl(), page.fingerprint(), () -> {
        reads.incrementAndGet();
        return page.reader().call();
      }));
    }
    return Future.succeededFuture(group);
  }
}
