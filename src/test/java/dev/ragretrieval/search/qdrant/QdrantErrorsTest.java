package dev.ragretrieval.search.qdrant;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.vertx.core.http.GoAway;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.StreamResetException;
import java.net.ConnectException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which transport failures mean Qdrant refused a call without processing it. */
class QdrantErrorsTest {

  @Test
  @DisplayName("a stream closed by GOAWAY, refused after GOAWAY, or reset REFUSED_STREAM may be sent again")
  void refusedBeforeProcessing() {
    assertThat(QdrantErrors.isRefusedUnprocessed(new HttpClosedException(new GoAway().setLastStreamId(3)))).isTrue();
    assertThat(QdrantErrors.isRefusedUnprocessed(Http2Exception.streamError(5, Http2Error.REFUSED_STREAM,
        "Cannot create stream %d greater than Last-Stream-ID %d from GOAWAY.", 5, 3))).isTrue();
    assertThat(QdrantErrors.isRefusedUnprocessed(new StreamResetException(0x7))).isTrue();
  }

  @Test
  @DisplayName("a refused connect, a plain close or another reset is not a refusal: the retry policy decides")
  void otherFailuresAreNotRefusals() {
    assertThat(QdrantErrors.isRefusedUnprocessed(new ConnectException("Connection refused"))).isFalse();
    assertThat(QdrantErrors.isRefusedUnprocessed(new HttpClosedException("Connection was closed"))).isFalse();
    assertThat(QdrantErrors.isRefusedUnprocessed(new StreamResetException(0x8))).isFalse();
  }
}
