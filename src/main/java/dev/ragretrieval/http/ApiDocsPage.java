package dev.ragretrieval.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.ext.heading.anchor.HeadingAnchorExtension;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;

/**
 * {@code GET /docs}: the API reference (docs/API.md, shipped in the jar) as one self-contained
 * HTML page, rendered once on a worker on first request. Nothing is loaded from elsewhere, so it
 * works offline and behind a strict network policy.
 */
final class ApiDocsPage implements Handler<RoutingContext> {

  static final String RESOURCE = "docs/API.md";

  private static final String STYLE = """
      body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem 1.5rem;color:#1d2330}
      code,pre{font-family:ui-monospace,monospace;font-size:.9em;background:#f3f4f7;border-radius:4px}
      code{padding:.1em .3em}pre{padding:.8em;overflow-x:auto}pre code{padding:0;background:none}
      table{border-collapse:collapse;margin:1em 0;display:block;overflow-x:auto}
      th,td{border:1px solid #d5d8e0;padding:.3em .6em;text-align:left;vertical-align:top}
      th{background:#f3f4f7}h2{border-bottom:1px solid #d5d8e0;padding-bottom:.2em;margin-top:2em}
      nav{margin:.5em 0 1.5em}a{color:#2450b2}
      """;

  private final Vertx vertx;
  private Future<Buffer> page;

  ApiDocsPage(Vertx vertx) {
    this.vertx = vertx;
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (page == null) {
      page = vertx.executeBlocking(ApiDocsPage::render, false);
    }
    page.onSuccess(html -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/html; charset=utf-8").end(html))
        .onFailure(failure -> ctx.next()); // not in this build: the 404 answer
  }

  /** The whole page; fails when docs/API.md is not on the classpath. */
  static Buffer render() throws IOException {
    String markdown;
    try (InputStream in = ApiDocsPage.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IOException(RESOURCE + " is not in this build");
      }
      markdown = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    // heading ids as GitHub makes them, so the page's section links work in both places
    List<org.commonmark.Extension> extensions = List.of(TablesExtension.create(), HeadingAnchorExtension.create());
    Parser parser = Parser.builder().extensions(extensions).build();
    // the text is ours (from the jar), but raw HTML in it is escaped anyway
    HtmlRenderer renderer = HtmlRenderer.builder().extensions(extensions).escapeHtml(true).build();
    String body = renderer.render(parser.parse(markdown));
    String html = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>rag-retrieval API reference</title><link rel=\"icon\" href=\"/favicon.svg\">"
        + "<style>" + STYLE + "</style></head><body>"
        + "<nav><a href=\"/\">Search page</a> · <a href=\"/openapi.yaml\">openapi.yaml</a></nav>\n"
        + body + "</body></html>\n";
    return Buffer.buffer(html);
  }
}
