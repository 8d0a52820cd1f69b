package dev.ragretrieval.app;

import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP/1.1 over a plain socket, for what a client library would hide: bytes that are not valid
 * UTF-8 on the request line, oversize heads, connections held open or fed one byte at a time,
 * and whether the server closed a connection.
 */
final class RawHttp {

  private RawHttp() {}

  /** {@code chunks}: how many data chunks a chunked body came in (one per write of the server); 0 otherwise. */
  record Response(String statusLine, int status, Map<String, String> headers, String body, int chunks) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    JsonObject error() {
      return new JsonObject(body).getJsonObject("error");
    }
  }

  static Socket connect(int port) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout(10_000);
    return socket;
  }

  /** A request whose head is {@code head} (request line and headers, no final blank line) and no body. */
  static byte[] get(String target, String... headers) {
    StringBuilder head = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: localhost\r\n");
    for (String header : headers) {
      head.append(header).append("\r\n");
    }
    return head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  static byte[] postJson(String target, byte[] body, String... headers) {
    StringBuilder head = new StringBuilder("POST " + target + " HTTP/1.1\r\nHost: localhost\r\n"
        + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n");
    for (String header : headers) {
      head.append(header).append("\r\n");
    }
    byte[] start = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[start.length + body.length];
    System.arraycopy(start, 0, all, 0, start.length);
    System.arraycopy(body, 0, all, start.length, body.length);
    return all;
  }

  /** Sends {@code request} on a new connection and reads one response. */
  static Response send(int port, byte[] request) throws IOException {
    try (Socket socket = connect(port)) {
      return send(socket, request);
    }
  }

  /** Sends {@code request} on {@code socket} and reads one response (Content-Length, chunked, or to the end). */
  static Response send(Socket socket, byte[] request) throws IOException {
    socket.getOutputStream().write(request);
    socket.getOutputStream().flush();
    return read(socket.getInputStream());
  }

  static Response read(InputStream in) throws IOException {
    String statusLine = line(in);
    if (statusLine == null) {
      throw new IOException("the server closed the connection without an answer");
    }
    Map<String, String> headers = new TreeMap<>();
    for (String line = line(in); line != null && !line.isEmpty(); line = line(in)) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    int chunks = 0;
    if (headers.containsKey("content-length")) {
      body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
    } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      for (int size = Integer.parseInt(line(in).trim(), 16); size > 0; size = Integer.parseInt(line(in).trim(), 16)) {
        body.write(in.readNBytes(size));
        chunks++;
        line(in);
      }
      line(in);
    } else {
      body.write(in.readAllBytes());
    }
    return new Response(statusLine, Integer.parseInt(statusLine.split(" ")[1]), headers,
        body.toString(StandardCharsets.UTF_8), chunks);
  }

  /** True when the server has closed (or reset) the connection: reading gives end of stream. */
  static boolean closedByServer(Socket socket) throws IOException {
    try {
      return socket.getInputStream().read() == -1;
    } catch (SocketException reset) {
      return true;
    }
  }

  /** Like {@link #closedByServer} but gives up after {@code millis} of silence, returning false. */
  static boolean closedWithin(Socket socket, int millis) throws IOException {
    int before = socket.getSoTimeout();
    socket.setSoTimeout(millis);
    try {
      return closedByServer(socket);
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } finally {
      socket.setSoTimeout(before);
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
  }
}
