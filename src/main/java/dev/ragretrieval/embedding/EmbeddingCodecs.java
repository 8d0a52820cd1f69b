package dev.ragretrieval.embedding;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Local-only codecs for the embedding address: requests, responses and failures pass by reference
 * (vectors are never copied or turned into JSON on the local bus). Callers must not mutate the
 * vectors they receive.
 */
final class EmbeddingCodecs {

  private EmbeddingCodecs() {}

  /**
   * Registers the codecs on {@code vertx}'s event bus. Idempotent: the CLI and tests may deploy the
   * verticle (or build clients) more than once in one Vertx; the event bus offers no "is registered"
   * query, so a second registration's IllegalStateException is the signal.
   */
  static void register(Vertx vertx) {
    EventBus bus = vertx.eventBus();
    synchronized (EmbeddingCodecs.class) {
      registerOnce(bus, EmbedRequest.class);
      registerOnce(bus, EmbedResponse.class);
      registerOnce(bus, EmbeddingFailure.class);
    }
  }

  private static <T> void registerOnce(EventBus bus, Class<T> type) {
    try {
      bus.registerDefaultCodec(type, new LocalCodec<>(type));
    } catch (IllegalStateException alreadyRegistered) {
      // registered by an earlier deployment or client on this Vertx
    }
  }

  /** Hands the object itself to the consumer; refuses the wire (the address is local only). */
  private static final class LocalCodec<T> implements MessageCodec<T, T> {
    private final String name;

    LocalCodec(Class<T> type) {
      this.name = "rag-local-" + type.getSimpleName();
    }

    @Override
    public void encodeToWire(Buffer buffer, T value) {
      throw new UnsupportedOperationException(name + " is a local-only codec");
    }

    @Override
    public T decodeFromWire(int pos, Buffer buffer) {
      throw new UnsupportedOperationException(name + " is a local-only codec");
    }

    @Override
    public T transform(T value) {
      return value;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public byte systemCodecID() {
      return -1;
    }
  }
}
