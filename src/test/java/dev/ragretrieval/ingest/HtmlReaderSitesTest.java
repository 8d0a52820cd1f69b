package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real pages of documentation sites without {@code <main>} or with their own layouts (DocBook,
 * Sphinx, MkDocs, Docusaurus; see src/test/resources/html/README.md for where each comes from).
 */
class HtmlReaderSitesTest {

  private static final Set<String> BOX_TITLES = Set.of("note", "tip", "warning", "caution", "important");

  static Stream<String> fixtures() {
    return Stream.of("docbook/indexes-expressional.html", "docbook/jit-extensibility.html",
        "docbook/logicaldecoding-synchronous.html", "docbook/indexes.html", "docbook/passwordcheck.html",
        "sphinx/markdown.html", "mkdocs/installation.html", "docusaurus/qos-profiles.html", "docusaurus/isaac-sim.html",
        "mdbook/ch15-03-drop.html", "mkdocs/intro-ros2.html", "mkdocs-material/intro-ros2.html",
        "mkdocs-readthedocs/intro-ros2.html", "sphinx-furo/intro-ros2.html", "sphinx-rtd/intro-ros2.html",
        "starlight/intro-ros2.html", "vitepress/intro-ros2.html", "mdbook-0.5/intro-ros2.html",
        "hugo-hextra/intro-ros2.html", "jupyter-book/intro-ros2.html");
  }

  /**
   * One page of the sample book, built by each generator from the same Markdown, and addresses it may
   * be served at: MkDocs and Sphinx name the site's root relative to the page, Starlight and VitePress
   * as a path (these builds' is /docs/).
   */
  static Stream<Arguments> samePage() {
    List<String> anywhere = List.of("https://book.example.org/module-1-ros2/01-intro-ros2/",
        "https://example.org/docs/module-1-ros2/01-intro-ros2/",
        "https://example.org/en/latest/module-1-ros2/01-intro-ros2/");
    List<String> htmlAnywhere = List.of("https://book.example.org/module-1-ros2/01-intro-ros2.html",
        "https://example.org/en/latest/module-1-ros2/01-intro-ros2.html");
    List<String> docs = List.of("https://example.org/docs/module-1-ros2/01-intro-ros2/");
    String module = "Module 1: The Robotic Nervous System (ROS 2)";
    // the tip box's title as each site shows it: most write its type, Hextra an icon, Nextra's callout none
    return Stream.of(Arguments.of("mkdocs/intro-ros2.html", anywhere, module, "Tip"),
        Arguments.of("mkdocs-material/intro-ros2.html", anywhere, module, "Tip"),
        Arguments.of("mkdocs-readthedocs/intro-ros2.html", anywhere, module, "Tip"),
        Arguments.of("sphinx-furo/intro-ros2.html", anywhere, module, "Tip"),
        Arguments.of("sphinx-rtd/intro-ros2.html", anywhere, module, "Tip"),
        Arguments.of("starlight/intro-ros2.html",
            List.of("https://example.org/docs/module-1-ros2/01-intro-ros2/"), module, "Tip"),
        Arguments.of("vitepress/intro-ros2.html",
            List.of("https://example.org/docs/module-1-ros2/01-intro-ros2.html"), module, "TIP"),
        // mdBook 0.5 loads its sidebar from a script: the page names its root, not its section
        Arguments.of("mdbook-0.5/intro-ros2.html", htmlAnywhere, null, "Tip"),
        // HonKit names its root in its page script's basePath, and the module as a part of its one sidebar list
        Arguments.of("honkit/intro-ros2.html", htmlAnywhere, module, "Tip"),
        // Rspress and VuePress 2 (built for /docs/) name their root by their scripts' folder, Nextra by Next.js'
        Arguments.of("rspress/intro-ros2.html",
            List.of("https://example.org/docs/module-1-ros2/01-intro-ros2.html"), module, "Tip"),
        Arguments.of("vuepress/intro-ros2.html",
            List.of("https://example.org/docs/module-1-ros2/01-intro-ros2.html"), module, "Tips"),
        Arguments.of("nextra/intro-ros2.html",
            List.of("https://example.org/docs/module-1-ros2/01-intro-ros2/"), module, null),
        // Zensical (Material's successor), Sphinx with Shibuya (a toctree caption, no index page per module)
        // and with sphinx-immaterial
        Arguments.of("zensical/intro-ros2.html", anywhere, module, "Tip"),
        Arguments.of("shibuya/intro-ros2.html", anywhere, module, "Tip"),
        Arguments.of("immaterial/intro-ros2.html", anywhere, module, "Tip"),
        // Fumadocs, Docus, Vocs and Retype (built for /docs/) show the module's label in no way read here; Docus'
        // and Vocs' callouts have an icon for a title
        Arguments.of("fumadocs/intro-ros2.html", docs, null, "Tip"),
        Arguments.of("docus/intro-ros2.html", docs, null, null),
        Arguments.of("vocs/intro-ros2.html", docs, null, null),
        Arguments.of("retype/intro-ros2.html", docs, null, "Tip"),
        // Jupyter Book 1 (Sphinx with sphinx-book-theme, MyST): the module is its table of contents' part caption
        Arguments.of("jupyter-book/intro-ros2.html", htmlAnywhere, module, "Tip"),
        // Hugo names no root on the page: its chapter is the folder after /docs/, and Hextra's sidebar has no label
        Arguments.of("hugo-hextra/intro-ros2.html", List.of("https://example.org/docs/module-1-ros2/01-intro-ros2/"),
            null, "\u2139\ufe0f"));
  }

