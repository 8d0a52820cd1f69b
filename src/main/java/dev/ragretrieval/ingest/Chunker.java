package dev.ragretrieval.ingest;

import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Splits a page into chunks: first at its headings, then by size on paragraph, line, sentence and
 * word boundaries, each chunk starting with the end of the one before (the overlap) so a fact
 * cut in two is still whole in one of them. A paragraph of several lines (code, a list) is cut
 * between its lines and keeps its indentation: Python read back without it is other code.
 */
public final class Chunker {

  /** Sizes in characters; {@code maxChars} is the hard cap no chunk ever exceeds. */
  public record Limits(int targetChars, int overlapChars, int maxChars) {
    public Limits {
      if (targetChars < 50 || overlapChars < 0 || overlapChars >= targetChars / 2
          || maxChars < targetChars + overlapChars + 2) {
        throw new IllegalArgumentException("chunk limits must satisfy 50 <= target, overlap < target/2,"
            + " max >= target + overlap + 2");
      }
    }
  }

  public static final Limits DEFAULT = new Limits(1200, 150, 10_000);

  /**
   * Raise on any change to how pages become chunks (splitting, payload, the embedded header): the
   * next ingest then re-embeds every chunk, because its content hash covers this.
   */
  static final int ALGORITHM = 3;

  private static final Pattern PARAGRAPHS = Pattern.compile("\\n\\s*\\n");
  private static final Pattern SENTENCES = Pattern.compile("(?<=[.!?])\\s+");
  /** Blank lines at the start, and everything blank at the end: what is trimmed off a text, not its indentation. */
  private static final Pattern BLANK_ENDS = Pattern.compile("^(?:[ \\t]*\\R)+|\\s+$");

  private final Limits limits;

  public Chunker() {
    this(DEFAULT);
  }

  public Chunker(Limits limits) {
    this.limits = limits;
  }

  /** The chunker's version as stored with each chunk: the algorithm and its limits ("2/1200/150/10000"). */
  public String version() {
    return ALGORITHM + "/" + limits.targetChars() + "/" + limits.overlapChars() + "/" + limits.maxChars();
  }

  /** The deterministic point id: re-ingesting a page replaces its points instead of adding more. */
  public static String pointId(String sourceUrl, int chunkIndex) {
    return UUID.nameUUIDFromBytes((sourceUrl + "#" + chunkIndex).getBytes(StandardCharsets.UTF_8)).toString();
  }

  public List<Chunk> chunk(Page page) {
    List<Chunk> chunks = new ArrayList<>();
    for (Page.Section section : page.sections()) {
      for (String text : split(section.text())) {
        chunks.add(chunk(page, section, text, chunks.size()));
      }
    }
    return chunks;
  }

  private static Chunk chunk(Page page, Page.Section part, String text, int index) {
    String section = part.heading();
    String chunkId = page.sourceUrl() + "#" + index;
    JsonObject payload = new JsonObject().put("text", text).put("source_url", page.sourceUrl());
    putIfPresent(payload, "page_title", page.pageTitle());
    putIfPresent(payload, "chapter", page.chapter());
    putIfPresent(payload, "chapter_label", page.chapterLabel());
    putIfPresent(payload, "section", section);
    payload.put("chunk_index", index).put("chunk_id", chunkId)
        .put("document_id", page.documentId()).put("source_type", page.sourceType());
    StringBuilder header = new StringBuilder();
    if (page.pageTitle() != null) {
      header.append(page.pageTitle());
    }
    // an h3's own heading ("Examples") says little without the h2 it sits under; a heading that
    // repeats the page title would only say it twice ("11.7. Indexes > 11.7. Indexes")
    String title = page.pageTitle() == null ? "" : page.pageTitle().strip();
    for (String heading : new String[] {part.parent(), section}) {
      if (heading != null && !heading.strip().equalsIgnoreCase(title)) {
        header.append(header.length() > 0 ? " > " : "").append(heading);
      }
    }
    String embedText = header.length() == 0 ? text : header + "\n\n" + text;
    return new Chunk(pointId(page.sourceUrl(), index), index, embedText, payload);
  }

