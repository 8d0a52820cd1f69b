package dev.ragretrieval.embedding;

import java.util.Locale;

/**
 * The query cache's key for a question: lower case, runs of white space as one space, no white
 * space or sentence punctuation (. ? ! , ; : and their CJK forms) at the end; "C++" keeps its
 * pluses. "What is ROS 2?" and "what  is ros 2" share one entry, and one
 * upstream input: Cohere's rate limit counts inputs. Only the key is normalised; the text sent
 * upstream stays the caller's.
 *
 * <p>Written as loops, not regular expressions: it runs for every question, on the event loop.
 * White space here is what {@code \s} matches (ASCII), then {@link String#strip()} at both ends.
 */
public final class QueryKey {

  private static final String SENTENCE_END = ".?!,;:\u2026\u3002\uff1f\uff01";

  private QueryKey() {}

  public static String of(String text) {
    String key = collapseSpaces(text.toLowerCase(Locale.ROOT)).strip();
    int end = key.length();
    while (end > 0 && (isSpace(key.charAt(end - 1)) || SENTENCE_END.indexOf(key.charAt(end - 1)) >= 0)) {
      end--;
    }
    return key.substring(0, end);
  }

  /** Every run of white space as one space; the string itself when there is nothing to change. */
  private static String collapseSpaces(String text) {
    StringBuilder out = null;
    int length = text.length();
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (!isSpace(c)) {
        if (out != null) {
          out.append(c);
        }
        continue;
      }
      int runEnd = i + 1;
      while (runEnd < length && isSpace(text.charAt(runEnd))) {
        runEnd++;
      }
      if (out == null && (c != ' ' || runEnd - i > 1)) {
        out = new StringBuilder(length).append(text, 0, i);
      }
      if (out != null) {
        out.append(' ');
      }
      i = runEnd - 1;
    }
    return out == null ? text : out.toString();
  }

  private static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
  }
}
