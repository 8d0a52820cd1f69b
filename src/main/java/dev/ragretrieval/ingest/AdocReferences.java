package dev.ragretrieval.ingest;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * AsciiDoc's cross references without text of their own: {@code <<calibration>>} shows the title of
 * the section with that id ("Calibrating the IMU"), or the reftext its anchor gives
 * ({@code [[calibration,Calibration]]}). The id is no words a reader sees, so before a page is read
 * each such reference to a section of the same page (a book assembled with includes is one page) is
 * given the text it shows: {@code <<calibration,Calibrating the IMU>>}. A section's id is its anchor's
 * ({@code [[id]]} or {@code [#id]} above it), else the one Asciidoctor makes from its title
 * ({@code _calibrating_the_imu}, by the page's {@code idprefix} and {@code idseparator}; checked
 * against Asciidoctor.js 4.1) as it shows: its attribute references replaced, its emphasis marks
 * gone. A reference to another page, or to an id the page does not have, stays as written.
 */
final class AdocReferences {

  private static final Pattern UNTITLED = Pattern.compile("<<([^,>#\\s]+)>>");
  private static final Pattern ANCHOR = Pattern.compile("^\\[\\[([^,\\]\\s]+)(?:,[ \\t]*([^\\]]*?))?[ \\t]*]]$");
  private static final Pattern ID_ATTRIBUTE = Pattern.compile("^\\[#([^.%,\\]\\s]+)[^\\]]*]$");
  /** What gives no id: tags, character references, all but word characters, spaces, '-' and '.'. */
  private static final Pattern NOT_IN_ID = Pattern.compile(
      "<[^>]+>|&(?:[a-z][a-z]+\\d{0,2}|#\\d{3,5}|#x[\\da-f]{3,5});|[^ \\w.-]+", Pattern.UNICODE_CHARACTER_CLASS);
  private static final Pattern DASH = Pattern.compile("(?:^|[ \\t])--(?:[ \\t]|$)|(?<=\\w)--(?=\\w)",
      Pattern.UNICODE_CHARACTER_CLASS);
  /** Constrained ({@code _word_}) and unconstrained ({@code __wo__rd}) emphasis: its words, without the marks. */
  private static final Pattern EMPHASIS = Pattern.compile("__(.+?)__|(?<![\\w_])_(\\S|\\S.*?\\S)_(?![\\w_])",
      Pattern.UNICODE_CHARACTER_CLASS);
  /** Listing, literal, passthrough and comment blocks and fenced code: no sections inside. */
  private static final Pattern VERBATIM = Pattern.compile("^(-{4,}|\\.{4,}|\\+{4,}|/{4,}|```).*$");

  private AdocReferences() {}

  /** {@code adoc} with its untitled references to its own sections given the text they show. */
  static String resolve(String adoc) {
    if (!adoc.contains("<<")) {
      return adoc;
    }
    Map<String, String> titles = titles(adoc);
    return UNTITLED.matcher(adoc).replaceAll(reference -> {
      String title = titles.get(reference.group(1));
      // a '>' would end the reference early
      return Matcher.quoteReplacement(title == null || title.contains(">") ? reference.group()
          : "<<" + reference.group(1) + "," + title + ">>");
    });
  }

  /** Each section's id, and the text a reference to it shows. */
  private static Map<String, String> titles(String adoc) {
    Map<String, String> titles = new HashMap<>();
    Map<String, String> attributes = AdocReader.builtInAttributes();
    String prefix = "_";
    String separator = "_";
    String id = null; // an anchor's, for the block below it
    String reftext = null;
    String verbatim = null; // the delimiter that ends the block the line is in
    for (String line : adoc.split("\\R")) {
      String stripped = line.strip();
      if (verbatim != null) {
        verbatim = stripped.equals(verbatim) ? null : verbatim;
        continue;
      }
      Matcher setting = AdocReader.ATTRIBUTE_ENTRY.matcher(stripped);
      Matcher anchor = ANCHOR.matcher(stripped);
      Matcher idAttribute = ID_ATTRIBUTE.matcher(stripped);
      Matcher section = AdocReader.SECTION.matcher(line);
      if (VERBATIM.matcher(stripped).matches()) {
        verbatim = stripped.startsWith("```") ? "```" : stripped;
      } else if (setting.matches()) {
        // idprefix and idseparator shape the ids of the sections below; unset (!), their defaults
        String name = setting.group(1);
        String value = name.contains("!") ? "_" : setting.group(2) == null ? "" : setting.group(2).strip();
        AdocReader.setAttribute(attributes, setting);
        if (name.replace("!", "").equals("idprefix")) {
          prefix = value;
        } else if (name.replace("!", "").equals("idseparator")) {
          separator = value.isEmpty() ? "" : value.substring(0, 1); // Asciidoctor takes its first character
        }
        continue;
      } else if (anchor.matches()) {
        id = anchor.group(1);
        reftext = anchor.group(2) == null || anchor.group(2).isBlank() ? null : anchor.group(2).strip();
        continue;
      } else if (idAttribute.matches()) {
        id = idAttribute.group(1);
        reftext = null;
        continue;
      } else if (stripped.isEmpty() || AdocReader.BLOCK_ATTRIBUTES.matcher(stripped).matches()) {
        continue; // [discrete], [role=...]: the anchor above still names the block below
      } else if (section.matches() && section.group(1).length() > 1) { // not the document's title
        String title = section.group(2);
        String key = id != null ? id
            : unique(generatedId(shown(title, attributes), prefix, separator), separator, titles);
        titles.putIfAbsent(key, reftext != null ? reftext : title);
      }
      id = null;
      reftext = null;
    }
    return titles;
  }

  /** A section's title with its attributes' values and without emphasis marks, whose words make its id. */
  private static String shown(String title, Map<String, String> attributes) {
    String inlined = AdocReader.inline(title, attributes);
    return EMPHASIS.matcher(inlined)
        .replaceAll(m -> Matcher.quoteReplacement(m.group(1) != null ? m.group(1) : m.group(2)));
  }

  /** The id Asciidoctor gives a section without one of its own. */
  static String generatedId(String title, String prefix, String separator) {
    // Asciidoctor makes the id from the title as shown, where " -- " and "a--b" are dashes written as
    // character references (with the spaces around): they leave nothing
    String shown = DASH.matcher(title).replaceAll("");
    String id = prefix + NOT_IN_ID.matcher(shown.toLowerCase(Locale.ROOT)).replaceAll("");
    if (separator.isEmpty()) {
      return id.replace(" ", "");
    }
    // spaces, '.', '-' and the separator, each run of them one separator
    char sep = separator.charAt(0);
    String inClass = Character.isLetterOrDigit(sep) ? separator : "\\" + sep;
    id = id.replaceAll("[ .\\-" + inClass + "]+", Matcher.quoteReplacement(separator));
    if (id.endsWith(separator)) {
      id = id.substring(0, id.length() - 1);
    }
    return prefix.isEmpty() && id.startsWith(separator) ? id.substring(1) : id;
  }

  /** A second section with the same generated id gets "_2" (by the separator), a third "_3". */
  private static String unique(String id, String separator, Map<String, String> titles) {
    String candidate = id;
    for (int n = 2; titles.containsKey(candidate); n++) {
      candidate = id + (separator.isEmpty() ? "_" : separator) + n;
    }
    return candidate;
  }
}
