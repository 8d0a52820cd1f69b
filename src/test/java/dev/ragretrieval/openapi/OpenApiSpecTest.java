package dev.ragretrieval.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.atlassian.oai.validator.report.ValidationReport;
import dev.ragretrieval.error.ErrorCode;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OpenApiSpecTest {

  @Test
  @DisplayName("openapi.yaml parses with the real OpenAPI parser without a single message")
  void parsesCleanly() {
    assertThat(OpenApiSpec.parse().getMessages()).isEmpty();
    assertThat(OpenApiSpec.api()).isNotNull();
    assertThat(OpenApiSpec.api().getOpenapi()).startsWith("3.");
  }

  @Test
  @DisplayName("every operation of the contract is described, and nothing else")
  void everyOperationDescribed() {
    assertThat(operations().keySet()).containsExactlyInAnyOrderElementsOf(OpenApiSpec.CONTRACT_OPERATIONS);
  }

  @Test
  @DisplayName("the error code enum is exactly the service's ErrorCode, and each code's status is documented")
  void errorCodes() {
    Schema<?> codes = OpenApiSpec.component("ErrorCode");
    List<String> documented = codes.getEnum().stream().map(String::valueOf).toList();
    assertThat(documented).containsExactlyElementsOf(Arrays.stream(ErrorCode.values()).map(Enum::name).toList());

    Set<String> statuses = operations().values().stream()
        .flatMap(op -> op.getResponses().keySet().stream()).collect(Collectors.toSet());
    for (ErrorCode code : ErrorCode.values()) {
      if (code != ErrorCode.NOT_FOUND) { // unknown paths cannot have an operation of their own
        assertThat(statuses).as("a response for %s", code).contains(String.valueOf(code.httpStatus()));
      }
      assertThat(String.valueOf(codes.getDescription())).contains(code.name() + " " + code.httpStatus());
    }
  }

  @Test
  @DisplayName("every /v1 operation accepts a bearer token or an X-API-Key header; operations endpoints need none")
  void security() {
    Map<String, SecurityScheme> schemes = OpenApiSpec.api().getComponents().getSecuritySchemes();
    assertThat(schemes.get("bearerAuth").getType()).isEqualTo(SecurityScheme.Type.HTTP);
    assertThat(schemes.get("bearerAuth").getScheme()).isEqualTo("bearer");
    assertThat(schemes.get("apiKeyHeader").getType()).isEqualTo(SecurityScheme.Type.APIKEY);
    assertThat(schemes.get("apiKeyHeader").getIn()).isEqualTo(SecurityScheme.In.HEADER);
    assertThat(schemes.get("apiKeyHeader").getName()).isEqualTo("X-API-Key");

    operations().forEach((name, op) -> {
      List<SecurityRequirement> security = op.getSecurity();
      assertThat(security).as(name).isNotNull();
      if (name.contains(" /v1/")) {
        assertThat(security).as(name).hasSize(2);
        assertThat(security.stream().flatMap(r -> r.keySet().stream()))
            .as(name).containsExactlyInAnyOrder("bearerAuth", "apiKeyHeader");
        assertThat(op.getResponses()).as(name).containsKey("401");
      } else {
        assertThat(security).as(name).isEmpty();
      }
    });
  }

  @Test
  @DisplayName("the retrieve request documents every field and alias of docs/API.md section 4, and context adds max_context_chars")
  void requestFields() {
    Schema<?> retrieve = OpenApiSpec.component("RetrieveRequest");
    assertThat(retrieve.getProperties().keySet()).contains("query", "text", "query_text", "top_k", "k",
        "score_threshold", "similarity_threshold", "filter", "filters", "collection", "include_context",
        "max_context_chars");
    assertThat(retrieve.getProperties().get("top_k").getMaximum()).isEqualByComparingTo("100");
    assertThat(retrieve.getProperties().get("score_threshold").getMaximum()).isEqualByComparingTo("1");

    Schema<?> batch = OpenApiSpec.component("BatchRequest");
    assertThat(batch.getProperties().get("queries").getMaxItems()).isEqualTo(32);

    Map<String, Parameter> streamParams = operations().get("GET /v1/retrieve/stream").getParameters().stream()
        .collect(Collectors.toMap(Parameter::getName, p -> p));
    assertThat(streamParams).containsKeys("query", "top_k", "score_threshold", "collection", "filter", "context");
    assertThat(operations().get("GET /v1/facets").getParameters()).anySatisfy(p -> {
      assertThat(p.getName()).isEqualTo("key");
      assertThat(p.getRequired()).isTrue();
    });
  }

  @Test
  @DisplayName("retrieve answers JSON, server-sent events and NDJSON, whose events are meta, chunk, context, done and error")
  void streamingDescribed() {
    Map<String, MediaType> content = operations().get("POST /v1/retrieve").getResponses().get("200").getContent();
    assertThat(content).containsOnlyKeys("application/json", "text/event-stream", "application/x-ndjson");
    assertThat(content.get("text/event-stream").getSchema().getDescription())
        .contains("meta", "chunk", "context", "done", "error");
    Schema<?> line = OpenApiSpec.component("StreamLine");
    assertThat(enumOf(line, "event"))
        .containsExactly("meta", "chunk", "context", "done", "error");
    Schema<?> batchLine = OpenApiSpec.component("BatchStreamLine");
    assertThat(enumOf(batchLine, "event")).containsExactly("result", "error", "done");
    assertThat(operations().get("POST /v1/retrieve/batch").getResponses().get("200").getContent())
        .containsKeys("application/json", "application/x-ndjson");
  }

  @Test
  @DisplayName("every example in the document validates against its schema")
  void examplesValidate() {
    List<String> failures = new ArrayList<>();
    int checked = 0;
    for (Map.Entry<String, Operation> entry : operations().entrySet()) {
      Operation op = entry.getValue();
      if (op.getRequestBody() != null) {
        checked += checkContent(entry.getKey() + " request", op.getRequestBody().getContent(), failures);
      }
      for (Map.Entry<String, ApiResponse> response : op.getResponses().entrySet()) {
        checked += checkContent(entry.getKey() + " " + response.getKey(), resolve(response.getValue()).getContent(), failures);
      }
      if (op.getParameters() != null) {
        for (Parameter p : op.getParameters()) {
          if (p.getExample() != null) {
            checked++;
            collect(entry.getKey() + " ?" + p.getName(), OpenApiSpec.validate(p.getExample(), p.getSchema()), failures);
          }
        }
      }
    }
    assertThat(failures).isEmpty();
    assertThat(checked).isGreaterThan(40);
  }

  @Test
  @DisplayName("the validator used for examples rejects a wrong body (the check can fail)")
  void validatorRejectsWrongBodies() {
    Map<String, Object> badError = Map.of("error", Map.of("code", "BOGUS", "message", "x"));
    assertThat(OpenApiSpec.validate(badError, OpenApiSpec.component("Error")).hasErrors()).isTrue();

    Map<String, Object> missingQueryId = new LinkedHashMap<>(Map.of("query", "q", "collection", "c"));
    assertThat(OpenApiSpec.validate(missingQueryId, OpenApiSpec.component("RetrievalResult")).hasErrors()).isTrue();

    // undocumented fields count as errors too: the document must name every field the service sends
    Map<String, Object> extra = Map.of("key", "chapter", "values", List.of(), "undocumented", true);
    assertThat(OpenApiSpec.validate(extra, OpenApiSpec.component("Facets")).hasErrors()).isTrue();

    Map<String, Object> noQuery = Map.of("top_k", 5);
    assertThat(OpenApiSpec.validate(noQuery, OpenApiSpec.component("RetrieveRequest")).hasErrors()).isTrue();
    assertThat(OpenApiSpec.validate(Map.of("query_text", "q"), OpenApiSpec.component("RetrieveRequest")).hasErrors()).isFalse();
  }

  private static int checkContent(String where, Map<String, MediaType> content, List<String> failures) {
    if (content == null) {
      return 0;
    }
    int checked = 0;
    for (Map.Entry<String, MediaType> media : content.entrySet()) {
      MediaType type = media.getValue();
      List<Object> examples = new ArrayList<>();
      if (type.getExample() != null) {
        examples.add(type.getExample());
      }
      if (type.getExamples() != null) {
        type.getExamples().values().forEach(e -> examples.add(e.getValue()));
      }
      assertThat(examples).as("an example for %s %s", where, media.getKey()).isNotEmpty();
      boolean json = media.getKey().contains("json");
      for (Object example : examples) {
        checked++;
        Object value = json ? example : String.valueOf(example);
        collect(where + " " + media.getKey(), OpenApiSpec.validate(value, type.getSchema()), failures);
      }
    }
    return checked;
  }

  private static void collect(String where, ValidationReport report, List<String> failures) {
    report.getMessages().stream()
        .filter(m -> m.getLevel() == ValidationReport.Level.ERROR)
        .forEach(m -> failures.add(where + ": " + m.getMessage()));
  }

  /** "METHOD /path" -> operation. */
  static Map<String, Operation> operations() {
    OpenAPI api = OpenApiSpec.api();
    Map<String, Operation> ops = new LinkedHashMap<>();
    for (Map.Entry<String, PathItem> path : api.getPaths().entrySet()) {
      path.getValue().readOperationsMap().forEach((method, op) -> ops.put(method + " " + path.getKey(), op));
    }
    return ops;
  }

  /** A response as written, or the component it refers to. */
  static ApiResponse resolve(ApiResponse response) {
    String ref = response.get$ref();
    if (ref == null) {
      return response;
    }
    ApiResponse target = OpenApiSpec.api().getComponents().getResponses().get(ref.substring(ref.lastIndexOf('/') + 1));
    assertThat(target).as("response %s", ref).isNotNull();
    return target;
  }

  private static List<String> enumOf(Schema<?> schema, String property) {
    return ((Schema<?>) schema.getProperties().get(property)).getEnum().stream().map(String::valueOf).toList();
  }
}
