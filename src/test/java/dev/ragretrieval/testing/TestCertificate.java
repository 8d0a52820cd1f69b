package dev.ragretrieval.testing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A self-signed certificate for {@code localhost}, for the TLS test servers: clients connect to
 * host {@code localhost} and trust {@link #certificatePem()} as their CA. The generated files are
 * read into memory and deleted at once: nothing is left behind.
 */
public record TestCertificate(String certificatePem, String privateKeyPem) {

  public static Future<TestCertificate> localhost(Vertx vertx) {
    return vertx.executeBlocking(() -> {
      SelfSignedCertificate generated = SelfSignedCertificate.create("localhost");
      try {
        return new TestCertificate(Files.readString(Path.of(generated.certificatePath())),
            Files.readString(Path.of(generated.privateKeyPath())));
      } finally {
        generated.delete();
      }
    });
  }

  /** The server side: this certificate and its key. */
  public PemKeyCertOptions keyCertOptions() {
    return new PemKeyCertOptions().addCertValue(Buffer.buffer(certificatePem)).addKeyValue(Buffer.buffer(privateKeyPem));
  }
}
