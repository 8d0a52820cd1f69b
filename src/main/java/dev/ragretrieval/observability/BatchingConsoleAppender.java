package dev.ragretrieval.observability;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.joran.spi.ConsoleTarget;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The request log's appender: console lines gathered in a small buffer and written several at a
 * time, as web servers buffer their access logs. With one {@code write} call per line, on the
 * event loop that answered, the kernel took about 0.006 ms of the line's 0.014 ms of CPU
 * (bench/HISTORY.md, eighth and ninth passes). Lines still go out within {@link #setFlushMillis a second}, when the buffer
 * fills, when the appender stops and when the JVM exits (SIGTERM, {@code System.exit}); a JVM
 * killed outright loses about that last second of request lines. Every other logger keeps logback's
 * {@code ConsoleAppender}, which writes each line at once.
 *
 * <p>The buffer holds {@value #CHUNK} bytes, the size Linux writes to a pipe in one piece, and is
 * only ever emptied between lines: a collector reading the container's stdout never sees a request
 * line cut by another writer's line.
 */
public final class BatchingConsoleAppender extends OutputStreamAppender<ILoggingEvent> {

  static final int CHUNK = 4096;

  private String target = "System.out";
  private long flushMillis = 1000;
  private OutputStream sink;
  private ScheduledExecutorService flusher;
  private Thread atExit;

  /** {@code System.out} (the default) or {@code System.err}, as logback's ConsoleAppender takes it. */
  public void setTarget(String target) {
    this.target = target;
  }

  public String getTarget() {
    return target;
  }

  /** The longest a written line waits in the buffer (a second by default). */
  public void setFlushMillis(long flushMillis) {
    this.flushMillis = flushMillis;
  }

  /** Tests: where the bytes go instead of the process's stdout or stderr. */
  void setSink(OutputStream sink) {
    this.sink = sink;
  }

  @Override
  public void start() {
    ConsoleTarget console = ConsoleTarget.findByName(target);
    if (console == null) {
      addError("target must be System.out or System.err, not " + target);
      return;
    }
    setImmediateFlush(false);
    // logback's console stream writes to System.out (or err) as it is at each write, so a JVM that
    // replaced it (Maven's test runner) gets the lines; the JDK's standard streams flush after
    // every write, so a chunk is one write call (seen with strace on JDK 17 and 25)
    setOutputStream(new LineBuffer(sink != null ? sink : console.getStream()));
    super.start();
    flusher = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread thread = new Thread(task, "rag-request-log");
      thread.setDaemon(true);
      return thread;
    });
    flusher.scheduleWithFixedDelay(this::flush, flushMillis, flushMillis, TimeUnit.MILLISECONDS);
    atExit = new Thread(this::flush, "rag-request-log-exit");
    Runtime.getRuntime().addShutdownHook(atExit);
  }

  @Override
  public void stop() {
    if (!isStarted()) {
      return;
    }
    flusher.shutdownNow();
    try {
      Runtime.getRuntime().removeShutdownHook(atExit);
    } catch (IllegalStateException exiting) {
      // stopped by another shutdown hook: ours runs as well, and flushing twice is harmless
    }
    super.stop(); // closes the LineBuffer: flushes it, leaves the console open
  }

  /** Writes out whatever lines wait in the buffer. */
  void flush() {
    OutputStream out = getOutputStream();
    if (out == null) {
      return;
    }
    try {
      out.flush();
    } catch (IOException e) {
      addError("could not write the request log", e);
    }
  }

  /**
   * The buffer: BufferedOutputStream writes out what it holds before a line that does not fit,
   * and a line as long as the buffer on its own, so every write is whole lines. Closing it
   * flushes, but never closes the process's stdout.
   */
  private static final class LineBuffer extends BufferedOutputStream {
    LineBuffer(OutputStream console) {
      super(console, CHUNK);
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }
}
