package dev.ragretrieval.ingest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * The translations a site publishes beside its pages, which are not read: the same pages again in
 * other languages, whose words compete with the original's for a question and cost their embedding
 * (Docusaurus keeps its own in {@code i18n/}, which the folder reader never enters). A translation
 * is in a language's folder ({@code folders}: Starlight's and VitePress' {@code locales}, Hugo's
 * per-language {@code contentDir}, mkdocs-static-i18n's {@code docs_structure: folder}) or is a file
 * named with the language's code ({@code codes}: {@code setup.fr.md}, as Hugo and mkdocs-static-i18n
 * name them by default). A page may carry the default language's code too ({@code setup.en.md});
 * the site then serves it without the code ({@code marked}).
 *
 * @param folders the translations' folders, below the folder read ("docs/fr/")
 * @param codes the other languages' codes, as they end a translation's file name
 * @param marked the default language's code, when a page's name may end with it; else null
 * @param home the default language's own folder, which the site serves at its root ("docs/en/",
 *     Hugo's "content/en/"); null when its pages are not in a folder of their own
 * @param served where below the site's address the default language's pages are served: "" (its
 *     root), or Hugo's language folder ("en/") with {@code defaultContentLanguageInSubdir}
 */
record SiteLanguages(List<String> folders, List<String> codes, String marked, String home, String served) {

  static final SiteLanguages NONE = new SiteLanguages(List.of(), List.of(), null, null);

  /** A locale in a Starlight or VitePress {@code locales} object: {@code 'zh-cn': { label: '...', lang: 'zh-CN' }}. */
  private static final Pattern LOCALE = Pattern.compile(
      "(?m)^[ \\t]*['\"]?([a-z]{2,3}(?:-[A-Za-z]{2,4})?|root)['\"]?[ \\t]*:[ \\t]*\\{[^\\n]*\\b(?:lang|label)[ \\t]*:");
  /** A language's code: {@code fr}, {@code pt-br}, {@code zh_Hans}. */
  private static final Pattern CODE = Pattern.compile("[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?");
  private static final Pattern I18N_PLUGIN = Pattern.compile("^([ \\t]*)-[ \\t]*i18n[ \\t]*:?[ \\t]*$");
  private static final Pattern LOCALE_ENTRY = Pattern.compile("^[ \\t]*(?:-[ \\t]*)?locale[ \\t]*:[ \\t]*['\"]?([\\w-]+)");
  private static final Pattern TRUE_KEY = Pattern.compile("^[ \\t]*(?:-[ \\t]*)?default[ \\t]*:[ \\t]*true\\b");
  private static final Pattern FOLDER_STRUCTURE = Pattern.compile("^[ \\t]*docs_structure[ \\t]*:[ \\t]*['\"]?folder\\b");
  private static final Pattern OLD_DEFAULT = Pattern.compile("^[ \\t]*default_language[ \\t]*:[ \\t]*['\"]?([\\w-]+)");
  // Hugo's settings' keys are case-insensitive
  private static final Pattern HUGO_DEFAULT =
      Pattern.compile("(?im)^[ \\t]*['\"]?defaultContentLanguage['\"]?[ \\t]*[=:][ \\t]*['\"]?([\\w-]+)");
  private static final Pattern HUGO_IN_SUBDIR =
      Pattern.compile("(?im)^[ \\t]*['\"]?defaultContentLanguageInSubdir['\"]?[ \\t]*[=:][ \\t]*true\\b");
  private static final Pattern TOML_TABLE = Pattern.compile("^[ \\t]*\\[+[ \\t]*([^\\]]+?)[ \\t]*]+");
  private static final Pattern TOML_CONTENT_DIR = Pattern.compile("^[ \\t]*contentDir[ \\t]*=[ \\t]*['\"]([^'\"]+)['\"]");

  SiteLanguages {
    folders = List.copyOf(folders);
    codes = List.copyOf(codes);
  }

  /** A site that serves its default language's pages at its root. */
  SiteLanguages(List<String> folders, List<String> codes, String marked, String home) {
    this(folders, codes, marked, home, "");
  }

  /** Whether the page at {@code path} is a translation: in a language's folder, or named with another language's code. */
  boolean isTranslation(String path) {
    for (String folder : folders) {
      if (path.startsWith(folder)) {
        return true;
      }
    }
    String name = MarkdownReader.withoutExtension(path.substring(path.lastIndexOf('/') + 1));
    for (String code : codes) {
      if (name.endsWith("." + code)) {
        return true;
      }
    }
    return false;
  }

