package dev.ragretrieval.observability;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import net.logstash.logback.argument.StructuredArgument;

/**
 * {@code %fields} of the plain pattern: a line's structured arguments that its message does not
 * place itself, as {@code " key=value"} after the message. The JSON encoder writes every structured
 * argument as a field of its own, so a message such as the request log's names none of them and
 * the JSON line carries each field once; this puts them back on a readable line.
 */
public final class StructuredFieldsConverter extends ClassicConverter {

  @Override
  public String convert(ILoggingEvent event) {
    Object[] arguments = event.getArgumentArray();
    if (arguments == null) {
      return "";
    }
    int placed = placeholders(event.getMessage());
    StringBuilder line = null;
    for (int i = placed; i < arguments.length; i++) {
      if (arguments[i] instanceof StructuredArgument field) {
        line = line == null ? new StringBuilder() : line;
        line.append(' ').append(field);
      }
    }
    return line == null ? "" : line.toString();
  }

  private static int placeholders(String message) {
    int count = 0;
    for (int at = message == null ? -1 : message.indexOf("{}"); at >= 0; at = message.indexOf("{}", at + 2)) {
      count++;
    }
    return count;
  }
}
