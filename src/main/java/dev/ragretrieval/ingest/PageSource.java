package dev.ragretrieval.ingest;

import io.vertx.core.Future;
import java.util.List;
import java.util.Set;

/**
 * Pages as they become available, so an ingest can chunk and embed the first pages of a site while
 * the rest are still being fetched. Pages come unread: the ingest reads only those that changed. {@link #next} answers the next pages (at most {@code max}),
 * waiting for at least one, or an empty list once there are no more.
 */
public interface PageSource {

  Future<List<SourcePage>> next(int max);

  /**
   * Source URLs that count as present although they gave no page (fetches that failed for now): a
   * mirroring run keeps their documents. Asked once every page was taken.
   */
  default Set<String> alsoPresent() {
    return Set.of();
  }

  /**
   * Every page, read already, when the source holds them all before the run starts (a folder); null
   * for pages still being fetched. A collection the run creates then measures BM25's average length
   * on all of them instead of on the first pages read.
   */
  default List<Page> allPages() {
    return null;
  }

  /** The pages of a list, in order. */
  static PageSource of(List<Page> pages) {
    List<SourcePage> all = pages.stream().map(SourcePage::of).toList();
    List<Page> read = List.copyOf(pages);
    return new PageSource() {
      private int next;

      @Override
      public List<Page> allPages() {
        return read;
      }

      @Override
      public synchronized Future<List<SourcePage>> next(int max) {
        List<SourcePage> group = all.subList(next, Math.min(next + max, all.size()));
        next += group.size();
        return Future.succeededFuture(List.copyOf(group));
      }
    };
  }
}