  /** A page's name ("setup.en") as the site serves it: without the default language's code. */
  String unmarked(String name) {
    return marked != null && name.endsWith("." + marked) ? name.substring(0, name.length() - marked.length() - 1) : name;
  }

  /** What is left out, for the run's note: the folders, and the file names ("*.fr.md"). */
  List<String> named() {
    List<String> named = new ArrayList<>(folders);
    codes.forEach(code -> named.add("*." + code + ".md"));
    return named;
  }

  /**
   * A Starlight or VitePress site's: its {@code locales} but the root one, each a folder below the
   * pages' root ({@code de: { label: 'Deutsch', lang: 'de' }} is {@code src/content/docs/de/}). A
   * locale is a key whose object names its {@code lang} or {@code label} on the same line, as both
   * generators' documentation writes them.
   */
  static SiteLanguages locales(String config, String pagesRoot) {
    int locales = config.indexOf("locales");
    if (locales < 0) {
      return NONE;
    }
    List<String> folders = new ArrayList<>();
    Matcher locale = LOCALE.matcher(config);
    locale.region(locales, config.length());
    while (locale.find()) {
      String name = locale.group(1);
      if (!name.equals("root") && !folders.contains(pagesRoot + name + "/")) {
        folders.add(pagesRoot + name + "/");
      }
    }
    return new SiteLanguages(folders, List.of(), null, null);
  }

  /**
   * An MkDocs site's, from mkdocs-static-i18n's settings in {@code mkdocs.yml}: its {@code languages}
   * ({@code - locale: fr}, the one with {@code default: true} first otherwise), or the older
   * {@code default_language} and {@code languages} map. By default translations are named
   * {@code setup.fr.md}; with {@code docs_structure: folder} each language has its folder below
   * {@code docs}, the default one's ({@link #home}) served at the site's root.
   */
  static SiteLanguages mkdocs(String mkdocsYml, String docs) {
    I18nPlugin plugin = I18nPlugin.of(mkdocsYml);
    if (plugin == null) {
      return NONE;
    }
    List<String> others = plugin.locales().stream().filter(code -> !code.equals(plugin.main())).distinct().toList();
    return plugin.folders()
        ? new SiteLanguages(others.stream().map(code -> docs + code + "/").toList(), List.of(), null,
            docs + plugin.main() + "/")
        : new SiteLanguages(List.of(), others, plugin.main(), null);
  }

  /** mkdocs-static-i18n's settings: its languages' codes, the default one's, and whether each has a folder. */
  private record I18nPlugin(List<String> locales, String main, boolean folders) {

    /** Null without the plugin or without languages. */
    static I18nPlugin of(String mkdocsYml) {
      List<String> lines = plugin(mkdocsYml);
      List<String> locales = new ArrayList<>();
      String main = null;
      boolean folders = false;
      for (String line : lines) {
        Matcher entry = LOCALE_ENTRY.matcher(line);
        Matcher old = OLD_DEFAULT.matcher(line);
        if (entry.find()) {
          locales.add(entry.group(1));
        } else if (TRUE_KEY.matcher(line).find() && !locales.isEmpty() && main == null) {
          main = locales.get(locales.size() - 1);
        } else if (FOLDER_STRUCTURE.matcher(line).find()) {
          folders = true;
        } else if (old.find()) {
          main = old.group(1);
        }
      }
      if (locales.isEmpty()) {
        locales.addAll(oldLanguages(lines));
      }
      return locales.isEmpty() ? null : new I18nPlugin(locales, main != null ? main : locales.get(0), folders);
    }
  }

  /** The lines of mkdocs.yml's {@code - i18n:} plugin entry, indented below it; empty without one. */
  private static List<String> plugin(String mkdocsYml) {
    List<String> block = new ArrayList<>();
    int indent = -1;
    for (String line : mkdocsYml.split("\\R")) {
      if (indent < 0) {
        Matcher start = I18N_PLUGIN.matcher(line);
        if (start.matches()) {
          indent = start.group(1).length();
        }
        continue;
      }
      if (!line.isBlank() && line.length() - line.stripLeading().length() <= indent) {
        break;
      }
      block.add(line);
    }
    return block;
  }

