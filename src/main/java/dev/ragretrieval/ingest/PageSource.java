package dev.ragretrieval.ingest;

import io.vertx.core.Future;
import java.util.List;
import java.util.Set;

/**
 * Pages as they become available, so an ingest can chunk and embed the first pages of a site while
 * the rest are still being fetched. {@link #next} answers the next pages (at most {@code max}),
 * waiting for at least one, or an empty list once there are no more.
 */
public interface PageSource {

  Future<List<Page>> next(int max);

  /**
   * Source URLs that count as present although they gave no page (fetches that failed for now): a
   * mirroring run keeps their documents. Asked once every page was taken.
   */
  default Set<String> alsoPresent() {
    return Set.of();
  }

  /** The pages of a list, in order. */
  static PageSource of(List<Page> pages) {
    List<Page> all = List.copyOf(pages);
    return new PageSource() {
      private int next;

      @Override
      public synchronized Future<List<Page>> next(int max) {
        List<Page> group = all.subList(next, Math.min(next + max, all.size()));
        next += group.size();
        return Future.succeededFuture(List.copyOf(group));
      }
    };
  }
}
