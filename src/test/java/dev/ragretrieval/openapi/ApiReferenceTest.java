package dev.ragretrieval.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.cli.RootCommand;
import dev.ragretrieval.config.ConfigLoader;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * docs/API.md and /openapi.yaml describe one API: each path, error code and request field named
 * in one is named in the other, and the reference names every variable and verb the jar knows.
 */
@DisplayName("docs/API.md says the same as openapi.yaml, and names every variable and CLI verb")
class ApiReferenceTest {

  private static final Path REFERENCE = Path.of("docs/API.md");
  private static final Pattern OPERATION = Pattern.compile("(?:`|## \\d[a-z]?\\. )(GET|POST) (/[^`?\\s]*)");
  /** A row of a Markdown table whose first cell is one backticked name. */
  private static final Pattern FIRST_CELL = Pattern.compile("(?m)^\\| `([^`]+)` \\|([^|]*)\\|");

  private static String reference() throws IOException {
    return Files.readString(REFERENCE);
  }

  /** The text of one section, from its "## N." heading to the next "## ". */
  private static String section(String number) throws IOException {
    String text = reference();
    int start = text.indexOf("\n## " + number + ". ");
    assertThat(start).as("section %s of docs/API.md", number).isNotNegative();
    int end = text.indexOf("\n## ", start + 1);
    return end < 0 ? text.substring(start) : text.substring(start, end);
  }

  /** Inline code spans (fenced blocks left out: their backticks would pair up wrongly). */
  private static Set<String> backticked(String text) {
    Set<String> names = new TreeSet<>();
    Matcher m = Pattern.compile("`([^`\n]+)`").matcher(text.replaceAll("(?s)```.*?```", ""));
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  @Test
  @DisplayName("every operation of openapi.yaml is named in docs/API.md as `METHOD /path`, and every one named there exists")
  void sameOperations() throws IOException {
    Set<String> documented = new TreeSet<>();
    Matcher m = OPERATION.matcher(reference());
    while (m.find()) {
      documented.add(m.group(1) + " " + m.group(2));
    }
    Set<String> described = new TreeSet<>(OpenApiSpecTest.operations().keySet());
    assertThat(documented).containsExactlyInAnyOrderElementsOf(described);
  }

  @Test
  @DisplayName("the error table of section 7 lists exactly the codes of openapi.yaml's ErrorCode, with their statuses")
  void sameErrorCodes() throws IOException {
    List<String> rows = new ArrayList<>();
    Matcher m = FIRST_CELL.matcher(section("7"));
    while (m.find()) {
      rows.add(m.group(1) + " " + m.group(2).trim());
    }
    Schema<?> codes = OpenApiSpec.component("ErrorCode");
    List<String> enumCodes = codes.getEnum().stream().map(String::valueOf).toList();
    assertThat(rows.stream().map(r -> r.split(" ")[0]).toList()).containsExactlyInAnyOrderElementsOf(enumCodes);
    // the statuses agree with openapi's "CODE status" list
    rows.forEach(row -> assertThat(String.valueOf(codes.getDescription()).replaceAll("\\s+", " ")).contains(row));
  }

  @Test
  @DisplayName("every request field and alias of openapi.yaml's request schemas and query parameters is named in docs/API.md")
  void requestFieldsDocumented() throws IOException {
    Set<String> named = backticked(reference());
    Set<String> fields = new LinkedHashSet<>();
    for (String schema : List.of("RetrieveRequest", "BatchRequest")) {
      fields.addAll(OpenApiSpec.component(schema).getProperties().keySet());
    }
    for (Operation op : OpenApiSpecTest.operations().values()) {
      if (op.getParameters() != null) {
        op.getParameters().stream().map(Parameter::getName).forEach(fields::add);
      }
    }
    assertThat(fields).isNotEmpty();
    fields.forEach(field -> assertThat(named).as("`%s` in docs/API.md", field)
        .anySatisfy(token -> assertThat(token).matches(Pattern.quote(field) + "([= ].*)?")));
  }

  @Test
  @DisplayName("every field and alias in section 4's request table is a property of openapi.yaml's RetrieveRequest")
  void documentedFieldsExist() throws IOException {
    Set<String> properties = OpenApiSpec.component("RetrieveRequest").getProperties().keySet();
    Matcher m = Pattern.compile("(?m)^\\| `(\\w+)` \\| ([^|]*)\\|").matcher(section("4"));
    List<String> documented = new ArrayList<>();
    while (m.find()) {
      documented.add(m.group(1));
      documented.addAll(backticked(m.group(2)));
    }
    assertThat(documented).contains("query", "top_k", "collection");
    assertThat(properties).containsAll(documented);
  }

  @Test
  @DisplayName("section 2 names every environment variable the service reads, and no other")
  void everyVariable() throws IOException {
    List<String> documented = new ArrayList<>();
    Matcher m = FIRST_CELL.matcher(section("2"));
    while (m.find()) {
      documented.add(m.group(1));
    }
    assertThat(documented).containsExactlyInAnyOrderElementsOf(ConfigLoader.environmentVariables());
  }

  @Test
  @DisplayName("section 1 names every CLI verb and each of its long options")
  void everyVerb() throws IOException {
    String cli = section("1");
    for (Class<?> verb : RootCommand.class.getAnnotation(Command.class).subcommands()) {
      String name = verb.getAnnotation(Command.class).name();
      assertThat(cli).as("verb %s", name).contains("| `" + name);
      for (Field field : verb.getDeclaredFields()) {
        Option option = field.getAnnotation(Option.class);
        if (option != null) {
          for (String flag : option.names()) {
            if (flag.startsWith("--")) {
              assertThat(cli).as("%s %s", name, flag).contains(flag);
            }
          }
        }
      }
    }
  }

  @Test
  @DisplayName("the section links at the top point at headings that exist (GitHub's and /docs's anchors)")
  void sectionLinks() throws IOException {
    String text = reference();
    Set<String> anchors = new TreeSet<>();
    Matcher heading = Pattern.compile("(?m)^## (.+)$").matcher(text);
    while (heading.find()) {
      anchors.add(heading.group(1).toLowerCase().replace(' ', '-').replaceAll("[^a-z0-9_-]", ""));
    }
    Matcher link = Pattern.compile("\\]\\(#([^)]+)\\)").matcher(text);
    int links = 0;
    while (link.find()) {
      links++;
      assertThat(anchors).contains(link.group(1));
    }
    assertThat(links).isEqualTo(anchors.size());
  }
}
