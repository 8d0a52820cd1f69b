package dev.ragretrieval.web;

import static dev.ragretrieval.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.app.Application;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.search.Point;
import dev.ragretrieval.testing.CohereTestServer;
import dev.ragretrieval.testing.QdrantTestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The page at {@code /} in headless Chromium, served by the real application, which embeds with
 * the Cohere test server and searches the Qdrant test server over gRPC. The service requires an
 * API key, so every test goes through the page's API-key field as a user would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("The web search page")
class SearchPageTest {

  private static final String COLLECTION = "textbook_chunks";
  private static final int DIMENSION = 256;
  private static final String CLIENT_KEY = "page-test-key";
  private static final String QUESTION = "What is a ROS 2 node?";
  /** A second collection, ingested from a folder without --base-url: its sources are relative paths. */
  private static final String GARDEN = "garden_docs";
  private static final String[][] GARDEN_CHUNKS = {
      {"watering", "docs/watering.md", "Water tomato plants deeply twice a week in dry weather"},
      {"watering", "docs/watering.md", "Drip irrigation keeps the soil moist without wetting the leaves"},
      {"soil", "docs/soil.md", "Compost improves soil structure and feeds the plants slowly"},
  };

  private Vertx vertx;
  private QdrantTestServer qdrant;
  private CohereTestServer cohere;
  private Application app;
  private ChromeDriver browser;
  private String base;
  private Path buildDir;

  @BeforeAll
  void startServiceAndBrowser() throws Exception {
    if (!HeadlessChromium.installed()) {
      return; // each test then reports itself skipped, with the reason
    }
    vertx = Vertx.vertx();
    qdrant = await(QdrantTestServer.start(vertx));
    qdrant.createCollection(COLLECTION, DIMENSION);
    for (Point p : TextbookChunks.points(DIMENSION)) {
      qdrant.upsert(COLLECTION, p.id(), p.vector(), p.payload());
    }
    qdrant.createCollection(GARDEN, DIMENSION);
    for (int i = 0; i < GARDEN_CHUNKS.length; i++) {
      String[] c = GARDEN_CHUNKS[i];
      qdrant.upsert(GARDEN, java.util.UUID.nameUUIDFromBytes(("garden-" + i).getBytes(StandardCharsets.UTF_8)).toString(),
          CohereTestServer.vectorFor(c[2], DIMENSION), new JsonObject().put("text", c[2]).put("chapter", c[0])
              .put("source_url", c[1]).put("page_title", c[0]).put("chunk_index", i));
    }
    cohere = await(CohereTestServer.start(vertx, "cohere-test-key", DIMENSION));

    AppConfig config = await(ConfigLoader.load(vertx, Map.of(
        "QDRANT_HOST", qdrant.host(),
        "QDRANT_GRPC_PORT", String.valueOf(qdrant.port()),
        "QDRANT_COLLECTION", COLLECTION,
        "EMBEDDING_PROVIDER", "cohere",
        "COHERE_API_KEY", cohere.apiKey(),
        "COHERE_BASE_URL", cohere.baseUrl(),
        "COHERE_EMBED_DIMENSION", String.valueOf(DIMENSION),
        "RAG_API_KEYS", CLIENT_KEY)));
    app = await(Application.start(vertx, onEphemeralLoopbackPort(config), null));
    base = "http://127.0.0.1:" + app.httpPort();

    buildDir = buildDir();
    browser = HeadlessChromium.start(buildDir.resolve("tmp").resolve("chromium-profile"), 1200, 1500);
  }

  @AfterAll
  void stopEverything() throws Exception {
    if (browser != null) {
      browser.quit();
    }
    if (app != null) {
      await(app.shutdown());
    }
    if (cohere != null) {
      await(cohere.stop());
    }
    if (qdrant != null) {
      await(qdrant.stop());
    }
    if (vertx != null) {
      await(vertx.close());
    }
  }

  @BeforeEach
  void freshTab() {
    HeadlessChromium.assumeInstalled();
    browser.get(base + "/");
    browser.executeScript("sessionStorage.clear()");
    browser.get(base + "/");
  }

