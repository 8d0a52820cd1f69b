package dev.ragretrieval.eval;

import dev.ragretrieval.ingest.DocusaurusPath;
import io.vertx.core.json.JsonObject;

/**
 * One right answer of a test. The object form names what it checks ({@code chunk_id},
 * {@code source_url}, {@code section}; all given parts must match). The string form ({@code text})
 * is read per result: a chunk id, {@code source_url#section}, a source_url, a section title, or a
 * page title (any chunk of the page: a question whose answer is the page as a whole).
 * A source matches the full source_url or the end of its path ({@code .md}/{@code .html}, a
 * trailing slash and a last {@code /index} or {@code /README} ignored: a folder's index page is
 * the folder's address), also with Docusaurus' number prefixes ({@code 01-}) dropped from both, or
 * the chunk's {@code document_id} (its path in the folder ingested, whatever address
 * {@code --base-url} gave it). A Docusaurus page named by its file in {@code docs/} also matches
 * the page of a built site that serves its docs at its root ({@code routeBasePath: '/'}): the page
 * whose {@code document_id} ends with the same path without {@code docs/} and whose chapter is that
 * path's first part. Sections compare case-insensitively.
 */
public record Expected(String chunkId, String sourceUrl, String section, String text) {

  public static Expected of(String value) {
    return new Expected(null, null, null, value.strip());
  }

  /** Null when the object names nothing to check. */
  public static Expected of(JsonObject value) {
    String chunkId = string(value, "chunk_id");
    String source = string(value, "source_url") != null ? string(value, "source_url") : string(value, "source");
    String section = string(value, "section");
    return chunkId == null && source == null && section == null ? null : new Expected(chunkId, source, section, null);
  }

  /** Whether a result (one chunk of the API's JSON) is this right answer. */
  public boolean matches(JsonObject result) {
    String actualId = result.getString("chunk_id");
    Sources actualSource = sources(result);
    String actualSection = result.getString("section");
    if (text != null) {
      if (text.equals(actualId)) {
        return true;
      }
      int hash = text.lastIndexOf('#');
      if (hash > 0 && sameSource(actualSource, text.substring(0, hash))
          && sameText(actualSection, text.substring(hash + 1))) {
        return true;
      }
      return sameSource(actualSource, text) || sameText(actualSection, text)
          || sameText(result.getString("page_title"), text);
    }
    return (chunkId == null || chunkId.equals(actualId))
        && (sourceUrl == null || sameSource(actualSource, sourceUrl))
        && (section == null || sameText(actualSection, section));
  }

  /** How the report shows it. */
  public String describe() {
    if (text != null) {
      return text;
    }
    if (chunkId != null) {
      return chunkId;
    }
    return (sourceUrl == null ? "" : sourceUrl) + (section == null ? "" : (sourceUrl == null ? "" : "#") + section);
  }

  /** The JSON form written back in the report. */
  public Object toJson() {
    if (text != null) {
      return text;
    }
    JsonObject json = new JsonObject();
    if (chunkId != null) {
      json.put("chunk_id", chunkId);
    }
    if (sourceUrl != null) {
      json.put("source_url", sourceUrl);
    }
    if (section != null) {
      json.put("section", section);
    }
    return json;
  }

  private static String string(JsonObject object, String key) {
    return object.getValue(key) instanceof String s && !s.isBlank() ? s.strip() : null;
  }

  /**
   * What names a result's page: its source_url and, from its payload, its document_id (a folder's
   * page keeps its path there when {@code --base-url} gives it the site's address).
   */
  private static Sources sources(JsonObject result) {
    return new Sources(result.getValue("source_url") instanceof String url ? url : null,
        result.getValue("metadata") instanceof JsonObject metadata
            && metadata.getValue("document_id") instanceof String id ? id : null,
        result.getValue("chapter") instanceof String chapter ? chapter : null);
  }

  /** A result's source_url, document_id and chapter, any of which may be missing. */
  private record Sources(String url, String documentId, String chapter) {}

  private static boolean sameSource(Sources actual, String expected) {
    return actual.url() != null && sameSource(actual.url(), expected)
        || actual.documentId() != null && (sameSource(actual.documentId(), expected) || servedAtRoot(actual, expected));
  }

  /**
   * docs/m1/01-qos.md, the page that a site with {@code routeBasePath: '/'} serves at m1/qos below its
   * base URL: a built site's page whose document_id (its path) ends with m1/qos and whose chapter is
   * m1, the first part of its path below the docs. The chapter keeps another folder's page of the
   * same name (blog/m1/qos) from being taken for it.
   */
  private static boolean servedAtRoot(Sources actual, String expected) {
    String e = withoutIndex(unnumbered(normalize(expected)));
    if (!e.startsWith("docs/") || actual.chapter() == null) {
      return false;
    }
    String served = e.substring("docs/".length());
    int slash = served.indexOf('/');
    return (slash < 0 ? served : served.substring(0, slash)).equals(actual.chapter())
        && endsWith(withoutIndex(normalize(actual.documentId())), served);
  }

  private static boolean sameSource(String actual, String expected) {
    String a = normalize(actual);
    String e = normalize(expected);
    // a folder's index page is also the folder: docs/m1/index.md is served at docs/m1/; a Docusaurus
    // page's address drops its file's number prefixes: docs/m1/01-intro.md is served at docs/m1/intro
    return endsWith(a, e) || endsWith(withoutIndex(a), withoutIndex(e))
        || endsWith(withoutIndex(unnumbered(a)), withoutIndex(unnumbered(e)));
  }

  private static String unnumbered(String path) {
    return DocusaurusPath.withoutNumberPrefixes(path);
  }

  private static boolean endsWith(String actual, String expected) {
    return !expected.isEmpty() && (actual.equals(expected) || actual.endsWith("/" + expected));
  }

  private static String normalize(String url) {
    return url.strip().replaceFirst("^\\./", "").replaceFirst("/+$", "").replaceFirst("\\.(mdx?|markdown|html?)$", "");
  }

  private static String withoutIndex(String path) {
    return path.replaceFirst("(?<=.)/(?i:index|readme)$", "");
  }

  private static boolean sameText(String actual, String expected) {
    String e = expected.strip().replaceFirst("^#+\\s*", "");
    return actual != null && !e.isEmpty() && actual.strip().equalsIgnoreCase(e);
  }
}
