package dev.ragretrieval.search.qdrant;

import static org.assertj.core.api.Assertions.assertThat;

import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.Match;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class QdrantFiltersTest {

  @Test
  @DisplayName("no keys (or only empty value lists) means no filter at all")
  void emptyFilter() {
    assertThat(QdrantFilters.of(Map.of())).isEmpty();
    assertThat(QdrantFilters.of(Map.of("chapter", List.of()))).isEmpty();
  }

  @Test
  @DisplayName("one value is an exact keyword, integer or boolean match; all keys must hold")
  void singleValues() {
    Filter filter = QdrantFilters.of(Map.of("chapter", List.of("m1"), "chunk_index", List.of(3), "draft", List.of(false)))
        .orElseThrow();

    assertThat(filter.getMustList()).extracting(c -> c.getField().getKey())
        .containsExactly("chapter", "chunk_index", "draft");
    assertThat(filter.getMust(0).getField().getMatch()).isEqualTo(Match.newBuilder().setKeyword("m1").build());
    assertThat(filter.getMust(1).getField().getMatch()).isEqualTo(Match.newBuilder().setInteger(3).build());
    assertThat(filter.getMust(2).getField().getMatch()).isEqualTo(Match.newBuilder().setBoolean(false).build());
  }

  @Test
  @DisplayName("several values match any: keywords, integers (JSON numbers like 2.0 count), or a should of exact matches")
  void severalValues() {
    Filter keywords = QdrantFilters.of(Map.of("section", List.of("Nodes", "Topics"))).orElseThrow();
    Filter integers = QdrantFilters.of(Map.of("chunk_index", List.of(1, 2.0, 3L))).orElseThrow();
    Filter mixed = QdrantFilters.of(Map.of("flag", List.of("yes", true))).orElseThrow();

    assertThat(keywords.getMust(0).getField().getMatch().getKeywords().getStringsList()).containsExactly("Nodes", "Topics");
    assertThat(integers.getMust(0).getField().getMatch().getIntegers().getIntegersList()).containsExactly(1L, 2L, 3L);
    Condition any = mixed.getMust(0);
    assertThat(any.getFilter().getShouldList()).extracting(c -> c.getField().getMatch())
        .containsExactly(Match.newBuilder().setKeyword("yes").build(), Match.newBuilder().setBoolean(true).build());
  }

  @Test
  @DisplayName("a fractional number is matched as a one-point range")
  void fractionalNumber() {
    Filter filter = QdrantFilters.of(Map.of("ratio", List.of(0.5))).orElseThrow();

    assertThat(filter.getMust(0).getField().getRange().getGte()).isEqualTo(0.5);
    assertThat(filter.getMust(0).getField().getRange().getLte()).isEqualTo(0.5);
  }

  @Test
  @DisplayName("stale chunks: source_url must match and the kept ids must not")
  void staleChunks() {
    String keep = "5c56c793-69f3-4fbf-87e6-c4bf54c28c26";
    Filter filter = QdrantFilters.staleChunks("https://x/a", List.of(keep));

    assertThat(filter.getMust(0).getField().getKey()).isEqualTo("source_url");
    assertThat(filter.getMust(0).getField().getMatch().getKeyword()).isEqualTo("https://x/a");
    assertThat(filter.getMustNot(0).getHasId().getHasIdList()).extracting(id -> id.getUuid()).containsExactly(keep);
    assertThat(QdrantFilters.staleChunks("https://x/a", List.of()).getMustNotCount()).isZero();
  }
}
