package dev.ragretrieval.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MarkdownReaderTest {

  private static final String MDX = """
      ---
      title: "Nodes and Topics"
      sidebar_position: 2
      ---

      import Tabs from '@theme/Tabs';
      import TabItem from '@theme/TabItem';
      export const meta = {draft: false};

      # Ignored H1

      Intro paragraph with **bold** and `List<String>` code.

      ## What Is a Node

      A node is a process.

      <Tabs>
      <TabItem value="py" label="Python">

      ```python
      import rclpy
      from rclpy.node import Node
      ```

      </TabItem>
      </Tabs>

      :::tip Remember
      Nodes should do one thing.
      :::

      ### Node Names

      Names are unique. {/* an MDX comment */}

      #### Deeper heading

      Still in Node Names.
      """;

  @Test
  @DisplayName("front matter title, module folder as chapter, ##/### as sections (a ### knows its ##), MDX noise"
      + " gone, code kept")
  void readsMdx() {
    Page page = MarkdownReader.read("docs/module-1-ros2/02-nodes.mdx", MDX, "Module 1: ROS 2", null);
    assertThat(page.sourceUrl()).isEqualTo("docs/module-1-ros2/02-nodes");
    assertThat(page.documentId()).isEqualTo("docs/module-1-ros2/02-nodes");
    assertThat(page.pageTitle()).isEqualTo("Nodes and Topics");
    assertThat(page.chapter()).isEqualTo("module-1-ros2");
    assertThat(page.chapterLabel()).isEqualTo("Module 1: ROS 2");
    assertThat(page.sourceType()).isEqualTo("markdown");
    assertThat(page.sections()).extracting(Page.Section::heading).containsExactly(null, "What Is a Node", "Node Names");
    assertThat(page.sections()).extracting(Page.Section::parent).containsExactly(null, null, "What Is a Node");

    String intro = page.sections().get(0).text();
    assertThat(intro).contains("Intro paragraph with bold and List<String> code.");
    String node = page.sections().get(1).text();
    assertThat(node).contains("A node is a process.", "import rclpy", "from rclpy.node import Node",
        "Remember\n\nNodes should do one thing.");
    String all = String.join("\n", page.sections().stream().map(Page.Section::text).toList());
    assertThat(all).doesNotContain("@theme", "<Tabs", "TabItem", ":::", "export const", "MDX comment", "Ignored H1");
    assertThat(page.sections().get(2).text()).contains("Names are unique.", "Deeper heading", "Still in Node Names.");
  }

  @Test
  @DisplayName("JSX tags, imports, exports and comments written over several lines are removed whole, and a heading's"
      + " {#id}; inline code, a comparison, the text between tags and an admonition's title stay; a block quote is its"
      + " words, without «»")
  void multiLineMdx() {
    String mdx = """
        import {
          Figure,
          Highlight,
        } from '@site/src/components';

        export const Box = ({children, color}) => (
          <span style={{backgroundColor: color}}>{children}</span>
        );

        ## Inertial measurement {#imu}

        <Tabs
          defaultValue="py"
          values={[
            {label: 'Python', value: 'py'},
            {label: 'C++', value: 'cpp'},
          ]}>
        <TabItem value="py">

        ```python
        imu = read_imu()  # <Tabs> here is code
        ```

        </TabItem>
        </Tabs>

        {/* a comment
           over two lines */}

        Use <Highlight color="#25c2a0">the green</Highlight> for emphasis, `List<String>` for code; if a<B, stop.

        <Button onClick={() => alert('hi')}>Press here</Button>

        A < B and C > D.

        Press <Enter to go on; don't hold it. Then type x > 0. Angle brackets <> mark required inputs.

        import the settings the usual way (see below

        This paragraph stays.

        :::note[Key idea]
        > Fusing sensors beats any one of them.
        :::
        """;
    Page.Section section = MarkdownReader.read("docs/m/imu.mdx", mdx, null, null).sections().get(0);
    assertThat(section.heading()).isEqualTo("Inertial measurement"); // its explicit id {#imu} is markup
    String text = section.text();
    assertThat(text).isEqualTo("""
        imu = read_imu()  # <Tabs> here is code

        Use the green for emphasis, List<String> for code; if a<B, stop.

        Press here

        A < B and C > D.

        Press <Enter to go on; don't hold it. Then type x > 0. Angle brackets <> mark required inputs.

        This paragraph stays.

        Key idea

        Fusing sensors beats any one of them.""");
  }

  @Test
  @DisplayName("MkDocs boxes (!!! note \"Title\", ??? and ???+ that fold, nested, a fence inside) keep their title and"
      + " their body as text, not as indented code; the text after a box is the page's again")
  void mkdocsBoxes() {
    String md = """
        # Sensors

        ## Inertial measurement

        !!! tip "Calibrate first"
            An IMU drifts; calibrate it at rest.

            ```python
            imu.calibrate()
            ```

            ??? note
                Gyroscopes drift more than accelerometers.

        !!! warning inline end
        \tKeep magnets away.

        After the boxes.

            indented code at the top level

        !!! what a surprise
        That line was prose: no body is indented below it.
        """;
    Page.Section section = MarkdownReader.read("docs/m/sensors.md", md, null, null).sections().get(0);
    assertThat(section.text()).isEqualTo("""
        Calibrate first

        An IMU drifts; calibrate it at rest.

        imu.calibrate()

        Note

        Gyroscopes drift more than accelerometers.

        Warning

        Keep magnets away.

        After the boxes.

        indented code at the top level

        !!! what a surprise That line was prose: no body is indented below it.""");
  }

  @Test
  @DisplayName("a box without a title of its own shows its type, as every site generator renders it (\":::tip\" is"
      + " \"Tip\"); a custom type or !!! note \"\" shows none")
  void untitledBoxes() {
    String md = """
        ## Boxes

        :::tip
        Source the workspace first.
        :::

        :::my-widget
        Custom.
        :::

        !!! note ""
            No title at all.
        """;
    assertThat(MarkdownReader.read("docs/m/boxes.md", md, null, null).sections().get(0).text())
        .isEqualTo("Tip\n\nSource the workspace first.\n\nCustom.\n\nNo title at all.");
  }

  @Test
  @DisplayName("a link is its words and an image its alt text, without the address (the text renderer writes"
      + " \"words\" (address)); an autolink is its address")
  void linksAreTheirWords() {
    String md = """
        ## Navigation

        See [the Nav2 chapter](../module-3/04-nav2.md#costmaps) and [**SLAM**][slam] before
        ![A costmap around the robot](./img/costmap.png) this one, or <https://nav2.org>.

        [slam]: ./03-slam.md
        """;
    assertThat(MarkdownReader.read("docs/m/nav.md", md, null, null).sections().get(0).text())
        .isEqualTo("See the Nav2 chapter and SLAM before A costmap around the robot this one, or https://nav2.org.");
  }

  @Test
  @DisplayName("a GitHub alert (> [!TIP]) reads as the box mdBook, VitePress and GitHub render: its type as title, then"
      + " its text; an Obsidian callout keeps its own title; the marker is no text, and inside code it stays")
  void githubAlerts() {
    String md = """
        ## Build

        > [!TIP]
        > Use rosdep before building.

        > [!warning]- Careful
        > Do not run as root.

        > [!custom]
        > Plain quote.

        ```markdown
        > [!NOTE]
        ```
        """;
    assertThat(MarkdownReader.read("docs/m/build.md", md, null, null).sections().get(0).text()).isEqualTo(
        "Tip\n\nUse rosdep before building.\n\nCareful\n\nDo not run as root.\n\nPlain quote.\n\n> [!NOTE]");
  }

  @Test
  @DisplayName("a table reads as its built page does: a row a paragraph, its cells words apart, without the"
      + " source's pipes and the line under the header")
  void tables() {
    String md = """
        ## Sensors

        | Sensor | Range **(max)** | Output |
        |:-------|------:|--------|
        | Lidar  | 100 m | [point cloud](./clouds.md) |
        | IMU    | `n/a` | |

        Pick by range.
        """;
    String html = "<html><head><title>Sensors</title></head><body><main><article><h2>Sensors</h2><table>"
        + "<thead><tr><th>Sensor</th><th>Range <strong>(max)</strong></th><th>Output</th></tr></thead><tbody>"
        + "<tr><td>Lidar</td><td>100 m</td><td><a href=\"clouds\">point cloud</a></td></tr>"
        + "<tr><td>IMU</td><td><code>n/a</code></td><td></td></tr></tbody></table><p>Pick by range.</p>"
        + "</article></main></body></html>";
    String markdownText = MarkdownReader.read("docs/m/sensors.md", md, null, null).sections().get(0).text();
    assertThat(markdownText).isEqualTo("Sensor Range (max) Output\n\nLidar 100 m point cloud\n\nIMU n/a\n\nPick by range.");
    assertThat(HtmlReader.read("http://127.0.0.1/docs/m/sensors", html).sections().get(0).text()).isEqualTo(markdownText);
  }

  @Test
  @DisplayName("a paragraph wrapped in the source reads as one line, as the built page shows it; a hard break"
      + " (two spaces or a backslash at the line's end) and a list stay on their lines")
  void wrappedLines() {
    String md = "## Topics\n\nA topic is a named bus\nover which nodes exchange\nmessages.\n\n"
        + "First line  \nSecond line\\\nThird line\n\n- one\n- two\n";
    assertThat(MarkdownReader.read("docs/m/topics.md", md, null, null).sections().get(0).text()).isEqualTo(
        "A topic is a named bus over which nodes exchange messages.\n\nFirst line\nSecond line\nThird line\n\n- one\n- two");
  }

  @Test
  @DisplayName("a code block inside a list item keeps its own indentation on every line, below the item's")
  void codeInListItems() {
    String md = "## Steps\n\n1. Create the node:\n\n   ```python\n   class Node:\n       def run(self):\n"
        + "\n           return 1\n   ```\n\n2. Start it:\n   - in a shell\n\n         ros2 run demo node\n"
        + "         --ros-args -p rate:=10\n";
    assertThat(MarkdownReader.read("docs/m/steps.md", md, null, null).sections().get(0).text()).isEqualTo(
        "1. Create the node:\n   class Node:\n       def run(self):\n\n           return 1\n2. Start it:\n"
            + "   - in a shell\n     ros2 run demo node\n     --ros-args -p rate:=10");
  }

  @Test
  @DisplayName("MyST comments (% at a block's start) are no words; a wrapped line starting with % and a % in code stay")
  void mystComments() {
    String md = """
        ## Costs

        % TODO: check these figures with the vendor
        % second comment line
        A servo costs 50
        % more than a stepper.

        ```python
        print("%d" % 3)
        % not a comment in code
        ```
        """;
    assertThat(MarkdownReader.read("docs/costs.md", md, null, null).sections().get(0).text()).isEqualTo(
        "A servo costs 50 % more than a stepper.\n\nprint(\"%d\" % 3)\n% not a comment in code");
  }

  @Test
  @DisplayName("Rust code's hidden lines (# use ..., a lone #) are left out as mdBook and rustdoc show the code; ## is"
      + " a shown #; other languages' # lines stay")
  void rustHiddenLines() {
    String md = """
        ## Ownership

        ```rust,ignore
        # use std::collections::HashMap;
        #
        fn main() {
            ## [derive(Debug)] shown
            #[derive(Debug)]
            let s = String::from("hi");
        #   drop(s);
        }
        ```

        ```bash
        # install it first
        cargo build
        ```
        """;
    assertThat(MarkdownReader.read("src/ch04.md", md, null, null).sections().get(0).text()).isEqualTo(
        "fn main() {\n    # [derive(Debug)] shown\n    #[derive(Debug)]\n    let s = String::from(\"hi\");\n}"
            + "\n\n# install it first\ncargo build");
  }

  @Test
  @DisplayName("Material for MkDocs' content tabs read as their label and their body, not as indented code; its"
      + " icons are no words")
  void mkdocsContentTabs() {
    String md = """
        ## Install

        === "pip"

            Install the package with pip:

            ```bash
            pip install foo
            ```

        ===! ":material-snake: conda"

            Install it with conda.

        Then press :material-play: to start it (`:material-play:` is the icon's name).
        """;
    assertThat(MarkdownReader.read("docs/install.md", md, null, null).sections().get(0).text()).isEqualTo(
        "pip\n\nInstall the package with pip:\n\npip install foo\n\nconda\n\nInstall it with conda.\n\n"
            + "Then press to start it (:material-play: is the icon's name).");
  }

  @Test
  @DisplayName("template tags the generator replaces (Liquid, GitBook's hints, Hugo's shortcodes), marker lines (a"
      + " table of contents, kramdown's attribute lists), attribute lists and inline HTML tags are no words; in code"
      + " they stay as written")
  void templateTagsAndMarkers() {
    String md = """
        # Setup
        {: .no_toc }

        1. TOC
        {:toc}

        [TOC]

        [[toc]]

        ## Needs

        {% hint style="info" %}
        The server needs Java 17.
        {% endhint %}

        {{< callout type="warning" >}}
        Keep the token secret.
        {{< /callout >}}

        Read the {{% badge %}}new{{% /badge %}} guide first.
        {: .note }

        Made by the team { .heart } and { style="color: red" } friends { width=300 }; {k=0} and a set {1, 2} stay.

        ```html
        {% include footer.html %}
        ```

        Write `{{< ref "x" >}}` to link a page.

        ### Keys <small>v2</small>

        Press <kbd>Ctrl</kbd>+<kbd>C</kbd> to stop.<br>Then <span class="x">restart</span> it<!-- why -->.
        """;
    Page page = MarkdownReader.read("docs/setup.md", md, null, null);
    assertThat(page.pageTitle()).isEqualTo("Setup");
    assertThat(page.sections()).extracting(Page.Section::heading).containsExactly("Needs", "Keys v2");
    assertThat(page.sections().get(1).text()).isEqualTo("Press Ctrl+C to stop.\nThen restart it.");
    assertThat(page.sections().get(0).text()).isEqualTo("The server needs Java 17.\n\nKeep the token secret.\n\n"
        + "Read the new guide first.\n\nMade by the team and friends; {k=0} and a set {1, 2} stay.\n\n"
        + "{% include footer.html %}\n\nWrite {{< ref \"x\" >}} to link a page.");
  }

  @Test
  @DisplayName("Hugo's TOML front matter gives the page its title, slug and draft flag, and is no text")
  void tomlFrontMatter() {
    String md = """
        +++
        title = "Joint Control"
        weight = 3
        tags = ["control", "ros"]
        [params]
        title = "not the page's"
        +++

        ## Gains

        Tune the gains.
        """;
    Page page = MarkdownReader.read("content/docs/joints.md", md, null, null);
    assertThat(page.pageTitle()).isEqualTo("Joint Control");
    assertThat(page.sections()).extracting(Page.Section::text).containsExactly("Tune the gains.");
    assertThat(MarkdownReader.isDraft("+++\ntitle = \"Soon\"\ndraft = true\n+++\nText.\n")).isTrue();
    assertThat(MarkdownReader.isDraft("+++\ntitle = \"Now\"\ndraft = false\n+++\nText.\n")).isFalse();
  }

  @Test
  @DisplayName("MyST (Jupyter Book, Sphinx): a directive's box reads as its title and text without its options,"
      + " code cells stay code, a table of contents is no text, roles show their words, targets are no text")
  void mystDirectives() {
    String md = """
        (kinematics)=
        # Forward Kinematics

        See {ref}`the setup chapter <setup>` and the {term}`end effector`.

        ```{note}
        The arm has six joints.
        ```

        :::{admonition} Why it matters
        :class: dropdown
        Joint angles give the pose.
        :::

        ````{tab-set}
        ```{tab-item} Python
        :sync: py
        Compute it in Python:
        ```python
        import numpy as np
        ```
        ```
        ````

        ```{code-cell} ipython3
        :tags: [hide-input]
        print(pose)
        ```

        ```{toctree}
        :maxdepth: 2
        chapter1
        ```

        ```{figure} ../images/arm.png
        ---
        name: arm-figure
        ---
        A six-joint arm.
        ```

        +++

        Done.
        """;
    Page page = MarkdownReader.read("book/kinematics.md", md, null, null);
    assertThat(page.pageTitle()).isEqualTo("Forward Kinematics");
    assertThat(page.sections().get(0).text()).isEqualTo("See the setup chapter and the end effector.\n\n"
        + "Note\n\nThe arm has six joints.\n\nWhy it matters\n\nJoint angles give the pose.\n\n"
        + "Python\n\nCompute it in Python:\n\nimport numpy as np\n\nprint(pose)\n\nA six-joint arm.\n\nDone.");
  }

  @Test
  @DisplayName("every page of the sample book written for Jupyter Book (its boxes as MyST's :::{tip}) reads as the"
      + " Docusaurus original does")
  void mystSampleBook() throws Exception {
    int withBoxes = 0;
    for (String path : new String(MarkdownReaderTest.class.getResourceAsStream("/sample-book/index.txt").readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8).strip().split("\\R")) {
      String docusaurus = new String(MarkdownReaderTest.class.getResourceAsStream("/sample-book/" + path).readAllBytes(),
          java.nio.charset.StandardCharsets.UTF_8);
      String myst = docusaurus.replaceAll("(?m)^:::(\\w+)", ":::{$1}");
      withBoxes += myst.equals(docusaurus) ? 0 : 1;
      assertThat(MarkdownReader.read(path, myst, null, null)).as(path)
          .isEqualTo(MarkdownReader.read(path, docusaurus, null, null));
    }
    assertThat(withBoxes).isGreaterThan(5);
  }

  @Test
  @DisplayName("Quarto and R Markdown pages: callouts read as boxes, executable cells as code without their options"
      + " (#|), a plain div as its text")
  void quartoPages() {
    String md = """
        ---
        title: "Sensors"
        ---

        ## Reading the IMU

        ::: {.callout-note}
        The IMU reports at 200 Hz.
        :::

        :::{.callout-tip title="Before you start"}
        Calibrate it.
        :::

        ::: {.column-margin}
        Gyroscopes drift.
        :::

        ```{python}
        #| echo: false
        import numpy as np
        ```

        ```{r setup, include=FALSE}
        library(ggplot2)
        ```
        """;
    Page page = MarkdownReader.read("chapters/sensors.qmd", md, null, null);
    assertThat(page.pageTitle()).isEqualTo("Sensors");
    assertThat(page.documentId()).isEqualTo("chapters/sensors");
    assertThat(page.sections().get(0).text()).isEqualTo("Note\n\nThe IMU reports at 200 Hz.\n\nBefore you start\n\n"
        + "Calibrate it.\n\nGyroscopes drift.\n\nimport numpy as np\n\nlibrary(ggplot2)");
    assertThat(MarkdownReader.isMarkdownFile("chapters/sensors.qmd")).isTrue();
    assertThat(MarkdownReader.isMarkdownFile("analysis/report.Rmd")).isTrue();
    assertThat(MarkdownReader.isMarkdownFile("notes/report.txt")).isFalse();
  }

  @Test
  @DisplayName("a component's title or label is shown on the page, so it is text; a byte order mark before the front"
      + " matter does not hide it")
  void componentTitlesAndByteOrderMark() {
    String md = """
        \uFEFF---
        title: Reducers
        ---

        import Tabs from '@theme/Tabs';

        ## Why reducers

        <DetailedExplanation title="Why are they called reducers?">

        Because of Array.reduce.

        </DetailedExplanation>

        <Tabs groupId="lang">
        <TabItem value="js" label="JavaScript" default>

        Use JS.

        </TabItem>
        </Tabs>
        """;
    Page page = MarkdownReader.read("docs/reducers.mdx", md, null, null);
    assertThat(page.pageTitle()).isEqualTo("Reducers");
    assertThat(page.sections()).extracting(Page.Section::heading, Page.Section::text).containsExactly(
        tuple("Why reducers", "Why are they called reducers?\n\nBecause of Array.reduce.\n\nJavaScript\n\nUse JS."));
  }

  @Test
  @DisplayName("a MyST colon fence ends at its bare ':::' (the text after a table of contents or a code block in one"
      + " is read), and a Docusaurus box's ':::' beside it still ends the box")
  void mystColonFencesClose() {
    String md = """
        ## Contents

        :::{toctree}
        :maxdepth: 1
        chapter1
        :::

        After the contents.

        :::{code-block} python
        print("x")
        :::

        After the code.

        :::tip
        A Docusaurus tip.
        :::

        End.
        """;
    assertThat(MarkdownReader.read("docs/contents.md", md, null, null).sections().get(0).text()).isEqualTo(
        "After the contents.\n\nprint(\"x\")\n\nAfter the code.\n\nTip\n\nA Docusaurus tip.\n\nEnd.");
  }

  @Test
  @DisplayName("a fence closes only with a fence of its own mark and length: code shown inside a longer fence keeps"
      + " its import lines and tags")
  void nestedFences() {
    String md = """
        ## Tabs

        Write this:

        ````md
        ```jsx
        import Tabs from '@theme/Tabs';
        <Tabs><TabItem value="a">A</TabItem></Tabs>
        ```
        ````

        Then <Tabs>this</Tabs> renders.
        """;
    assertThat(MarkdownReader.read("docs/tabs.mdx", md, null, null).sections().get(0).text()).isEqualTo(
        "Write this:\n\n```jsx\nimport Tabs from '@theme/Tabs';\n<Tabs><TabItem value=\"a\">A</TabItem></Tabs>\n```"
            + "\n\nThen this renders.");
  }

  @Test
  @DisplayName("a section that is (almost) only links is navigation and is left out, as the HTML reader does; prose"
      + " with a link stays; a horizontal rule is no text")
  void linkListsAreNavigation() {
    String md = """
        # Book

        Welcome to the book.

        ***

        ## Contents

        - [Module 1: ROS 2](module-1/index.md)
        - [Module 2: Simulation](module-2/index.md)

        ## Further reading

        See [the ROS 2 docs](https://docs.ros.org) for the full API, and read the design notes on discovery first.
        """;
    assertThat(MarkdownReader.read("docs/intro.md", md, null, null).sections())
        .extracting(Page.Section::heading, Page.Section::text).containsExactly(
            tuple(null, "Welcome to the book."),
            tuple("Further reading",
                "See the ROS 2 docs for the full API, and read the design notes on discovery first."));
  }

  @Test
  @DisplayName("without front matter the H1 is the title; a base URL prefixes source_url; top-level pages have no chapter")
  void titleFromH1() {
    Page page = MarkdownReader.read("intro.md", "# Welcome\n\nHello there.\n", null, "https://book.example.org/");
    assertThat(page.pageTitle()).isEqualTo("Welcome");
    assertThat(page.sourceUrl()).isEqualTo("https://book.example.org/intro");
    assertThat(page.chapter()).isNull();
    assertThat(page.sections()).containsExactly(new Page.Section(null, "Hello there."));
  }

  @Test
  @DisplayName("the bundled sample book reads as 21 pages with titles, chapters, labels and sections")
  void sampleBook() {
    List<Page> pages = SampleBook.pages();
    assertThat(pages).hasSize(21);
    assertThat(pages).allSatisfy(p -> {
      assertThat(p.pageTitle()).isNotBlank();
      assertThat(p.chapter()).startsWith("module-");
      assertThat(p.chapterLabel()).startsWith("Module ");
      assertThat(p.sections()).isNotEmpty();
    });
    Page qos = pages.stream().filter(p -> p.sourceUrl().equals("docs/module-1-ros2/05-qos-profiles")).findFirst().orElseThrow();
    assertThat(qos.sections()).extracting(Page.Section::heading).contains("Durability: Volatile versus Transient Local");
  }
}