  private static Page read(String fixture) {
    return HtmlReader.read("https://docs.example.org/" + fixture, html(fixture));
  }

  private static String html(String fixture) {
    try (InputStream in = HtmlReaderSitesTest.class.getResourceAsStream("/html/" + fixture)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static String text(Page page) {
    return String.join("\n", page.sections().stream().map(Page.Section::text).toList());
  }

  private static Page.Section section(Page page, String heading) {
    return page.sections().stream().filter(s -> heading.equals(s.heading())).findFirst()
        .orElseThrow(() -> new AssertionError("no section " + heading + " in " + page.sections()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  @DisplayName("no section is headed by a box title (Note, Tip, ...) or repeats the page title")
  void sectionsAreRealSections(String fixture) {
    Page page = read(fixture);
    assertThat(page.sections()).isNotEmpty();
    for (Page.Section s : page.sections()) {
      if (s.heading() != null) {
        assertThat(BOX_TITLES).as(fixture).doesNotContain(s.heading().toLowerCase());
        assertThat(s.heading()).as(fixture).isNotEqualToIgnoringCase(page.pageTitle());
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  @DisplayName("no chunk is navigation: no Prev/Up/Home/Next rows, sidebars, search boxes or footers")
  void noNavigation(String fixture) {
    List<Chunk> chunks = new Chunker().chunk(read(fixture));
    assertThat(chunks).isNotEmpty();
    for (Chunk chunk : chunks) {
      String text = chunk.payload().getString("text");
      assertThat(text).as(fixture).doesNotContainPattern("Prev\\s*Up|Up\\s*Next|Prev\\s*Next|Home\\s*Next")
          .doesNotContain("Quick search", "Site navigation", "Keyboard Shortcuts", "Edit this page",
              "Copyright", "Table of Contents", "Skip to main content", "¶")
          .doesNotContainPattern("(?m)^(Previous|Next)$");
      assertThat(text).as(fixture).doesNotMatch("(?s)(\\s*(Prev|Up|Home|Next|Previous|Search|Navigation)\\s*)+");
    }
  }

  @Test
  @DisplayName("DocBook: the h2 is the page title, the navigation header gives the chapter, labels never repeat")
  void docbookTitleAndChapter() {
    Page page = read("docbook/indexes-expressional.html");
    assertThat(page.pageTitle()).isEqualTo("11.7. Indexes on Expressions");
    assertThat(page.chapterLabel()).isEqualTo("Chapter 11. Indexes");
    assertThat(page.sections()).extracting(Page.Section::heading).containsOnlyNulls();
    assertThat(text(page)).startsWith("An index column need not be just a column")
        .endsWith("retrieval speed is more important than insertion and update speed.")
        .doesNotContain("11.6. Unique Indexes", "11.8. Partial Indexes");
    Chunk first = new Chunker().chunk(page).get(0);
    assertThat(first.embedText()).startsWith("11.7. Indexes on Expressions\n\nAn index column")
        .doesNotContain("11.7. Indexes on Expressions > 11.7. Indexes on Expressions");
  }

  @Test
  @DisplayName("DocBook: a Note box stays in the sect2 it sits in, and the next sect2 starts after it")
  void docbookNoteKeepsItsSection() {
    Page page = read("docbook/jit-extensibility.html");
    assertThat(page.sections()).extracting(Page.Section::heading)
        .containsExactly("32.4.1. Inlining Support for Extensions", "32.4.2. Pluggable JIT Providers");
    assertThat(section(page, "32.4.1. Inlining Support for Extensions").text())
        .contains("Note\n\nFor functions built into PostgreSQL itself, the bitcode is installed");
    assertThat(section(page, "32.4.2. Pluggable JIT Providers").text()).doesNotContain("bitcode is installed");
  }

  @Test
  @DisplayName("DocBook: a chapter page keeps its introduction and drops its table of contents")
  void docbookChapterPage() {
    Page page = read("docbook/indexes.html");
    assertThat(page.pageTitle()).isEqualTo("Chapter 11. Indexes");
    assertThat(text(page)).startsWith("Indexes are a common way to enhance database performance.")
        .doesNotContain("11.2. Index Types", "11.2.1. B-Tree");
  }

  @Test
  @DisplayName("Sphinx: the body's h1 is the title; a note inside a list item stays in its section; no headerlinks")
  void sphinx() {
    Page page = read("sphinx/markdown.html");
    assertThat(page.pageTitle()).isEqualTo("Markdown");
    assertThat(section(page, "Configuration").text()).contains("Note\n\nMyST-Parser requires Sphinx 2.1 or newer.");
    assertThat(text(page)).doesNotContain("Getting Started", "Projects using Sphinx", "the Sphinx developers");
  }

  @Test
  @DisplayName("MkDocs: the navbar, page TOC and search modal are dropped; the note stays under Installing Python;"
      + " an h3 section knows the h2 it sits under, and an h2 ends that")
  void mkdocs() {
    Page page = read("mkdocs/installation.html");
    assertThat(page.pageTitle()).isEqualTo("MkDocs Installation");
    assertThat(page.sections()).extracting(Page.Section::heading)
        .containsExactly(null, "Requirements", "Installing Python", "Installing pip", "Installing MkDocs");
    assertThat(page.sections()).extracting(Page.Section::parent)
        .containsExactly(null, null, "Requirements", "Requirements", null);
    assertThat(section(page, "Installing Python").text()).contains("If you are installing Python on Windows");
    assertThat(text(page)).doesNotContain("Developer Guide", "Release Notes", "Search");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samePage")
  @DisplayName("MkDocs 1.6 (mkdocs, material, readthedocs), Sphinx 9 (furo, Read the Docs; dirhtml), Starlight 0.37,"
      + " VitePress 1.6, mdBook 0.5, HonKit 6.1, Rspress 2.0, VuePress 2.0, Nextra 4.6, Hugo 0.140 (Hextra), Jupyter"
      + " Book 1.0: the same"
      + " page reads the same; its chapter is the first folder below the root the site names, and its label the"
      + " navigation section")
  void sameBookEveryGenerator(String fixture, List<String> urls, String label, String box) {
    for (String url : urls) {
      Page page = HtmlReader.read(url, html(fixture));
      assertThat(page.pageTitle()).isEqualTo("Introduction to ROS 2 Architecture");
      assertThat(page.chapter()).as(url).isEqualTo("module-1-ros2");
      assertThat(page.chapterLabel()).as(url).isEqualTo(label);
      assertThat(page.sections()).extracting(Page.Section::heading).containsExactly("Why ROS 2 Replaced ROS 1",
          "The Layered Client Library Stack", "DDS as the Communication Middleware", "Discovery and Domains",
          "Workspaces, Packages and colcon");
      assertThat(section(page, "Discovery and Domains").parent()).isEqualTo("DDS as the Communication Middleware");
      assertThat(section(page, "Workspaces, Packages and colcon").text())
          .contains("mkdir -p ~/humanoid_ws/src && cd ~/humanoid_ws/src\nros2 pkg create")
          // the box keeps its title as the site shows it
          .contains("source install/setup.bash\n\n" + (box == null ? "" : box + "\n\n") + "Use rosdep")
          .endsWith("\n\nUse rosdep install --from-paths src --ignore-src -y before building a workspace you cloned,"
              + " so that every system dependency listed in the package.xml files is installed.")
          .doesNotContain("Terminal window", "\nbash\n");
      assertThat(text(page)).doesNotContain("Nodes, Topics", "Module 2", "Physical AI", "Skip to", "Made with", "Next",
          "Section titled", "results matching");
    }
  }

  @Test
  @DisplayName("rustdoc: an API page's text without its controls (version and source links, fold toggles, the"
      + " examples' Run links, tooltips); the same markup from another generator keeps them")
  void rustdocControls() {
    String body = "<body class=\"rustdoc struct\"><main><section id=\"main-content\" class=\"content\">"
        + "<div class=\"main-heading\"><h1 class=\"fqn\">Struct std::vec::Vec</h1><span class=\"out-of-band\">"
        + "<span class=\"since\" title=\"Stable since Rust version 1.0.0\">1.0.0</span> \u00b7 <a class=\"srclink\""
        + " href=\"../src/vec.rs.html\">source</a> \u00b7 <a id=\"toggle-all-docs\" href=\"javascript:void(0)\">[<span"
        + " class=\"inner\">\u2212</span>]</a></span></div><details class=\"rustdoc-toggle top-doc\" open><summary"
        + " class=\"hideme\"><span>Expand description</span></summary><div class=\"docblock\"><p>A contiguous growable"
        + " array type.</p><h2 id=\"examples\">Examples</h2><div class=\"example-wrap\"><pre class=\"rust\"><code>let v"
        + " = Vec::new();</code></pre><a class=\"test-arrow\" href=\"https://play.rust-lang.org/\">Run</a></div><div"
        + " class=\"information\"><div class=\"tooltip should_panic\">\u24d8</div></div><pre><code>v[10];</code></pre>"
        + "</div></details><h2 id=\"implementations\">Implementations</h2><details class=\"rustdoc-toggle\" open><summary>"
        + "<section id=\"impl\" class=\"impl\"><span class=\"rightside\"><a class=\"srclink\" href=\"#\">source</a>"
        + "</span><h3 class=\"code-header\">impl&lt;T&gt; Vec&lt;T&gt;</h3></section></summary><div class=\"impl-items\">"
        + "<section id=\"method.new\" class=\"method\"><span class=\"rightside\"><span class=\"since\">const: 1.39.0"
        + "</span> \u00b7 <a class=\"srclink\" href=\"#\">source</a></span><h4 class=\"code-header\">pub const fn new()"
        + " -&gt; Vec&lt;T&gt;<span class=\"notable-traits\"><span class=\"notable-traits-tooltip\">\u24d8<span>Notable"
        + " traits for Vec&lt;u8&gt;</span></span></span></h4></section><div class=\"docblock\"><p>Constructs a new, empty"
        + " <code>Vec&lt;T&gt;</code>.</p></div></div></details></section></main></body></html>";
    String rustdoc = text(HtmlReader.read("https://doc.rust-lang.org/std/vec/struct.Vec.html",
        "<html><head><meta name=\"generator\" content=\"rustdoc\"><title>Vec in std::vec - Rust</title></head>" + body));
    assertThat(rustdoc).contains("A contiguous growable array type.", "let v = Vec::new();", "v[10];",
            "pub const fn new() -> Vec<T>", "Constructs a new, empty Vec<T>.")
        .doesNotContain("source", "Run", "\u24d8", "Expand description", "1.0.0", "1.39.0", "\u2212", "Notable traits");
    String other = text(HtmlReader.read("https://example.org/docs/vec.html",
        "<html><head><title>Vec</title></head>" + body));
    assertThat(other).contains("1.39.0", "Notable traits");
  }

  @Test
  @DisplayName("text that runs straight into a block (a minified page: <li>Parent<ul>) stays a word apart from it")
  void minifiedBlocks() {
    String html = "<html><head><title>Lists | Book</title></head><body><main><h1>Lists</h1><h2>Sensors</h2>"
        + "<ul><li>Cameras<ul><li>Depth</li></ul></li></ul><dl><dt>IMU</dt><dd>inertial<p>unit</p></dd></dl>"
        + "</main></body></html>";
    assertThat(HtmlReader.read("https://example.org/docs/m/lists", html).sections().get(0).text())
        .isEqualTo("Cameras Depth\n\nIMU\n\ninertial unit");
  }

  @Test
  @DisplayName("an image is its alt text, as the page's Markdown reads (![alt](src)); an alt that is the image's"
      + " file (Sphinx writes the path when the source gives none) is not text, in either reader")
  void imagesAreTheirAltText() {
    String html = "<html><head><title>Admin | Book</title></head><body><main><h1>Admin</h1><h2>Log in</h2>"
        + "<p>Open it:<img src=\"a.png\" alt=\"Django admin login screen\">then sign in.</p>"
        + "<img src=\"../_images/flow.png\" alt=\"../_images/flow.png\"><img src=\"b.png\" alt=\"b.PNG\">"
        + "<p><img src=\"c.png\" alt=\"TCP/IP\"></p><p>Done.</p></main></body></html>";
    String htmlText = HtmlReader.read("https://example.org/docs/m/admin", html).sections().get(0).text();
    assertThat(htmlText).isEqualTo("Open it: Django admin login screen then sign in.\n\nTCP/IP\n\nDone.");
    String md = "## Log in\n\nOpen it: ![Django admin login screen](a.png) then sign in.\n\n"
        + "![../_images/flow.png](../_images/flow.png) ![b.PNG](b.png)\n\n![TCP/IP](c.png)\n\nDone.\n";
    assertThat(MarkdownReader.read("docs/m/admin.md", md, null, null).sections().get(0).text()).isEqualTo(htmlText);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"zensical/nodes-topics.html", "shibuya/nodes-topics.html"})
  @DisplayName("tabbed code (pymdownx tabbed in Zensical, sphinx-design in Sphinx): both tabs' code is text, their"
      + " labels are not, as in the page's Markdown")
  void tabLabels(String fixture) {
    Page page = HtmlReader.read("https://example.org/docs/module-1-ros2/02-nodes-topics/", html(fixture));
    assertThat(section(page, "Writing a Publisher and a Subscriber").text())
        .contains("started with ros2 run.\n\nimport rclpy", "#include <chrono>")
        .doesNotContain("Python", "PythonC++", "\nC++\n");
  }

  @Test
  @DisplayName("Docus (Nuxt UI): the page header's description is left out, a card's description in the text stays")
  void nuxtDescriptions() {
    String html = "<html><head><title>Sensors</title></head><body><main><div data-slot=\"container\">"
        + "<div data-slot=\"wrapper\"><h1 data-slot=\"title\">Sensors</h1></div>"
        + "<div data-slot=\"description\">What a robot senses, in one line.</div></div>"
        + "<h2>Lidar</h2><p>Lidar measures range.</p><div data-slot=\"root\"><p data-slot=\"title\">Depth cameras</p>"
        + "<div data-slot=\"description\">They see depth up to ten meters.</div></div></main></body></html>";
    Page page = HtmlReader.read("https://example.org/docs/m/sensors/", html);
    assertThat(text(page)).doesNotContain("in one line")
        .contains("Lidar measures range.", "Depth cameras", "They see depth up to ten meters.");
  }

  @Test
  @DisplayName("a KaTeX formula (rehype-katex) reads as its TeX source, as in the page's Markdown, not three times"
      + " over as MathML, source and glyphs; display math is a paragraph of its own")
  void katexFormulas() {
    Page page = HtmlReader.read("https://example.org/docs/estimation/kalman", html("katex/kalman.html"));
    assertThat(page.sections().get(0).text()).isEqualTo(
        "The state evolves as $x_k = F x_{k-1} + w$ at each step.\n\n$$ P = F P F^T + Q $$\n\nAfter.");
  }

  @Test
  @DisplayName("a second h1 with the title's words is the title again, not text (Starlight's header above a Markdown h1)")
  void repeatedTitleHeading() {
    String html = "<html><head><title>Services | Book</title></head><body><main><h1>Services</h1>"
        + "<div class=\"sl-markdown-content\"><h1>Services</h1><p>A service answers one request.</p>"
        + "<h2>Clients</h2><p>A client waits for the answer.</p></div></main></body></html>";
    Page page = HtmlReader.read("https://example.org/services/", html);
    assertThat(page.pageTitle()).isEqualTo("Services");
    assertThat(page.sections()).extracting(Page.Section::text)
        .containsExactly("A service answers one request.", "A client waits for the answer.");
  }

  @Test
  @DisplayName("MkDocs 1.4 (mkdocs theme): the chapter is the folder below the root that base_url names, the label the"
      + " navbar's active dropdown")
  void mkdocsChapter() {
    Page page = HtmlReader.read("https://www.mkdocs.org/user-guide/installation.html", html("mkdocs/installation.html"));
    assertThat(page.chapter()).isEqualTo("user-guide");
    assertThat(page.chapterLabel()).isEqualTo("User Guide");
  }

  @Test
  @DisplayName("mdBook: the first h2 is the title (the <title> adds \" - <book>\"); menu bar, theme list, sidebar and pager are gone")
  void mdbook() {
    Page page = read("mdbook/ch15-03-drop.html");
    assertThat(page.pageTitle()).isEqualTo("Running Code on Cleanup with the Drop Trait");
    assertThat(page.sections()).extracting(Page.Section::heading)
        .contains("Dropping a Value Early with std::mem::drop");
    assertThat(text(page)).contains("Drop trait")
        .doesNotContain("The Rust Programming Language", "Coal", "Navy", "Ayu", "Previous chapter", "Next chapter");
  }

  @Test
  @DisplayName("Docusaurus 3.10, a generated category page (/docs/category/<slug>): its title and description are the"
      + " text, the category is its chapter label, and the slug is no chapter; the list of the category's pages is navigation")
  void docusaurusCategoryPage() {
    Page page = HtmlReader.read("https://book.example.org/docs/category/module-9-sensor-features",
        html("docusaurus/category-index.html"));
    assertThat(page.pageTitle()).isEqualTo("Module 9: Sensor Features");
    assertThat(page.chapter()).isNull();
    assertThat(page.chapterLabel()).isEqualTo("Module 9: Sensor Features");
    assertThat(text(page)).isEqualTo("How robots sense the world: IMUs, filters and fusion.");
    assertThat(HtmlReader.chapterOf("/docs/module-9-features/sensors")).isEqualTo("module-9-features");
    assertThat(HtmlReader.chapterOf("/docs/category/module-9-sensor-features")).isNull();
  }

  @Test
  @DisplayName("Docusaurus 3.10, a real build: title, chapter and label from the breadcrumbs; a code block keeps its"
      + " lines, indentation and empty lines (each line is a token-line block ending in <br>)")
  void docusaurusBuild() {
    Page page = read("docusaurus/isaac-sim.html");
    assertThat(page.pageTitle()).isEqualTo("NVIDIA Isaac Sim and Synthetic Data");
    assertThat(page.chapterLabel()).startsWith("Module 2");
    String replicator = section(page, "Synthetic Data Generation with Replicator").text();
    assertThat(replicator).contains("import omni.replicator.core as rep\n\ndef sphere_lights(num):\n"
        + "    lights = rep.create.light(\n        light_type=\"Sphere\",");
    assertThat(text(page)).doesNotContain("Direct link to", "Copy", "Edit this page", "Previous", "Next");
  }

  @Test
  @DisplayName("Docusaurus with its docs at the site's root (routeBasePath '/'): the chapter is the first folder below"
      + " the base URL its main script names, not only the one after /docs/")
  void docusaurusDocsAtTheRoot() {
    Page atRoot = HtmlReader.read("https://book.example.org/module-2-simulation/isaac-sim",
        html("docusaurus/isaac-sim.html"));
    assertThat(atRoot.chapter()).isEqualTo("module-2-simulation");
    assertThat(atRoot.chapterLabel()).startsWith("Module 2");
    // the page's script is at /assets/js/main.<hash>.js: below "/" the first folder is "book"
    assertThat(HtmlReader.read("https://book.example.org/book/module-2-simulation/isaac-sim",
        html("docusaurus/isaac-sim.html")).chapter()).isEqualTo("book");
    assertThat(HtmlReader.read("https://book.example.org/isaac-sim", html("docusaurus/isaac-sim.html")).chapter())
        .isNull();
  }

  @Test
  @DisplayName("a plain hyphen in the <title> is not cut without a heading that confirms it")
  void hyphenatedTitleKept() {
    String html = "<html><head><title>Client - server protocol</title></head><body><main>"
        + "<h2>Messages</h2><p>Every message starts with a one-byte type and a four-byte length.</p></main></body></html>";
    assertThat(HtmlReader.read("https://docs.example.org/protocol.html", html).pageTitle())
        .isEqualTo("Client - server protocol");
  }

  @Test
  @DisplayName("Docusaurus: the tip box stays in its section, breadcrumbs give the chapter, footer and pager are gone")
  void docusaurus() {
    Page page = read("docusaurus/qos-profiles.html");
    assertThat(page.pageTitle()).isEqualTo("Quality of Service Profiles");
    assertThat(page.chapterLabel()).isEqualTo("Module 1: ROS 2");
    assertThat(section(page, "Durability: Volatile versus Transient Local").text())
        .contains("tip\n\nBoth sides must ask for transient local");
    assertThat(text(page)).doesNotContain("Parameters and Launch Files", "Built with Docusaurus", "Textbook");
  }

  @Test
  @DisplayName("a section that is (almost) only links is navigation and is dropped; one with prose and a link stays")
  void linkListsAreNavigation() {
    String html = "<html><head><title>Guide</title></head><body><h1>Guide</h1>"
        + "<h2>Setup</h2><p>Install the server with the package manager, then see <a href='x'>the options</a>.</p>"
        + "<h2>Related pages</h2><ul><li><a href='a'>Installing on Linux</a></li><li><a href='b'>Installing on macOS</a></li>"
        + "<li><a href='c'>Upgrading an existing cluster</a></li></ul></body></html>";
    Page page = HtmlReader.read("https://docs.example.org/guide", html);
    assertThat(page.sections()).extracting(Page.Section::heading).containsExactly("Setup");
  }

  @Test
  @DisplayName("an inline SVG diagram's labels are not text: the prose around it stays")
  void inlineSvgIsNotText() {
    String html = "<html><head><title>Plugins</title></head><body><main><h1>Plugins</h1>"
        + "<h2>Events</h2><p>The events are ordered from top to bottom.</p>"
        + "<svg width='200' height='100'><g id='graph0' class='graph'><title>MkDocs</title>"
        + "<g class='cluster'><title>cluster_on_startup</title><text x='10' y='20'>on_startup</text></g>"
        + "<g class='cluster'><title>cluster_on_config</title><text x='10' y='40'>on_config</text></g></g></svg>"
        + "<p>Click an event's title to jump to its description.</p></main></body></html>";
    Page page = HtmlReader.read("https://docs.example.org/plugins", html);
    assertThat(section(page, "Events").text())
        .contains("ordered from top to bottom", "jump to its description")
        .doesNotContain("cluster_on_startup", "on_startup", "on_config", "MkDocs");
  }

  @Test
  @DisplayName("a client-side redirect stub (meta refresh to a URL) has no text; a page that only reloads itself keeps its text")
  void redirectStubHasNoText() {
    String stub = "<!doctype html><html><head><title>Redirecting...</title>"
        + "<link rel='canonical' href='../dev-guide/plugins.html'>"
        + "<meta http-equiv='Refresh' content='0; URL=../dev-guide/plugins.html'></head>"
        + "<body>Redirecting...</body></html>";
    assertThat(HtmlReader.read("https://docs.example.org/user-guide/plugins.html", stub).sections()).isEmpty();

    String reloading = "<html><head><title>Status</title><meta http-equiv='refresh' content='300'></head>"
        + "<body><main><h1>Status</h1><p>Every service is up and answering within its objective.</p></main></body></html>";
    assertThat(text(HtmlReader.read("https://docs.example.org/status.html", reloading)))
        .contains("Every service is up");
  }
}
