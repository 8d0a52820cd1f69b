package dev.ragretrieval.web;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium driven through Debian's chromedriver. Both paths are given explicitly so
 * Selenium Manager never tries to download a browser or a driver (this network is closed).
 */
final class HeadlessChromium {

  static final File CHROMIUM = new File("/usr/bin/chromium");
  static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");

  private HeadlessChromium() {}

  /**
   * Whether the browser tests can run here. When they cannot and CI says they are required
   * ({@code RAG_BROWSER_TESTS=required}), this fails instead of answering false.
   */
  static boolean installed() {
    boolean installed = CHROMIUM.canExecute() && CHROMEDRIVER.canExecute();
    if (!installed && "required".equalsIgnoreCase(System.getenv("RAG_BROWSER_TESTS"))) {
      fail("RAG_BROWSER_TESTS=required but " + CHROMIUM + " or " + CHROMEDRIVER + " is missing"
          + " (apt-get install -y chromium chromium-driver)");
    }
    return installed;
  }

  /**
   * Skips the calling test, with the reason, when Chromium is missing. Called per test (not in
   * {@code @BeforeAll}, whose skip surefire reports as "Tests run: 0"), so each shows as skipped.
   */
  static void assumeInstalled() {
    assumeTrue(installed(), "skipped: " + CHROMIUM + " or " + CHROMEDRIVER
        + " is missing (apt-get install -y chromium chromium-driver; RAG_BROWSER_TESTS=required makes this a failure)");
  }

  static ChromeDriver start(Path userDataDir, int width, int height) throws IOException {
    // Selenium warns at length that it has no CDP bindings for this Chromium; the tests do not use CDP
    Logger.getLogger("org.openqa.selenium").setLevel(Level.SEVERE);
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.getPath());
    Files.createDirectories(userDataDir);

    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    // without the background-networking flags Chromium keeps dialing out, and this network refuses it
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + userDataDir, "--window-size=" + width + "," + height);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER)
        .usingAnyFreePort()
        .withLogOutput(OutputStream.nullOutputStream())
        .build();
    return new ChromeDriver(service, options);
  }
}
