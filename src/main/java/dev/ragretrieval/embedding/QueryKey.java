package dev.ragretrieval.embedding;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The query cache's key for a question: lower case, runs of white space as one space, no white
 * space or sentence punctuation (. ? ! , ; : and their CJK forms) at the end; "C++" keeps its
 * pluses. "What is ROS 2?" and "what  is ros 2" share one entry, and one
 * upstream input: Cohere's rate limit counts inputs. Only the key is normalised; the text sent
 * upstream stays the caller's.
 */
public final class QueryKey {

  private static final Pattern SPACES = Pattern.compile("\\s+");
  private static final Pattern TRAILING = Pattern.compile("[\\s.?!,;:\u2026\u3002\uff1f\uff01]+$");

  private QueryKey() {}

  public static String of(String text) {
    String key = SPACES.matcher(text.toLowerCase(Locale.ROOT)).replaceAll(" ").strip();
    return TRAILING.matcher(key).replaceAll("");
  }
}
