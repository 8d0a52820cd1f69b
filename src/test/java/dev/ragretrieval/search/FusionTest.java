package dev.ragretrieval.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ragretrieval.config.AppConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class FusionTest {

  @Test
  @DisplayName("weight 1: a hit at rank r adds 1 / (k + r), the paper's RRF; Qdrant gets k + 1 for its positions from 0")
  void paperFormula() {
    Fusion fusion = new Fusion(60, 1.0, 1.0, 40);

    assertThat(fusion.dense(1)).isCloseTo(1f / 61, within(1e-9f));
    assertThat(fusion.keyword(10)).isCloseTo(1f / 70, within(1e-9f));
    assertThat(fusion.qdrantK()).isEqualTo(61);
    // Qdrant's position_score(position, k', w) = 1 / ((position + 1) / w + k' - 1), position from 0
    float qdrant = 1f / ((float) (9 + 1) / 1f + (float) fusion.qdrantK() - 1f);
    assertThat(fusion.keyword(10)).isEqualTo(qdrant);
  }

  @Test
  @DisplayName("a weight stretches its list: weight 2 makes rank 4 count like rank 2 of a weight-1 list; weight 0 adds nothing but keeps the id")
  void weights() {
    Fusion fusion = new Fusion(10, 2.0, 0.0, 40);

    assertThat(fusion.dense(4)).isEqualTo(new Fusion(10, 1.0, 1.0, 40).dense(2));
    assertThat(fusion.keyword(1)).isZero();
    Map<String, Float> scores = fusion.scores(List.of("a", "b"), List.of("c", "a"));
    assertThat(scores).containsOnlyKeys("a", "b", "c");
    assertThat(scores.get("c")).isZero();
    assertThat(scores.get("a")).isEqualTo(fusion.dense(1));
  }

  @Test
  @DisplayName("a hit in both lists sums both; swapped ranks tie exactly, and the order breaks ties by cosine, then id")
  void tieBreak() {
    Fusion fusion = new Fusion(60, 1.0, 1.0, 40);
    Map<String, Float> scores = fusion.scores(List.of("x", "y", "z"), List.of("y", "x"));

    assertThat(scores.get("x")).isEqualTo(scores.get("y")).isEqualTo(fusion.dense(1) + fusion.keyword(2));
    List<Fusion.Fused> fused = new ArrayList<>(List.of(
        new Fusion.Fused("b", scores.get("x"), 0.5f),
        new Fusion.Fused("a", scores.get("y"), 0.5f),
        new Fusion.Fused("c", scores.get("y"), 0.9f),
        new Fusion.Fused("z", scores.get("z"), 0.99f)));
    fused.sort(Fusion.ORDER);
    assertThat(fused).extracting(Fusion.Fused::id).containsExactly("c", "a", "b", "z");
  }

  @Test
  @DisplayName("each list gives max(limit x 4, candidates); the settings' values become the fusion; both weights 0 is refused")
  void candidatesAndSettings() {
    Fusion fusion = Fusion.of(new AppConfig.Fusion(20, 1.0, 0.5, 30));

    assertThat(fusion.candidatesFor(5)).isEqualTo(30);
    assertThat(fusion.candidatesFor(10)).isEqualTo(40);
    assertThat(fusion).isEqualTo(new Fusion(20, 1.0, 0.5, 30));
    assertThat(Fusion.DEFAULT).isEqualTo(Fusion.of(AppConfig.Fusion.DEFAULT));
    assertThatThrownBy(() -> new Fusion(20, 0, 0, 30)).isInstanceOf(IllegalArgumentException.class);
  }
}
