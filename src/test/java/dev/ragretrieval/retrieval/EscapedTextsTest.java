package dev.ragretrieval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import org.junit.jupiter.api.Test;

class EscapedTextsTest {

  private static byte[] jackson(String text) {
    return JsonStringEncoder.getInstance().quoteAsUTF8(text);
  }

  @Test
  void aPointsTextIsEscapedOnceAndSharedByLaterAnswers() {
    EscapedTexts texts = new EscapedTexts(EscapedTexts.MAX_BYTES);
    String text = "Balance: \"ZMP\" control\n\tat 1 kHz — über";
    byte[] first = texts.of("p1", text);
    assertThat(first).isEqualTo(jackson(text));
    // a later answer decodes the same payload into a new string: the kept bytes serve it
    byte[] again = texts.of("p1", new String(text.toCharArray()));
    assertThat(again).isSameAs(first);
  }

  @Test
  void aChangedTextIsEscapedAnew() {
    EscapedTexts texts = new EscapedTexts(EscapedTexts.MAX_BYTES);
    byte[] before = texts.of("p1", "old text");
    // re-ingested, truncated, or another collection's point with the same id
    byte[] after = texts.of("p1", "new \"text\"");
    assertThat(after).isEqualTo(jackson("new \"text\"")).isNotEqualTo(before);
    assertThat(texts.of("p1", "old text")).isEqualTo(jackson("old text"));
  }

  @Test
  void withoutAPointIdNothingIsKept() {
    EscapedTexts texts = new EscapedTexts(EscapedTexts.MAX_BYTES);
    byte[] first = texts.of(null, "a\nb");
    assertThat(first).isEqualTo(jackson("a\nb"));
    assertThat(texts.of(null, "a\nb")).isNotSameAs(first).isEqualTo(first);
  }

  @Test
  void keepsNoMoreThanItsWeight() {
    // room for about two of these texts: the oldest go, and what comes back is still right
    String text = "x".repeat(1000);
    EscapedTexts texts = new EscapedTexts(6_000);
    for (int i = 0; i < 50; i++) {
      texts.of("p" + i, text + i);
    }
    assertThat(texts.weight()).isPositive().isLessThanOrEqualTo(6_000);
    for (int i = 0; i < 50; i++) {
      assertThat(texts.of("p" + i, text + i)).isEqualTo(jackson(text + i));
    }
  }
}
