package dev.ragretrieval.search;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one rule for collection names. Any name a request, a setting or a CLI verb gives must be
 * {@link #RULE}; the embedded store, which keeps a collection in a folder of that name, also
 * needs {@link #EMBEDDED_RULE}. Qdrant itself accepts more; these are the service's names.
 */
public record CollectionName(String value) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,255}");
  private static final Pattern EMBEDDED = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  /** {@link #NAME} in words, for error messages. */
  public static final String RULE = "1 to 255 characters, each a letter, digit, '_', '-' or '.'";
  /** The embedded store's stricter rule in words. */
  public static final String EMBEDDED_RULE =
      "1 to 128 characters: letters, digits, '_', '.' and '-', starting with a letter or digit";

  public CollectionName {
    if (!isValid(value)) {
      throw new IllegalArgumentException("a collection name is " + RULE);
    }
  }

  public static boolean isValid(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /** Why {@code name} cannot name a collection of the store (embedded or Qdrant), if it cannot. */
  public static Optional<String> problem(String name, boolean embedded) {
    boolean ok = embedded ? name != null && EMBEDDED.matcher(name).matches() : isValid(name);
    return ok ? Optional.empty()
        : Optional.of("invalid collection name '" + name + "': a collection name is " + (embedded ? EMBEDDED_RULE : RULE));
  }

  @Override
  public String toString() {
    return value;
  }
}
