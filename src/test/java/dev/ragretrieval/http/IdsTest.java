package dev.ragretrieval.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IdsTest {

  @Test
  void versionFourUuidsThatDoNotRepeat() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      String id = Ids.random();
      UUID parsed = UUID.fromString(id);
      assertThat(parsed.version()).isEqualTo(4);
      assertThat(parsed.variant()).isEqualTo(2);
      assertThat(parsed.toString()).isEqualTo(id);
      seen.add(id);
    }
    assertThat(seen).hasSize(10_000);
  }
}
