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

  @Test
  @DisplayName("a shard whose only replica sits on a dead node is 503 CONNECTION_ERROR naming the collection and why, not a 502")
  void shardOnADeadNode() {
    // Qdrant 1.18.1's words when node 3 of a replication-factor-1 collection was SIGKILLed
    String said = "Service internal error: 1 of 1 read operations failed:\n  Service internal error: Tonic status error:"
        + " status: Unavailable, message: \"error trying to connect: tcp connect error: Connection refused (os error 111)\"";

    dev.ragretrieval.error.ServiceException error = QdrantErrors.fromStatus(io.vertx.grpc.common.GrpcStatus.INTERNAL,
        said, null, null, "book");

    assertThat(error.code()).isEqualTo(dev.ragretrieval.error.ErrorCode.CONNECTION_ERROR);
    assertThat(error.getMessage()).contains("collection 'book'").contains("replication_factor").contains("1 of 1 read operations failed");
    assertThat(QdrantErrors.fromStatus(io.vertx.grpc.common.GrpcStatus.INTERNAL, "Service internal error: disk full", null, null,
        "book").code()).isEqualTo(dev.ragretrieval.error.ErrorCode.UPSTREAM_ERROR);
  }
}
