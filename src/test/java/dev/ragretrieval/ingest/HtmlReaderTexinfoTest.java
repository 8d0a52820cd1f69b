package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Pages laid out as makeinfo/texi2any split a manual, one page a node (Texinfo 6.8's markup, and
 * 7.x's for the panel and menu): a navigation panel above and below the node, its heading at the
 * level of its sectioning command (h4 for a subsection), a menu of its children, a pilcrow link
 * beside each definition, footnotes at the end.
 */
class HtmlReaderTexinfoTest {

  private static final String HEAD = "<html><head><title>%s (The Paint Manual)</title>"
      + "<meta name=\"Generator\" content=\"%s\"></head><body lang=\"en\">";

  private static final String SUBSECTION = HEAD.formatted("Mixing Paints", "makeinfo")
      + "<div class=\"subsection\" id=\"Mixing-Paints\">"
      + "<div class=\"header\"><p>Next: <a href=\"Thinning-Paints.html\" accesskey=\"n\" rel=\"next\">Thinning"
      + " Paints</a>, Previous: <a href=\"Buying-Paints.html\" accesskey=\"p\" rel=\"prev\">Buying Paints</a>,"
      + " Up: <a href=\"Paints.html\" accesskey=\"u\" rel=\"up\">Paints</a> &nbsp; [<a href=\"index.html#SEC_Contents\""
      + " title=\"Table of contents\" rel=\"contents\">Contents</a>][<a href=\"Concept-Index.html\" title=\"Index\""
      + " rel=\"index\">Index</a>]</p></div><hr>"
      + "<span id=\"Mixing-Paints-1\"></span><h4 class=\"subsection\">2.1.3 Mixing Paints</h4>"
      + "<p>Stir two colours together until no streaks are left.<a id=\"DOCF1\" href=\"#FOOT1\"><sup>1</sup></a></p>"
      + "<dl class=\"def\"><dt id=\"index-blend\"><span class=\"category\">: </span><span><strong>blend</strong>"
      + " <em><var>a</var>, <var>b</var></em><a href='#index-blend' class='copiable-anchor'> &para;</a></span></dt>"
      + "<dd><p>Return the paint halfway between <var>a</var> and <var>b</var>.</p></dd></dl>"
      + "<div class=\"footnote\"><hr><h4 class=\"footnotes-heading\">Footnotes</h4>"
      + "<h5><a id=\"FOOT1\" href=\"#DOCF1\">(1)</a></h5><p>Oil and water paints do not mix.</p></div>"
      + "</div><hr>"
      + "<div class=\"header\"><p>Next: <a href=\"Thinning-Paints.html\">Thinning Paints</a>, Previous:"
      + " <a href=\"Buying-Paints.html\">Buying Paints</a>, Up: <a href=\"Paints.html\">Paints</a> &nbsp;"
      + " [<a href=\"index.html#SEC_Contents\" title=\"Table of contents\" rel=\"contents\">Contents</a>]"
      + "[<a href=\"Concept-Index.html\" title=\"Index\" rel=\"index\">Index</a>]</p></div>"
      + "</body></html>";

  private static final String CHAPTER = HEAD.formatted("Paints", "texi2any")
      + "<div class=\"chapter\" id=\"Paints\">"
      + "<div class=\"header\"><p>Next: <a href=\"Brushes.html\" accesskey=\"n\" rel=\"next\">Brushes</a>,"
      + " Up: <a href=\"index.html\" accesskey=\"u\" rel=\"up\">Top</a></p></div><hr>"
      + "<span id=\"Paints-1\"></span><h2 class=\"chapter\">2 Paints</h2>"
      + "<p>This chapter is about what goes on the brush.</p>"
      + "<ul class=\"section-toc\"><li><a href=\"Buying-Paints.html\" accesskey=\"1\">Buying Paints</a></li>"
      + "<li><a href=\"Mixing-Paints.html\" accesskey=\"2\">Mixing Paints</a></li></ul>"
      + "</div></body></html>";

  /** The same subsection as Texinfo 7 writes it: div.nav-panel, a.copiable-link, ul.mini-toc. */
  private static final String SEVEN = HEAD.formatted("Mixing Paints", "texi2any")
      + "<div class=\"subsection-level-extent\" id=\"Mixing-Paints\">"
      + "<div class=\"nav-panel\"><p>Next: <a href=\"Thinning-Paints.html\" accesskey=\"n\" rel=\"next\">Thinning"
      + " Paints</a>, Up: <a href=\"Paints.html\" accesskey=\"u\" rel=\"up\">Paints</a></p></div>"
      + "<h4 class=\"subsection\" id=\"Mixing-Paints-1\"><span>2.1.3 Mixing Paints<a class=\"copiable-link\""
      + " href=\"#Mixing-Paints-1\"> &para;</a></span></h4>"
      + "<p>Stir two colours together until no streaks are left.</p>"
      + "<ul class=\"mini-toc\"><li><a href=\"Mixing-Oils.html\" accesskey=\"1\">Mixing Oils</a></li></ul>"
      + "<hr><div class=\"nav-panel\"><p>Next: <a href=\"Thinning-Paints.html\">Thinning Paints</a>,"
      + " Up: <a href=\"Paints.html\">Paints</a></p></div></div></body></html>";

  private static String text(Page page) {
    return page.sections().stream().map(Page.Section::text).collect(Collectors.joining("\n\n"));
  }

  @Test
  @DisplayName("Texinfo: a subsection's h4 is the page title, not the <title>'s node and manual; no navigation panel")
  void subsectionPage() {
    Page page = HtmlReader.read("https://paint.example.org/manual/Mixing-Paints.html", SUBSECTION);
    assertThat(page.pageTitle()).isEqualTo("2.1.3 Mixing Paints");
    assertThat(page.sections()).extracting(Page.Section::heading).containsOnlyNulls();
    assertThat(text(page)).startsWith("Stir two colours together")
        .doesNotContain("Next:", "Previous:", "Up:", "Thinning Paints", "Buying Paints", "Contents", "[Index]",
            "The Paint Manual", "2.1.3", "¶");
    List<Chunk> chunks = new Chunker().chunk(page);
    assertThat(chunks).hasSize(1);
    assertThat(chunks.get(0).embedText()).startsWith("2.1.3 Mixing Paints\n\nStir two colours");
  }

  @Test
  @DisplayName("Texinfo: a definition keeps its words without the pilcrow, and the footnote stays with its node")
  void definitionsAndFootnotes() {
    String text = text(HtmlReader.read("https://paint.example.org/manual/Mixing-Paints.html", SUBSECTION));
    assertThat(text).contains("blend a, b").contains("Return the paint halfway between a and b.")
        .contains("Footnotes").endsWith("Oil and water paints do not mix.");
  }

  @Test
  @DisplayName("Texinfo: a chapter's page keeps its introduction and drops the menu of its sections")
  void chapterPage() {
    Page page = HtmlReader.read("https://paint.example.org/manual/Paints.html", CHAPTER);
    assertThat(page.pageTitle()).isEqualTo("2 Paints");
    assertThat(text(page)).isEqualTo("This chapter is about what goes on the brush.");
  }

  @Test
  @DisplayName("Texinfo 7: the nav-panel, the heading's copiable link and the mini-toc are dropped")
  void texinfoSeven() {
    Page page = HtmlReader.read("https://paint.example.org/manual/Mixing-Paints.html", SEVEN);
    assertThat(page.pageTitle()).isEqualTo("2.1.3 Mixing Paints");
    assertThat(text(page)).isEqualTo("Stir two colours together until no streaks are left.");
  }

  @Test
  @DisplayName("a div.header on a page Texinfo did not make is not taken for navigation")
  void headerClassElsewhere() {
    String html = "<html><head><title>Paints | Paint Shop</title></head><body><main><h1>Paints</h1>"
        + "<div class=\"header\"><p>Every paint we sell, by colour.</p></div><p>Reds first.</p></main></body></html>";
    Page page = HtmlReader.read("https://shop.example.org/paints.html", html);
    assertThat(page.pageTitle()).isEqualTo("Paints");
    assertThat(text(page)).contains("Every paint we sell, by colour.").contains("Reds first.");
  }
}
