package dev.ragretrieval.openapi;

import com.atlassian.oai.validator.report.MessageResolver;
import com.atlassian.oai.validator.report.ValidationReport;
import com.atlassian.oai.validator.schema.SchemaValidator;
import io.swagger.v3.core.util.Json;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The service's openapi.yaml (from the classpath, as the service serves it), parsed once for the tests. */
final class OpenApiSpec {

  /** Every operation docs/API.md names: method and path (sections 4 to 8). */
  static final List<String> CONTRACT_OPERATIONS = List.of(
      "POST /v1/retrieve",
      "GET /v1/retrieve/stream",
      "POST /v1/context",
      "POST /v1/retrieve/batch",
      "GET /v1/facets",
      "GET /v1/collections",
      "GET /health/live",
      "GET /health/ready",
      "GET /metrics",
      "GET /openapi.yaml",
      "GET /docs",
      "GET /");

  private static SwaggerParseResult parsed;

  private OpenApiSpec() {}

  static String text() {
    try (InputStream in = OpenApiSpec.class.getClassLoader().getResourceAsStream("openapi.yaml")) {
      if (in == null) {
        throw new IllegalStateException("openapi.yaml is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static synchronized SwaggerParseResult parse() {
    if (parsed == null) {
      ParseOptions options = new ParseOptions();
      options.setResolve(true);
      parsed = new OpenAPIV3Parser().readContents(text(), null, options);
    }
    return parsed;
  }

  static OpenAPI api() {
    return parse().getOpenAPI();
  }

  /** Errors of {@code value} (any Java/Jackson value) against {@code schema}, in the spec's context. */
  static ValidationReport validate(Object value, Schema<?> schema) {
    String json = value instanceof String s ? Json.pretty(s) : Json.pretty(value);
    return new SchemaValidator(api(), new MessageResolver()).validate(json, schema, "example");
  }

  @SuppressWarnings("rawtypes")
  static Schema component(String name) {
    Schema schema = api().getComponents().getSchemas().get(name);
    if (schema == null) {
      throw new IllegalArgumentException("no component schema " + name);
    }
    return schema;
  }
}
