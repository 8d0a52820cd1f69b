package dev.ragretrieval.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Set;

/**
 * Checks a client key against the configured ones ({@code RAG_API_KEYS}). Keys are compared as
 * SHA-256 digests with {@link MessageDigest#isEqual}, and every configured key is compared, so
 * neither the time taken nor an early exit tells an attacker how close a guess was.
 */
final class ApiKeyAuth {

  private final List<byte[]> digests;

  ApiKeyAuth(Set<String> keys) {
    this.digests = keys.stream().map(ApiKeyAuth::digest).toList();
  }

  boolean required() {
    return !digests.isEmpty();
  }

  /** The key from {@code Authorization: Bearer <key>} or {@code X-API-Key: <key>}; null when neither. */
  static String presented(String authorization, String apiKeyHeader) {
    if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      String key = authorization.substring(7).trim();
      if (!key.isEmpty()) {
        return key;
      }
    }
    return apiKeyHeader == null || apiKeyHeader.isBlank() ? null : apiKeyHeader.trim();
  }

  boolean accepts(String presented) {
    if (presented == null) {
      return false;
    }
    byte[] candidate = digest(presented);
    boolean match = false;
    for (byte[] known : digests) {
      match |= MessageDigest.isEqual(known, candidate);
    }
    return match;
  }

  private static byte[] digest(String key) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
