package dev.ragretrieval.embedding;

import dev.ragretrieval.error.ServiceException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

/**
 * A {@link ServiceException} travelling back over the event bus as a reply. Vert.x fails the
 * requester's future with any {@link ReplyException} sent as a reply body, and the local codec
 * hands over this very instance, so code, message, details and retry-after arrive intact.
 */
final class EmbeddingFailure extends ReplyException {

  private final ServiceException error;

  EmbeddingFailure(ServiceException error) {
    super(ReplyFailure.RECIPIENT_FAILURE, error.code().ordinal(), error.getMessage(), null, false);
    this.error = error;
  }

  ServiceException error() {
    return error;
  }
}
