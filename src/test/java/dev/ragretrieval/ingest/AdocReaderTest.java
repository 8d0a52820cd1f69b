package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdocReaderTest {

  private static void write(Path root, String path, String text) throws Exception {
    Files.createDirectories(root.resolve(path).getParent());
    Files.writeString(root.resolve(path), text);
  }

  @Test
  @DisplayName("an AsciiDoc page reads as Asciidoctor.js 4.1 converts it (src/test/resources/adoc, html/asciidoctor):"
      + " the same title, sections and words")
  void readsAsAsciidoctorConvertsIt() throws Exception {
    Path folder = Path.of(AdocReaderTest.class.getResource("/adoc").toURI());
    Page source = MarkdownFolder.read(folder, null).get(0);
    Page built;
    try (InputStream in = AdocReaderTest.class.getResourceAsStream("/html/asciidoctor/sensors.html")) {
      built = HtmlReader.read("https://book.example.org/sensors.html", new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
    assertThat(source.pageTitle()).isEqualTo("Sensors and Noise").isEqualTo(built.pageTitle());
    assertThat(source.sections()).extracting(Page.Section::heading, Page.Section::parent)
        .containsExactly(tuple(null, null), tuple("Inertial units", null), tuple("Calibration", null),
            tuple("Comparing lidars", "Calibration"))
        .isEqualTo(built.sections().stream().map(s -> tuple(s.heading(), s.parent())).toList());
    for (int i = 0; i < source.sections().size(); i++) {
      assertThat(RstReaderTest.words(source.sections().get(i).text())).isEqualTo(RstReaderTest.words(built.sections().get(i).text()));
    }
    assertThat(source.sections().get(1).text()).contains("reports at 200 Hz:", "Note\n\nCalibrate the IMU at rest.",
        "Reading it in Python\n\nimu = Imu(rate=200)\nprint(imu.read())");
  }

  @Test
  @DisplayName("a cross reference without text shows what Asciidoctor.js 4.1 shows: the title of the section it names"
      + " (by its anchor, or the id made from its title with the page's idprefix and idseparator), or its anchor's"
      + " reftext; not a section inside a listing")
  void untitledCrossReferences() {
    String page = AdocReader.markdown("""
        = Robot Guide

        == Getting Started

        See <<_installing_the_sdk>>, <<calib>>, <<withref>>, <<_overview>>, <<_overview_2>>, <<_not_a_section>>,
        <<nowhere>> and <<other.adoc#intro>>.

        == Overview

        [source,bash]
        ----
        == Not a section
        ----

        [[calib]]
        [discrete]
        == Calibrating the IMU

        == Overview

        == Installing the SDK

        [[withref,the reference]]
        === The C++ API & Its Types
        """);
    // where Asciidoctor shows a missing id in brackets ([nowhere]) and another page's address, the words are kept
    assertThat(page).contains("See Installing the SDK, Calibrating the IMU, the reference, Overview, Overview,"
        + " not a section,\nnowhere and other.");
    String dashed = AdocReader.markdown(":idprefix:\n:idseparator: -\n\n== The C++ API & Its Types\n\n"
        + "Use <<the-c-api-its-types>>, not <<_the_c_api_its_types>>.\n");
    assertThat(dashed).contains("Use The C++ API & Its Types, not the c api its types.");
    assertThat(AdocReferences.generatedId("Déjà vu: 2.0 -- A.B", "_", "_")).isEqualTo("_déjà_vu_2_0a_b");
    assertThat(AdocReferences.generatedId("Arms--and legs", "", "-")).isEqualTo("armsand-legs");
  }

  @Test
  @DisplayName("a section's generated id is made from its title as shown: attribute references replaced, emphasis"
      + " marks gone (Asciidoctor.js 4.1's ids)")
  void generatedIdsFromTitlesAsShown() {
    String page = AdocReader.markdown("""
        = Guide
        :product: Acme Arm
        :idseparator: -

        See <<_acme-arm-setup>>, <<_using-fast-mode>>, <<_the-max_speed-setting>>, <<_using-fast-and-bold-code>>
        and <<_product-setup>>.

        == {product} Setup

        == Using _fast_ mode

        == The max_speed setting

        == Using __fa__st and *bold* `code`
        """);
    assertThat(page).contains("See Acme Arm Setup, Using _fast_ mode, The max_speed setting, Using __fa__st and *bold*"
        + " `code`\nand product-setup.");
  }

  @Test
  @DisplayName("a book assembled with include:: reads as one page: its chapters in place (leveloffset, a tagged"
      + " region, a range of lines), the included files no pages of their own")
  void includesMakeOnePage(@TempDir Path folder) throws Exception {
    write(folder, "book.adoc", "= Robot Book\n\ninclude::chapters/arms.adoc[leveloffset=+1]\n\n[source,java]\n----\n"
        + "include::code/Arm.java[tag=reach]\n----\n\ninclude::missing.adoc[]\n");
    write(folder, "chapters/arms.adoc", "= Arms\n\nAn arm has joints.\n\ninclude::notes.adoc[lines=2..3]\n");
    write(folder, "chapters/notes.adoc", "line one\nline two\nline three\nline four\n");
    write(folder, "code/Arm.java", "class Arm {\n  // tag::reach[]\n  void reach() {}\n  // end::reach[]\n  void rest() {}\n}\n");
    assertThat(MarkdownFolder.read(folder, null)).singleElement().satisfies(page -> {
      assertThat(page.documentId()).isEqualTo("book");
      assertThat(page.sections()).extracting(Page.Section::heading, Page.Section::text)
          .containsExactly(tuple("Arms", "An arm has joints.\n\nline two line three\n\n  void reach() {}"));
    });
  }

  @Test
  @DisplayName("an Antora component (antora.yml): its modules' pages, the ROOT module's at the root and a named"
      + " module's below its name, a partial$ include read in place; partials and nav files are no pages")
  void antoraComponent(@TempDir Path folder) throws Exception {
    write(folder, "docs/antora.yml", "name: robot\nversion: '1.0'\nnav:\n- modules/ROOT/nav.adoc\n");
    write(folder, "docs/modules/ROOT/nav.adoc", "* xref:index.adoc[]\n* xref:admin:users.adoc[]\n");
    write(folder, "docs/modules/ROOT/pages/index.adoc", "= Robot\n\nStart here.\n\ninclude::partial$safety.adoc[]\n");
    write(folder, "docs/modules/ROOT/partials/safety.adoc", "WARNING: Stop the motors first.\n");
    write(folder, "docs/modules/admin/pages/users.adoc", "= Users\n\nAdd users with xref:index.adoc[the start page].\n");
    write(folder, "README.adoc", "= The repository\n");
    MarkdownFolder.Folder site = MarkdownFolder.site(folder, "https://docs.example.org/robot/1.0/");
    assertThat(site.leftOut()).isEmpty(); // the root README describes the repository
    assertThat(site.readAs()).extracting(MarkdownFolder.Layout::generator).containsExactly(MarkdownFolder.Generator.ANTORA);
    assertThat(site.pages()).extracting(Page::sourceUrl, Page::pageTitle).containsExactly(
        tuple("https://docs.example.org/robot/1.0/index.html", "Robot"),
        tuple("https://docs.example.org/robot/1.0/admin/users.html", "Users"));
    assertThat(site.pages().get(0).sections().get(0).text()).isEqualTo("Start here.\n\nWarning\n\nStop the motors first.");
    assertThat(site.pages().get(1).sections().get(0).text()).isEqualTo("Add users with the start page.");
  }
}
