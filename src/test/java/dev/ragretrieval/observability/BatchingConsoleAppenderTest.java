package dev.ragretrieval.observability;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("BatchingConsoleAppender: request lines written several at a time, whole, and never lost at stop")
class BatchingConsoleAppenderTest {

  private final Writes console = new Writes();
  private final Logger logger = Logging.context().getLogger("test.batching");
  private BatchingConsoleAppender appender;

  @AfterEach
  void detach() {
    logger.detachAndStopAllAppenders();
  }

  @Test
  @DisplayName("lines go out in writes of whole lines, at most 4096 bytes each, in order, far fewer writes than lines")
  void wholeLinesTogether() {
    attach(3_600_000);
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      String line = "request " + i + " " + "x".repeat(50 + (i * 37) % 250);
      logger.info(line);
      expected.append(line).append('\n');
    }
    appender.stop();

    assertThat(console.text()).isEqualTo(expected.toString());
    assertThat(console.writes.size()).as("writes for 300 lines").isLessThan(40);
    for (byte[] write : console.writes) {
      assertThat(write.length).isLessThanOrEqualTo(BatchingConsoleAppender.CHUNK);
      assertThat(write[write.length - 1]).as("a write ends at the end of a line").isEqualTo((byte) '\n');
    }
  }

  @Test
  @DisplayName("a line longer than the buffer is written whole, after the lines before it")
  void longLine() {
    attach(3_600_000);
    logger.info("short");
    String longLine = "y".repeat(10_000);
    logger.info(longLine);
    appender.stop();

    assertThat(console.text()).isEqualTo("short\n" + longLine + "\n");
    assertThat(console.writes).hasSize(2);
  }

  @Test
  @DisplayName("nothing is written while the buffer has room and the interval has not passed; stopping writes it all, and leaves the console open")
  void stopFlushes() {
    attach(3_600_000);
    logger.info("one");
    logger.info("two");
    assertThat(console.writes).as("held in the buffer").isEmpty();

    appender.stop();

    assertThat(console.text()).isEqualTo("one\ntwo\n");
    assertThat(console.closed).as("stdout closed").isFalse();
  }

  @Test
  @DisplayName("a lone line reaches the console within the flush interval, with nothing else logged")
  void loneLineWithinInterval() throws InterruptedException {
    attach(50);
    logger.info("alone");

    long giveUp = System.currentTimeMillis() + 5_000;
    while (console.writes.isEmpty() && System.currentTimeMillis() < giveUp) {
      Thread.sleep(10);
    }
    assertThat(console.text()).isEqualTo("alone\n");
  }

  @Test
  @DisplayName("without a sink the lines go through System.out as it is when written, as the console appender's do")
  void throughSystemOut() {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      attach(3_600_000, null);
      logger.info("to the replaced stdout");
      appender.stop();
    } finally {
      System.setOut(original);
    }
    // contains, not equals: the service's own request-log appender (logback.xml) also writes through
    // System.out, and its flush thread may empty lines of earlier tests into it meanwhile
    assertThat(captured.toString(StandardCharsets.UTF_8).lines()).contains("to the replaced stdout");
  }

  @Test
  @DisplayName("the request logger writes through this appender, not line by line through the console appender")
  void requestLoggerUsesIt() {
    Logger requests = Logging.context().getLogger("rag.request");
    List<String> names = new ArrayList<>();
    requests.iteratorForAppenders().forEachRemaining(a -> names.add(a.getClass().getSimpleName()));
    assertThat(names).contains("BatchingConsoleAppender");
    assertThat(requests.isAdditive()).as("also sent to the root's console appender").isFalse();
  }

  private void attach(long flushMillis) {
    attach(flushMillis, console);
  }

  private void attach(long flushMillis, OutputStream sink) {
    LoggerContext context = Logging.context();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%msg%n");
    encoder.start();
    appender = new BatchingConsoleAppender();
    appender.setContext(context);
    appender.setEncoder(encoder);
    if (sink != null) {
      appender.setSink(sink);
    }
    appender.setFlushMillis(flushMillis);
    appender.start();
    assertThat(appender.isStarted()).isTrue();
    logger.setAdditive(false);
    logger.addAppender(appender);
  }

  /** Every write call on its own, as the kernel would see them. */
  private static final class Writes extends OutputStream {
    final List<byte[]> writes = Collections.synchronizedList(new ArrayList<>());
    volatile boolean closed;

    @Override
    public void write(int b) {
      writes.add(new byte[] {(byte) b});
    }

    @Override
    public void write(byte[] b, int off, int len) {
      byte[] copy = new byte[len];
      System.arraycopy(b, off, copy, 0, len);
      writes.add(copy);
    }

    @Override
    public void close() {
      closed = true;
    }

    String text() {
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      synchronized (writes) {
        writes.forEach(all::writeBytes);
      }
      return all.toString(StandardCharsets.UTF_8);
    }
  }
}