  @Test
  @DisplayName("a question streams result cards in rank order with falling scores, the context and the timings")
  void cardsArriveInRankOrder() throws Exception {
    enterApiKey(CLIENT_KEY);
    browser.findElement(By.id("threshold")).sendKeys(Keys.HOME); // minimum score 0: every related passage
    browser.findElement(By.id("question")).sendKeys(QUESTION, Keys.ENTER);
    awaitSearchEnd("done");

    List<WebElement> cards = cards();
    assertThat(cards).hasSizeGreaterThanOrEqualTo(3);
    for (int i = 0; i < cards.size(); i++) {
      assertThat(cards.get(i).getAttribute("data-rank")).isEqualTo(String.valueOf(i + 1));
    }
    List<Double> scores = scores(cards);
    assertThat(scores).isSortedAccordingTo((a, b) -> Double.compare(b, a));

    // the page shows exactly what the JSON API answers for the same request
    JsonObject json = retrieveJson(
        new JsonObject().put("query", QUESTION).put("top_k", 5).put("score_threshold", 0), CLIENT_KEY);
    JsonArray expected = json.getJsonArray("results");
    assertThat(cards).hasSize(expected.size());
    assertThat(scores).containsExactlyElementsOf(
        expected.stream().map(r -> ((JsonObject) r).getDouble("score")).toList());
    assertThat(cards.get(0).getText()).contains(expected.getJsonObject(0).getString("page_title"));

    WebElement first = cards.get(0);
    assertThat(first.findElements(By.tagName("mark"))).extracting(WebElement::getText)
        .anySatisfy(word -> assertThat(word.toLowerCase()).startsWith("node"));
    assertThat(browser.findElement(By.id("context-text")).getText()).startsWith("[Result 1] Score: ");
    assertThat(browser.findElement(By.id("timings")).getText()).contains("embed", "search", "total");
    assertThat(browser.getCurrentUrl()).contains("q=What+is+a+ROS+2+node%3F", "top_k=5", "score_threshold=0");

    saveScreenshot("search-page.png");
  }

  @Test
  @DisplayName("on a phone-sized screen (375 px wide) the page and its cards fit the width: nothing scrolls sideways")
  void fitsAPhone() throws Exception {
    Dimension desktop = browser.manage().window().getSize();
    browser.manage().window().setSize(new Dimension(375, 812));
    try {
      enterApiKey(CLIENT_KEY);
      browser.findElement(By.id("question")).sendKeys(QUESTION, Keys.ENTER);
      awaitSearchEnd("done");
      assertThat(cards()).isNotEmpty();
      long viewport = ((Number) ((JavascriptExecutor) browser).executeScript(
          "return document.documentElement.clientWidth")).longValue();
      long page = ((Number) ((JavascriptExecutor) browser).executeScript(
          "return document.documentElement.scrollWidth")).longValue();
      assertThat(viewport).as("the viewport really is phone-sized").isLessThanOrEqualTo(400);
      assertThat(page).as("page width at a %d px viewport", viewport).isLessThanOrEqualTo(viewport);
      for (WebElement card : cards()) {
        assertThat((long) card.getRect().getX() + card.getRect().getWidth()).as("right edge of a card")
            .isLessThanOrEqualTo(viewport);
      }
      saveScreenshot("search-page-phone.png");
    } finally {
      browser.manage().window().setSize(desktop);
    }
  }

  @Test
  @DisplayName("the chapter filter lists the collection's chapters and narrows the cards to the one chosen")
  void chapterFilterNarrowsCards() {
    enterApiKey(CLIENT_KEY);
    browser.get(base + "/?q=" + encode("How do ROS 2 nodes control the humanoid joints?")
        + "&top_k=10&score_threshold=0");
    awaitSearchEnd("done");
    assertThat(chaptersOf(cards())).contains(TextbookChunks.ROS, TextbookChunks.HUMANOID);

    WebElement chapterSelect = browser.findElement(By.id("chapter"));
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(b -> "loaded".equals(chapterSelect.getAttribute("data-facets")));
    Select chapter = new Select(chapterSelect);
    assertThat(chapter.getOptions()).extracting(WebElement::getText).contains(
        "All chapters",
        TextbookChunks.ROS + " (" + TextbookChunks.count(TextbookChunks.ROS) + ")",
        TextbookChunks.HUMANOID + " (" + TextbookChunks.count(TextbookChunks.HUMANOID) + ")");

    chapter.selectByValue(TextbookChunks.HUMANOID);
    new WebDriverWait(browser, Duration.ofSeconds(20)).until(b -> "done".equals(state())
        && !cards().isEmpty() && chaptersOf(cards()).equals(Set.of(TextbookChunks.HUMANOID)));
    assertThat(cards()).hasSizeLessThanOrEqualTo(TextbookChunks.count(TextbookChunks.HUMANOID));
    assertThat(browser.getCurrentUrl()).contains("chapter=" + TextbookChunks.HUMANOID);
  }

