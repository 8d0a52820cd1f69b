package dev.ragretrieval.observability;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;

/**
 * The container image's HEALTHCHECK: the JRE image has neither curl nor wget, so a tiny JVM asks
 * /health/live and exits 0 (healthy) or 1. Uses only the JDK so it starts fast from the fat jar.
 * Usage: {@code java -cp rag-retrieval.jar dev.ragretrieval.observability.HealthCheck [port]}.
 */
public final class HealthCheck {

  private HealthCheck() {}

  public static void main(String[] args) {
    String port = args.length > 0 ? args[0] : System.getenv().getOrDefault("RAG_HTTP_PORT", "8080");
    System.exit(live(Integer.parseInt(port.trim()), 3000) ? 0 : 1);
  }

  /** True when GET http://127.0.0.1:port/health/live answers 200 within {@code timeoutMs}. */
  public static boolean live(int port, int timeoutMs) {
    HttpURLConnection connection = null;
    try {
      connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/health/live").toURL().openConnection();
      connection.setConnectTimeout(timeoutMs);
      connection.setReadTimeout(timeoutMs);
      return connection.getResponseCode() == 200;
    } catch (IOException e) {
      return false;
    } finally {
      if (connection != null) {
        connection.disconnect();
      }
    }
  }
}
