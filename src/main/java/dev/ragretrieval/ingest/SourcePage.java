package dev.ragretrieval.ingest;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.Callable;

/**
 * A page as its source gave it, not read yet: its {@code sourceUrl} (what its chunks store), a
 * {@code fingerprint} of its raw content, and how to read it. A re-ingest whose stored chunks were
 * read from a page with the same fingerprint skips reading and chunking it.
 */
public record SourcePage(String sourceUrl, String fingerprint, Callable<Page> reader) {

  /** A fetched HTML page: fingerprinted by its bytes and the reader's version, read when asked. */
  public static SourcePage html(String url, String html) {
    return html(url, html, HtmlReader.canonical(url));
  }

  /**
   * As {@link #html(String, String)}, stored at {@code address}: a built site's page without a
   * published address is read at a stand-in URL and stored at its path in the folder.
   */
  public static SourcePage html(String url, String html, String address) {
    String fingerprint = ChunkHash.sha256("html/" + HtmlReader.VERSION + "\n" + html);
    if (address.equals(HtmlReader.canonical(url))) {
      return new SourcePage(address, fingerprint, () -> HtmlReader.read(url, html));
    }
    return new SourcePage(address, fingerprint, () -> {
      Page page = HtmlReader.read(url, html);
      return new Page(address, BuiltSite.documentId(address), page.pageTitle(), page.chapter(), page.chapterLabel(),
          page.sourceType(), page.sections());
    });
  }

  /** A page already read (a Markdown file): fingerprinted by everything its chunks are made of. */
  public static SourcePage of(Page page) {
    JsonArray sections = new JsonArray();
    page.sections().forEach(s -> sections.add(new JsonArray().add(s.heading()).add(s.parent()).add(s.text())));
    String read = new JsonObject().put("source_url", page.sourceUrl()).put("document_id", page.documentId())
        .put("page_title", page.pageTitle()).put("chapter", page.chapter()).put("chapter_label", page.chapterLabel())
        .put("source_type", page.sourceType()).put("sections", sections).encode();
    return new SourcePage(page.sourceUrl(), ChunkHash.sha256("page\n" + read), () -> page);
  }
}
