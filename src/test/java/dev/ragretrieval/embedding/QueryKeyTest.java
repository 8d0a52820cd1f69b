package dev.ragretrieval.embedding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("QueryKey: the query cache's key")
class QueryKeyTest {

  /** The rule as regular expressions, the way it was first written: the loops must agree with it. */
  private static String reference(String text) {
    String key = Pattern.compile("\\s+").matcher(text.toLowerCase(Locale.ROOT)).replaceAll(" ").strip();
    return Pattern.compile("[\\s.?!,;:\u2026\u3002\uff1f\uff01]+$").matcher(key).replaceAll("");
  }

  @Test
  @DisplayName("case, runs of white space and trailing sentence punctuation do not count; other characters do")
  void examples() {
    assertThat(QueryKey.of("What is ROS 2?")).isEqualTo("what is ros 2");
    assertThat(QueryKey.of("  what\tis \n ROS   2 ?! ")).isEqualTo("what is ros 2");
    assertThat(QueryKey.of("what is C++")).isEqualTo("what is c++");
    assertThat(QueryKey.of("¿qué es un nodo?")).isEqualTo("¿qué es un nodo");
    assertThat(QueryKey.of("节点是什么？")).isEqualTo("节点是什么");
    assertThat(QueryKey.of("...")).isEmpty();
  }

  @Test
  @DisplayName("agrees with the regular-expression form on tricky and random texts")
  void agreesWithReference() {
    List<String> tricky = List.of("", " ", "\t\n", "a", " a ", "a  b", "a\u00a0 b", "\u3000a\u3000", "a?\u3000",
        "a\u3000?", "a \u2026", "A.B.C.", "x\u000B\u000By", "\u2003lead", "end\u2003", "İstanbul?", "ΣΊΣΥΦΟΣ!",
        "what is a node ?! ", "C# and C++;:", "\r\n\r\n");
    for (String text : tricky) {
      assertThat(QueryKey.of(text)).as("'%s'", text).isEqualTo(reference(text));
    }
    String alphabet = "aB \t\n\u000B\f\r.?!,;:\u2026\u3002\uff1f\uff01\u3000\u00a0\u2003+Éß";
    Random random = new Random(42);
    for (int n = 0; n < 20_000; n++) {
      StringBuilder text = new StringBuilder();
      for (int i = random.nextInt(12); i > 0; i--) {
        text.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      assertThat(QueryKey.of(text.toString())).as("'%s'", text).isEqualTo(reference(text.toString()));
    }
  }
}