  @Test
  @DisplayName("with two collections a picker offers both; choosing one searches it, lists its chapters and puts it in the URL")
  void collectionPicker() {
    enterApiKey(CLIENT_KEY);
    browser.get(base + "/?q=" + encode("How often should I water tomato plants?") + "&score_threshold=0");
    awaitSearchEnd("done");
    WebElement picker = browser.findElement(By.id("collection"));
    new WebDriverWait(browser, Duration.ofSeconds(10))
        .until(b -> "loaded".equals(picker.getAttribute("data-collections")));
    assertThat(browser.findElement(By.id("collection-control")).isDisplayed()).isTrue();
    assertThat(new Select(picker).getOptions()).extracting(o -> o.getAttribute("value"))
        .containsExactly("", GARDEN, COLLECTION);

    new Select(picker).selectByValue(GARDEN);
    new WebDriverWait(browser, Duration.ofSeconds(20)).until(b -> "done".equals(state())
        && !cards().isEmpty() && chaptersOf(cards()).stream().allMatch(c -> c.equals("watering") || c.equals("soil")));
    assertThat(browser.getCurrentUrl()).contains("collection=" + GARDEN);
    assertThat(cards().get(0).getText()).contains("Water tomato plants");

    WebElement chapterSelect = browser.findElement(By.id("chapter"));
    new WebDriverWait(browser, Duration.ofSeconds(10)).until(b -> "loaded".equals(chapterSelect.getAttribute("data-facets"))
        && new Select(chapterSelect).getOptions().size() == 3);
    assertThat(new Select(chapterSelect).getOptions()).extracting(WebElement::getText)
        .containsExactly("All chapters", "watering (2)", "soil (1)");
  }

  @Test
  @DisplayName("a link with ?collection= opens on that collection; its relative source paths are shown as text, not dead links")
  void collectionFromLinkAndRelativeSources() {
    enterApiKey(CLIENT_KEY);
    browser.get(base + "/?q=" + encode("compost and soil") + "&top_k=3&score_threshold=0&collection=" + GARDEN);
    awaitSearchEnd("done");
    assertThat(new Select(browser.findElement(By.id("collection"))).getFirstSelectedOption().getAttribute("value"))
        .isEqualTo(GARDEN);
    WebElement first = cards().get(0);
    assertThat(first.getText()).contains("Compost improves soil");
    assertThat(first.findElements(By.cssSelector("a.source"))).isEmpty();
    assertThat(first.findElement(By.cssSelector(".source")).getText()).isEqualTo("docs/soil.md");
    // the default collection's absolute sources stay links
    browser.get(base + "/?q=" + encode(QUESTION) + "&top_k=1");
    awaitSearchEnd("done");
    assertThat(cards().get(0).findElement(By.cssSelector("a.source")).getAttribute("href")).startsWith(TextbookChunks.BASE_URL);
  }

  @Test
  @DisplayName("an empty question is sent to the service and its EMPTY_QUERY message is shown")
  void emptyQuestionShowsTheServiceMessage() throws Exception {
    enterApiKey(CLIENT_KEY);
    browser.findElement(By.id("question")).sendKeys(Keys.ENTER);
    awaitSearchEnd("error");

    JsonObject expected = retrieveError(new JsonObject().put("query", ""), CLIENT_KEY);
    WebElement error = browser.findElement(By.id("error"));
    assertThat(error.getAttribute("data-code")).isEqualTo("EMPTY_QUERY");
    assertThat(error.getText()).contains("Type a question first.", expected.getString("message"));
    assertThat(cards()).isEmpty();
  }

  @Test
  @DisplayName("a wrong API key in the key field shows the UNAUTHORIZED message and opens the field")
  void wrongApiKeyShowsUnauthorized() {
    enterApiKey("not-the-key");
    browser.findElement(By.id("question")).sendKeys(QUESTION, Keys.ENTER);
    awaitSearchEnd("error");

    WebElement error = browser.findElement(By.id("error"));
    assertThat(error.getAttribute("data-code")).isEqualTo("UNAUTHORIZED");
    assertThat(error.getText()).contains("needs a valid API key");
    assertThat(browser.findElement(By.id("settings")).getAttribute("open")).isNotNull();
    assertThat(cards()).isEmpty();
  }

  @Test
  @DisplayName("opening a link /?q=...&top_k=2 fills the form and runs the search with two cards")
  void linkRunsTheSearchOnOpen() {
    enterApiKey(CLIENT_KEY);
    browser.get(base + "/?q=" + encode(QUESTION) + "&top_k=2");
    awaitSearchEnd("done");

    assertThat(cards()).extracting(c -> c.getAttribute("data-rank")).containsExactly("1", "2");
    assertThat(browser.findElement(By.id("question")).getAttribute("value")).isEqualTo(QUESTION);
    assertThat(browser.findElement(By.id("top-k")).getAttribute("value")).isEqualTo("2");
  }