  private static void putIfPresent(JsonObject payload, String key, String value) {
    if (value != null && !value.isBlank()) {
      payload.put(key, value);
    }
  }

  /** The pieces of one section's text, in order; none when it is blank. */
  List<String> split(String text) {
    String body = text == null ? "" : trimmed(text);
    if (body.isEmpty()) {
      return List.of();
    }
    if (body.length() <= limits.targetChars()) {
      return List.of(body);
    }
    List<String> chunks = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean fresh = true; // current holds nothing but the overlap carried over
    for (Unit unit : units(body)) {
      String separator = current.length() == 0 ? "" : unit.separator();
      if (!fresh && current.length() + separator.length() + unit.text().length() > limits.targetChars()) {
        String done = trimmed(current.toString());
        chunks.add(done);
        current.setLength(0);
        current.append(overlapOf(done));
        // the overlap ends where the finished chunk did: a paragraph or a line of code still starts anew
        separator = current.length() == 0 ? "" : unit.separator();
      }
      current.append(separator).append(unit.text());
      fresh = false;
    }
    if (!fresh) {
      chunks.add(trimmed(current.toString()));
    }
    return chunks;
  }

  /** A piece of text and what goes between it and the piece before: a blank line, a new line or a space. */
  private record Unit(String text, String separator) {}

  /**
   * Paragraphs; a long one's lines, when it has several; a long line's sentences; a long sentence's
   * word-bounded pieces.
   */
  private List<Unit> units(String body) {
    List<Unit> units = new ArrayList<>();
    for (String paragraph : PARAGRAPHS.split(body)) {
      String p = trimmed(paragraph);
      if (p.isEmpty()) {
        continue;
      }
      if (p.length() <= limits.targetChars()) {
        units.add(new Unit(p, "\n\n"));
        continue;
      }
      String separator = "\n\n";
      for (String line : p.lines().toList()) {
        if (line.length() <= limits.targetChars()) {
          units.add(new Unit(line.stripTrailing(), separator));
          separator = "\n";
          continue;
        }
        for (String sentence : SENTENCES.split(line.strip())) {
          for (String piece : pieces(sentence.strip())) {
            units.add(new Unit(piece, separator));
            separator = " ";
          }
        }
        separator = "\n";
      }
    }
    return units;
  }

  /**
   * {@code text} without its blank lines at the start and its whitespace at the end; the first of
   * several lines keeps its indent (one line of words has no indent to keep).
   */
  private static String trimmed(String text) {
    String trimmed = BLANK_ENDS.matcher(text).replaceAll("");
    return trimmed.indexOf('\n') < 0 ? trimmed.strip() : trimmed;
  }

  private List<String> pieces(String sentence) {
    List<String> pieces = new ArrayList<>();
    String rest = sentence;
    int max = limits.targetChars();
    while (rest.length() > max) {
      int cut = rest.lastIndexOf(' ', max);
      if (cut < max / 2) {
        cut = max; // no usable space: cut inside the word
      }
      pieces.add(rest.substring(0, cut).strip());
      rest = rest.substring(cut).strip();
    }
    if (!rest.isEmpty()) {
      pieces.add(rest);
    }
    return pieces;
  }

  /** The end of a finished chunk to repeat at the start of the next, from a sentence or word start. */
  private String overlapOf(String chunk) {
    int overlap = limits.overlapChars();
    if (overlap == 0 || chunk.length() <= overlap * 2) {
      return "";
    }
    int from = chunk.length() - overlap;
    var sentence = SENTENCES.matcher(chunk);
    if (sentence.find(from)) {
      String tail = chunk.substring(sentence.end()).strip();
      if (tail.length() >= overlap / 3) {
        return tail;
      }
    }
    int space = chunk.indexOf(' ', from);
    return space < 0 ? "" : chunk.substring(space + 1).strip();
  }
}
