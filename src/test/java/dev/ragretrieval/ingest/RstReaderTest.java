package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RstReaderTest {

  private static List<Page.Section> sections(String rst) {
    return MarkdownReader.read("docs/page.rst", rst, null, null).sections();
  }

  private static String text(String rst) {
    return String.join("\n\n", sections(rst).stream().map(Page.Section::text).toList());
  }

  /**
   * A section's words as one line, to compare a source's reading with its built page's: the page
   * splits list items and table cells into blocks of their own, and numbers lists in CSS.
   */
  static String words(String text) {
    return text.replaceAll("(?m)^\\s*(?:- |\\d+\\. )", "").replaceAll("\\s+", " ").strip();
  }

  @Test
  @DisplayName("a Sphinx project's page reads as Sphinx 9.0.4 built it (src/test/resources/rst, html/sphinx-rst): the"
      + " same title, sections and words, its include read in place")
  void readsAsItsSphinxBuild() throws Exception {
    Path project = Path.of(RstReaderTest.class.getResource("/rst").toURI());
    MarkdownFolder.Folder folder = MarkdownFolder.site(project, "https://book.example.org/");
    assertThat(folder.pages()).extracting(Page::documentId, Page::sourceUrl).containsExactly(
        tuple("guide/sensors", "https://book.example.org/guide/sensors.html"),
        tuple("index", "https://book.example.org/index.html"));
    Page source = folder.pages().get(0);
    Page built;
    try (InputStream in = RstReaderTest.class.getResourceAsStream("/html/sphinx-rst/sensors.html")) {
      built = HtmlReader.read("https://book.example.org/guide/sensors.html",
          new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
    assertThat(source.pageTitle()).isEqualTo("Sensors and Noise").isEqualTo(built.pageTitle());
    assertThat(source.chapter()).isEqualTo("guide");
    assertThat(source.sections()).extracting(Page.Section::heading, Page.Section::parent)
        .containsExactly(tuple(null, null), tuple("Inertial units", null), tuple("Calibration", null),
            tuple("Comparing lidars", "Calibration"))
        .isEqualTo(built.sections().stream().map(s -> tuple(s.heading(), s.parent())).toList());
    for (int i = 0; i < source.sections().size(); i++) {
      assertThat(words(source.sections().get(i).text())).isEqualTo(words(built.sections().get(i).text()));
    }
    assertThat(source.sections().get(1).text()).contains("Always stop the motors before touching the arm.")
        .contains("filter.py\n\ndef smooth(values, alpha=0.5):\n    return values[0] * alpha");
  }

  @Test
  @DisplayName("a reference without a title shows its target's title, from any page of the folder: a :ref: the"
      + " section below its label, a :doc: the page (relative or from the root); one outside the folder its label")
  void referencesShowTheirTargetsTitle(@TempDir Path folder) throws Exception {
    Files.createDirectories(folder.resolve("guide"));
    Files.writeString(folder.resolve("guide/arm.rst"), "The Arm\n=======\n\nIntro.\n\n.. _arm-setup:\n\n"
        + "Setting up the arm\n------------------\n\nBolt it down.\n");
    Files.writeString(folder.resolve("guide/usage.rst"), "Usage\n=====\n\nFirst read :ref:`Arm-Setup`, then"
        + " :doc:`arm` and :doc:`/guide/arm`; :doc:`/missing` is elsewhere, :ref:`the arm <arm-setup>` titled.\n");
    Page usage = MarkdownFolder.read(folder, null).stream().filter(p -> p.documentId().equals("guide/usage"))
        .findFirst().orElseThrow();
    assertThat(usage.sections().get(0).text()).isEqualTo("First read Setting up the arm, then The Arm and The Arm;"
        + " /missing is elsewhere, the arm titled.");
  }

  @Test
  @DisplayName("broken reStructuredText still reads (a cut table, a lone '|', tabs, a directive at the end, an"
      + " include with impossible lines): no page stops a folder's ingest")
  void brokenMarkup(@TempDir Path folder) throws Exception {
    Files.writeString(folder.resolve("part.rst"), "Shared text.\n");
    Files.writeString(folder.resolve("broken.rst"), "Broken\n======\n\n+-----+\n|\n| cut\n\n\tTabbed ::\n\n"
        + ".. include:: part.rst\n   :lines: 99999999999-\n\n.. note::");
    Page page = MarkdownFolder.read(folder, null).stream().filter(p -> p.documentId().equals("broken")).findFirst()
        .orElseThrow();
    assertThat(page.pageTitle()).isEqualTo("Broken");
    assertThat(page.sections().get(0).text()).isEqualTo("cut\n\nTabbed\n\nNote");
  }

  @Test
  @DisplayName("inline markup shows what the page shows: a role's text or title, ~ as the last name, literals as"
      + " written, a link's words, substitutions and references without their marks")
  void inlineMarkup() {
    assertThat(text("""
        Call :func:`robot.move`, :meth:`~robot.Arm.reach` or :py:class:`the arm <robot.Arm>`; read
        :ref:`calibrate` and ``:role:`target``` (``__init__`` too), see `the ROS docs <https://docs.ros.org>`_,
        Nav2_ and `Gazebo`_, |version| is current, a footnote [#]_ and `default role`.
        """)).isEqualTo("Call robot.move, reach or the arm; read calibrate and :role:`target` (__init__ too), see the"
        + " ROS docs, Nav2 and Gazebo, version is current, a footnote and default role.");
  }

  @Test
  @DisplayName("directives: boxes with their title, code with its language and caption, object descriptions as their"
      + " signature and text, version notes; tables of contents, API pulled from docstrings, images, comments,"
      + " targets and substitution definitions are no text")
  void directives() {
    String rst = """
        Title
        =====

        .. toctree::
           :maxdepth: 2

           intro

        .. note:: Calibrate first.

        .. admonition:: Why rest?
           :class: tip

           Gravity is the only force then.

        .. autoclass:: robot.Arm
           :members:

        .. py:method:: Arm.reach(x, y)
           :async:

           Move the hand to (x, y).

        .. versionchanged:: 2.0
           Takes metres.

        .. _target:

        .. |logo| image:: logo.png

        .. image:: arm.png

        .. This is a comment
           over two lines.

        .. code-block:: console
           :caption: Install it

           $ pip install robot

        .. click:example::

           @click.command()
           def hello(): ...

        .. click:run::

           invoke(hello)
        """;
    assertThat(text(rst)).isEqualTo("Note\n\nCalibrate first.\n\nWhy rest?\n\nGravity is the only force then.\n\n"
        + "Arm.reach(x, y)\n\nMove the hand to (x, y).\n\nChanged in version 2.0: Takes metres.\n\nInstall it\n\n"
        + "$ pip install robot\n\n@click.command()\ndef hello(): ...");
  }

  @Test
  @DisplayName("section levels in order of first use (over- and underlined, then underlined); literal blocks after"
      + " '::' in all three spellings, also in a list item; definition and field lists; grid and simple tables as"
      + " rows of words")
  void structure() {
    String rst = """
        ======
         Book
        ======

        Part
        ----

        Ends with a colon::

            code one

        Ends with a space ::

            code two

        ::

            code three

        - a step:

          .. code-block:: bash

             ros2 run demo talker

        Chapter
        ~~~~~~~

        term
           Its definition.

        :param rate: how often, in hertz

        +------+------+
        | Name | Rate |
        +======+======+
        | IMU  | 200  |
        +------+------+

        ====  ====
        Name  Unit
        ====  ====
        Lidar Hz
        ====  ====
        """;
    List<Page.Section> sections = sections(rst);
    assertThat(MarkdownReader.read("docs/page.rst", rst, null, null).pageTitle()).isEqualTo("Book");
    assertThat(sections).extracting(Page.Section::heading, Page.Section::parent)
        .containsExactly(tuple("Part", null), tuple("Chapter", "Part"));
    assertThat(sections.get(0).text()).isEqualTo("Ends with a colon:\n\ncode one\n\nEnds with a space\n\ncode two\n\n"
        + "code three\n\n- a step:\n  ros2 run demo talker");
    assertThat(sections.get(1).text()).isEqualTo("term\n\nIts definition.\n\nparam rate: how often, in hertz\n\n"
        + "Name Rate\n\nIMU 200\n\nName Unit\n\nLidar Hz");
  }
}