  @Test
  @DisplayName("markup inside a chunk's text is shown as characters, never turned into elements")
  void chunkTextIsNeverParsedAsHtml() {
    enterApiKey(CLIENT_KEY);
    browser.get(base + "/?q=" + encode("launch file XML node tag") + "&top_k=3");
    awaitSearchEnd("done");

    WebElement launchCard = cards().stream()
        .filter(c -> c.getText().contains(TextbookChunks.LAUNCH_XML))
        .findFirst().orElseThrow(() -> new AssertionError("no card shows the launch-file XML as text"));
    assertThat(launchCard.findElements(By.cssSelector("node"))).isEmpty();
  }

  // ---------------------------------------------------------------- page helpers

  /** Types the key into the page's field; the page keeps it in sessionStorage for this tab. */
  private void enterApiKey(String key) {
    WebElement settings = browser.findElement(By.id("settings"));
    if (settings.getAttribute("open") == null) {
      settings.findElement(By.tagName("summary")).click();
    }
    WebElement field = browser.findElement(By.id("api-key"));
    field.clear();
    field.sendKeys(key);
    settings.findElement(By.tagName("summary")).click();
  }

  private String state() {
    return String.valueOf(((JavascriptExecutor) browser).executeScript("return document.body.dataset.state"));
  }

  private void awaitSearchEnd(String expected) {
    new WebDriverWait(browser, Duration.ofSeconds(20))
        .until(b -> "done".equals(state()) || "error".equals(state()));
    assertThat(state()).as("search outcome; error box: %s", browser.findElement(By.id("error")).getText())
        .isEqualTo(expected);
    awaitCardsShown();
  }

  /**
   * Waits until every card's fade-in has finished. A card arrives at opacity 0 and WebDriver's
   * getText() leaves out what is not shown, so text read right after "done" can be empty.
   */
  private void awaitCardsShown() {
    new WebDriverWait(browser, Duration.ofSeconds(10)).withMessage("result cards still fading in")
        .until(b -> Boolean.TRUE.equals(((JavascriptExecutor) b).executeScript(
            "return [...document.querySelectorAll('#results article[data-rank]')]"
                + ".every(card => card.getAnimations().every(a => a.playState === 'finished'))")));
  }

  private List<WebElement> cards() {
    return browser.findElements(By.cssSelector("#results article[data-rank]"));
  }

  private static List<Double> scores(List<WebElement> cards) {
    return cards.stream().map(c -> Double.parseDouble(c.getAttribute("data-score"))).toList();
  }

  private static Set<String> chaptersOf(List<WebElement> cards) {
    return cards.stream().map(c -> c.getAttribute("data-chapter")).collect(Collectors.toSet());
  }

  private void saveScreenshot(String name) throws IOException {
    Path target = buildDir.resolve("screenshots").resolve(name);
    Files.createDirectories(target.getParent());
    Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), target, StandardCopyOption.REPLACE_EXISTING);
  }

  // ---------------------------------------------------------------- service helpers

  private JsonObject retrieveJson(JsonObject body, String key) throws Exception {
    HttpResponse<String> response = post(body, key);
    assertThat(response.statusCode()).isEqualTo(200);
    return new JsonObject(response.body());
  }

  private JsonObject retrieveError(JsonObject body, String key) throws Exception {
    HttpResponse<String> response = post(body, key);
    assertThat(response.statusCode()).isBetween(400, 599);
    return new JsonObject(response.body()).getJsonObject("error");
  }

  private HttpResponse<String> post(JsonObject body, String key) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v1/retrieve"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .header("X-API-Key", key)
        .POST(HttpRequest.BodyPublishers.ofString(body.encode()))
        .build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  /** The shipped configuration, but listening on a free loopback port. */
  private static AppConfig onEphemeralLoopbackPort(AppConfig c) {
    AppConfig.Http h = c.http();
    AppConfig.Http http = new AppConfig.Http(0, "127.0.0.1", h.bodyLimitBytes(), h.maxInFlight(),
        h.requestTimeout(), h.shutdownGrace(), h.corsOrigins());
    return new AppConfig(http, c.security(), c.qdrant(), c.embedding(), c.retrieval(), c.store(), c.logging());
  }

  /** The build folder (target/ or -Dbuild.dir): the parent of the test classes' folder. */
  private static Path buildDir() throws URISyntaxException {
    return Path.of(SearchPageTest.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
  }
}