  /** mkdocs-static-i18n 0.x's {@code languages: {fr: Français}}: the map's keys. */
  private static List<String> oldLanguages(List<String> lines) {
    List<String> codes = new ArrayList<>();
    int keyIndent = -1;
    boolean in = false;
    for (String line : lines) {
      String stripped = line.strip();
      int indent = line.length() - line.stripLeading().length();
      if (stripped.startsWith("languages:")) {
        in = true;
        keyIndent = -1;
        continue;
      }
      if (!in || stripped.isEmpty()) {
        continue;
      }
      if (keyIndent < 0) {
        keyIndent = indent;
      }
      if (indent < keyIndent) {
        in = false;
        continue;
      }
      int colon = stripped.indexOf(':');
      if (indent == keyIndent && colon > 0 && CODE.matcher(stripped.substring(0, colon)).matches()) {
        codes.add(stripped.substring(0, colon));
      }
    }
    return codes;
  }

  /**
   * A Hugo site's, from its settings ({@code hugo.toml}, .yaml or .json): its {@code languages} but
   * {@code defaultContentLanguage} ("en" unless set). A language with its own {@code contentDir}
   * keeps its pages there (the default one's is {@link #home}); otherwise translations are named
   * {@code setup.fr.md}, and a page may be named {@code setup.en.md}. With
   * {@code defaultContentLanguageInSubdir}, the default language's pages are served in its folder
   * ({@code en/guide/setup/}), even when it is the only language (as Hugo 0.140 builds them).
   *
   * @param toml whether the settings are TOML (else YAML or JSON)
   */
  static SiteLanguages hugo(String config, boolean toml) {
    Map<String, String> languages = hugoLanguages(config, toml);
    String main = hugoDefault(config);
    // Hugo writes its addresses in lower case, the language's folder too ("pt-br/")
    String served = HUGO_IN_SUBDIR.matcher(config).find() ? main.toLowerCase(Locale.ROOT) + "/" : "";
    if (languages.isEmpty()) {
      return served.isEmpty() ? NONE : new SiteLanguages(List.of(), List.of(), null, null, served);
    }
    List<String> folders = new ArrayList<>();
    List<String> codes = new ArrayList<>();
    languages.forEach((code, contentDir) -> {
      if (!code.equals(main)) {
        if (contentDir != null) {
          folders.add(folder(contentDir));
        }
        codes.add(code.toLowerCase(Locale.ROOT));
      }
    });
    String home = languages.get(main);
    return new SiteLanguages(folders, codes, main, home == null ? null : folder(home), served);
  }

  private static String hugoDefault(String config) {
    Matcher setting = HUGO_DEFAULT.matcher(config);
    return setting.find() ? setting.group(1).toLowerCase(Locale.ROOT) : "en";
  }

  /** Each language's code (lower case, as Hugo reads it) and its own contentDir (or null). */
  private static Map<String, String> hugoLanguages(String config, boolean toml) {
    Map<String, String> languages = new LinkedHashMap<>();
    if (toml) {
      String current = null;
      for (String line : config.split("\\R")) {
        Matcher table = TOML_TABLE.matcher(line);
        if (table.find()) {
          String[] name = table.group(1).replace("\"", "").replace("'", "").split("\\.");
          current = name.length >= 2 && name[0].strip().equals("languages") ? name[1].strip().toLowerCase(Locale.ROOT)
              : null;
          if (current != null) {
            languages.putIfAbsent(current, null);
          }
          continue;
        }
        Matcher contentDir = TOML_CONTENT_DIR.matcher(line);
        if (current != null && contentDir.find()) {
          languages.put(current, contentDir.group(1));
        }
      }
      return languages;
    }
    Object settings;
    try {
      settings = new Yaml(new SafeConstructor(new LoaderOptions())).load(config);
    } catch (YAMLException e) {
      return languages;
    }
    if (settings instanceof Map<?, ?> map && map.get("languages") instanceof Map<?, ?> all) {
      all.forEach((code, language) -> languages.put(String.valueOf(code).toLowerCase(Locale.ROOT),
          language instanceof Map<?, ?> values && values.get("contentDir") instanceof String dir ? dir : null));
    }
    return languages;
  }

  private static String folder(String path) {
    String folder = path.replace('\\', '/').replaceFirst("^\\./", "").replaceAll("/+$", "");
    return folder.isEmpty() ? "" : folder + "/";
  }
}
