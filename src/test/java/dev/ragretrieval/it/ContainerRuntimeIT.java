package dev.ragretrieval.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile's runtime stage, emulated without Docker (no daemon or registry here): its
 * instructions are read from the Dockerfile, the container's paths become folders under a fake
 * root, and the ENTRYPOINT + CMD run with the image's ENV. As root with setpriv, the service runs
 * as the image's USER, which can write only to the folders the Dockerfile makes writable: what the
 * read-only root filesystem of k8s/base/deployment.yaml also allows.
 */
@DisplayName("the Dockerfile's runtime stage, run without Docker: as its USER, with its ENV, ENTRYPOINT and HEALTHCHECK")
class ContainerRuntimeIT {

  private static final Path DOCKERFILE = Path.of("Dockerfile");
  // the places any user may write to on a Linux host: a write there by the service's uid is found
  private static final List<Path> WORLD_WRITABLE = List.of(Path.of("/tmp"), Path.of("/var/tmp"), Path.of("/dev/shm"),
      Path.of("/run/lock"));

  private Path root;
  private Process service;

  @AfterEach
  void tearDown() throws IOException {
    if (service != null && service.isAlive()) {
      service.destroyForcibly();
    }
    if (root != null) {
      try (Stream<Path> files = Files.walk(root)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }

  @Test
  @DisplayName("serves the sample book, passes its HEALTHCHECK, writes only to /tmp, /data and the DJL cache, exits 0 on SIGTERM, then fails the HEALTHCHECK")
  void runtimeStage() throws Exception {
    RuntimeStage stage = RuntimeStage.parse(Files.readString(DOCKERFILE));

    // the port the image listens on is the one it declares and the one the Deployment names
    int exposed = stage.exposedPort();
    assertThat(stage.env().get("RAG_HTTP_PORT")).isEqualTo(String.valueOf(exposed));
    assertThat(deploymentPort()).isEqualTo(exposed);
    // exec form: java is PID 1 and gets SIGTERM itself (a shell form would swallow it)
    assertThat(stage.entrypoint().get(0)).isEqualTo("java");
    assertThat(stage.healthcheck().get(0)).isEqualTo("java");

    root = Files.createTempDirectory("container-root");
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
    boolean asImageUser = canSwitchUser();
    Path workdir = buildRootfs(stage, asImageUser);
    Map<String, String> env = new LinkedHashMap<>();
    stage.env().forEach((name, value) -> env.put(name, map(value)));
    int port = freePort();
    env.put("RAG_HTTP_PORT", String.valueOf(port));

    Set<String> workdirBefore = listing(workdir);
    Map<Path, Set<String>> foreignBefore = asImageUser ? ownedOutside(stage.uid()) : Map.of();
    Path log = logFile("service.log");
    List<String> command = new ArrayList<>(stage.entrypoint());
    command.addAll(stage.cmd());
    service = start(command, env, workdir, stage, asImageUser, log);
    if (asImageUser) {
      awaitExec(service.pid());
      assertThat(uidOf(service.pid())).as("the service's uid").isEqualTo(stage.uid());
    }

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    awaitReady(http, port, log);
    HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/retrieve"))
        .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(
            new JsonObject().put("query", "What is the zero moment point?").put("top_k", 3).encode()))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as("retrieve; log: %s", log).isEqualTo(200);
    JsonObject body = new JsonObject(answer.body());
    assertThat(body.getInteger("count")).isEqualTo(3);
    assertThat(body.getJsonArray("results")).hasSize(3);

    // the natives unpack where the Dockerfile's comments say: ONNX Runtime's into java.io.tmpdir, removed
    // as soon as they are loaded (the process maps them from there; nothing of them is left at exit,
    // below), DJL's tokenizer into DJL_CACHE_DIR, nothing into HOME
    String tmp = host("/tmp").toRealPath() + "/";
    assertThat(Files.readAllLines(Path.of("/proc", String.valueOf(service.pid()), "maps")))
        .as("ONNX Runtime loaded from the mapped /tmp, its file removed")
        .anyMatch(line -> line.contains(tmp) && line.endsWith("/libonnxruntime.so (deleted)"));
    assertThat(filesNamed(host(stage.env().get("DJL_CACHE_DIR")), "libtokenizers.so"))
        .as("the tokenizer under DJL_CACHE_DIR").isNotEmpty();
    assertThat(host(stage.env().get("HOME")).resolve(".djl.ai")).doesNotExist();

    assertThat(healthcheck(stage, env, workdir, asImageUser)).as("HEALTHCHECK while serving").isZero();

    service.destroy(); // SIGTERM on Linux
    assertThat(service.waitFor(60, TimeUnit.SECONDS)).as("exited within 60 s of SIGTERM; log: %s", log).isTrue();
    assertThat(service.exitValue()).as("exit status; log: %s", log).isZero();
    assertThat(healthcheck(stage, env, workdir, asImageUser)).as("HEALTHCHECK after exit").isNotZero();

    assertThat(filesNamed(host(stage.env().get("RAG_DATA_DIR")), "segments_")).as("Lucene index in RAG_DATA_DIR")
        .isNotEmpty().allSatisfy(segments -> assertThat(Files.size(segments)).isPositive());
    assertThat(listing(workdir)).as("the WORKDIR is unchanged").isEqualTo(workdirBefore);
    assertThat(listing(host("/tmp"))).as("ONNX Runtime's files left in the mapped /tmp after exit")
        .noneMatch(name -> name.contains("onnxruntime"));
    assertThat(Files.readAllLines(log)).as("log: %s", log).noneMatch(line -> line.contains("\"level\":\"ERROR\""));
    if (asImageUser) {
      assertThat(newEntries(foreignBefore, ownedOutside(stage.uid())))
          .as("files uid %d created outside the container's writable folders", stage.uid()).isEmpty();
    }
  }

  // --- the emulated image ---

  /**
   * Lays out the image's files under {@link #root}: the WORKDIR and mkdir'd folders owned by root,
   * the COPYed files readable by all, the chowned folders (and /tmp) writable by the image's user.
   */
  private Path buildRootfs(RuntimeStage stage, boolean asImageUser) throws IOException {
    for (String dir : stage.createdDirs()) {
      createDirs(host(dir));
    }
    Path workdir = createDirs(host(stage.workdir()));
    for (Copy copy : stage.copies()) {
      Path target = host(copy.destination());
      createDirs(target.getParent());
      Files.copy(copy.source(), target, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
    }
    Path tmp = createDirs(host("/tmp"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
    for (String dir : stage.ownedDirs()) {
      Path owned = createDirs(host(dir));
      if (asImageUser) {
        Files.setAttribute(owned, "unix:uid", stage.uid());
        Files.setAttribute(owned, "unix:gid", stage.gid());
      }
    }
    return workdir;
  }

  private Path createDirs(Path dir) throws IOException {
    Files.createDirectories(dir);
    for (Path p = dir; p.startsWith(root); p = p.getParent()) {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return dir;
  }

  /** A container path on this machine: under the fake root. */
  private Path host(String containerPath) {
    assertThat(containerPath).as("a container path").startsWith("/");
    return root.resolve(containerPath.substring(1));
  }

  /**
   * A value from the Dockerfile as the emulation sees it: {@code java} is this JVM, a container path
   * (alone or after {@code -Dname=}) moves under the fake root and must exist there.
   */
  private String map(String value) {
    if (value.equals("java")) {
      return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
    int eq = value.indexOf('=');
    String prefix = value.startsWith("-") && eq > 0 ? value.substring(0, eq + 1) : "";
    String rest = value.substring(prefix.length());
    if (!rest.startsWith("/")) {
      return value;
    }
    Path mapped = host(rest);
    assertThat(mapped).as("%s exists in the image (created, copied or chowned by the Dockerfile)", rest).exists();
    return prefix + mapped;
  }

  private Process start(List<String> command, Map<String, String> env, Path workdir, RuntimeStage stage,
      boolean asImageUser, Path log) throws IOException {
    List<String> full = new ArrayList<>();
    if (asImageUser) {
      full.addAll(List.of(setpriv().toString(), "--reuid=" + stage.uid(), "--regid=" + stage.gid(), "--clear-groups", "--"));
    }
    command.stream().map(this::map).forEach(full::add);
    ProcessBuilder builder = new ProcessBuilder(full).directory(workdir.toFile())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    // the image's environment, not this machine's settings for the service or the JVM
    builder.environment().keySet().removeIf(name -> name.startsWith("RAG_") || name.startsWith("QDRANT_")
        || name.startsWith("COHERE_") || name.startsWith("OPENAI_") || name.startsWith("DJL_")
        || name.equals("EMBEDDING_PROVIDER") || name.equals("ENGINE_CACHE_DIR")
        || name.equals("JAVA_TOOL_OPTIONS") || name.equals("JDK_JAVA_OPTIONS") || name.equals("_JAVA_OPTIONS"));
    builder.environment().putAll(env);
    return builder.start();
  }

  /** Runs the HEALTHCHECK command as Docker would (same user, env and WORKDIR); its exit status. */
  private int healthcheck(RuntimeStage stage, Map<String, String> env, Path workdir, boolean asImageUser) throws Exception {
    Path log = logFile("healthcheck.log");
    Process check = start(stage.healthcheck(), env, workdir, stage, asImageUser, log);
    if (!check.waitFor(60, TimeUnit.SECONDS)) {
      check.destroyForcibly();
      fail("the HEALTHCHECK did not finish within 60 s; log: " + log);
    }
    return check.exitValue();
  }

  // --- this machine ---

  /** Root with setpriv can run the service as the image's uid; anyone else runs it as themselves. */
  private static boolean canSwitchUser() throws IOException {
    int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    boolean can = uid == 0 && setpriv() != null;
    if (!can) {
      System.out.printf("ContainerRuntimeIT: running as the current user (uid %d): the USER and "
          + "writable-folder checks need root and setpriv%n", uid);
    }
    return can;
  }

  private static Path setpriv() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "setpriv");
      if (!dir.isBlank() && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** Until setpriv has dropped root and exec'd java: read earlier, the uid is still setpriv's own (0). */
  private static void awaitExec(long pid) throws IOException, InterruptedException {
    Path comm = Path.of("/proc", String.valueOf(pid), "comm");
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (Files.readString(comm).trim().equals("setpriv") && System.nanoTime() < until) {
      Thread.sleep(10);
    }
  }

  private static int uidOf(long pid) throws IOException {
    // "Uid:\treal\teffective\tsaved\tfs"
    String line = Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status")).stream()
        .filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow();
    return Integer.parseInt(line.split("\\s+")[2]);
  }

  /** Top-level entries owned by {@code uid} in the world-writable folders, outside the fake root. */
  private Map<Path, Set<String>> ownedOutside(int uid) throws IOException {
    Map<Path, Set<String>> owned = new LinkedHashMap<>();
    for (Path dir : WORLD_WRITABLE) {
      Set<String> names = new TreeSet<>();
      if (Files.isDirectory(dir)) {
        try (Stream<Path> entries = Files.list(dir)) {
          for (Path entry : entries.toList()) {
            try {
              if (!entry.equals(root) && (Integer) Files.getAttribute(entry, "unix:uid", LinkOption.NOFOLLOW_LINKS) == uid) {
                names.add(entry.getFileName().toString());
              }
            } catch (IOException gone) {
              // another process removed it meanwhile
            }
          }
        }
      }
      owned.put(dir, names);
    }
    return owned;
  }

  private static List<Path> newEntries(Map<Path, Set<String>> before, Map<Path, Set<String>> after) {
    List<Path> created = new ArrayList<>();
    after.forEach((dir, names) -> names.stream().filter(name -> !before.get(dir).contains(name))
        // the JVM's perf data goes to /tmp whatever java.io.tmpdir says; /tmp is writable in the container too
        .filter(name -> !(dir.equals(Path.of("/tmp")) && name.startsWith("hsperfdata_")))
        .map(dir::resolve).forEach(created::add));
    return created;
  }

  private static Set<String> listing(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.map(p -> dir.relativize(p) + (Files.isDirectory(p) ? "/" : " " + p.toFile().length()))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static List<Path> filesNamed(Path dir, String prefix) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
    }
  }

  private static int deploymentPort() throws IOException {
    try (InputStream in = Files.newInputStream(Path.of("k8s", "base", "deployment.yaml"))) {
      Deployment deployment = new KubernetesSerialization().unmarshal(in, Deployment.class);
      return deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts().get(0).getContainerPort();
    }
  }

  /** Logs next to the jar, so CI keeps them with the build output. */
  private static Path logFile(String name) throws IOException {
    Path dir = jar().toAbsolutePath().getParent().resolve("container-it");
    Files.createDirectories(dir);
    Path log = dir.resolve(name);
    Files.deleteIfExists(log);
    return log;
  }

  private static Path jar() {
    Path jar = Path.of(System.getProperty("rag.jar", "target/rag-retrieval.jar"));
    assertThat(jar).as("the packaged jar").isRegularFile();
    return jar;
  }

  private void awaitReady(HttpClient http, int port, Path log) throws InterruptedException {
    HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready"))
        .timeout(Duration.ofSeconds(3)).build();
    long giveUp = System.currentTimeMillis() + 90_000;
    while (System.currentTimeMillis() < giveUp) {
      assertThat(service.isAlive()).as("the service is still running; log: %s", log).isTrue();
      try {
        if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(250);
    }
    throw new AssertionError("not ready within 90 s; log: " + log);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  // --- the Dockerfile ---

  /** A file the runtime stage copies in: from the build stage's output or the build context. */
  record Copy(Path source, String destination) {}

  /** What the last stage of the Dockerfile declares; only the instructions this test emulates. */
  record RuntimeStage(Map<String, String> env, int exposedPort, int uid, int gid, String workdir,
      List<String> entrypoint, List<String> cmd, List<String> healthcheck, List<Copy> copies,
      Set<String> createdDirs, Set<String> ownedDirs) {

    private static final Pattern ENV_PAIR = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"(?:[^\"\\\\]|\\\\.)*\"|\\S+)");
    private static final Pattern HEALTHCHECK = Pattern.compile("^(?:--\\S+\\s+)*CMD\\s+(\\[.*])$");

    static RuntimeStage parse(String dockerfile) {
      List<String[]> all = instructions(dockerfile);
      int last = 0;
      Map<String, String> stageWorkdirs = new LinkedHashMap<>();
      String stageName = null;
      for (int i = 0; i < all.size(); i++) {
        String[] instruction = all.get(i);
        if (instruction[0].equals("FROM")) {
          last = i;
          Matcher as = Pattern.compile("(?i)\\sAS\\s+(\\S+)$").matcher(instruction[1]);
          stageName = as.find() ? as.group(1) : null;
        } else if (instruction[0].equals("WORKDIR") && stageName != null) {
          stageWorkdirs.put(stageName, instruction[1]);
        }
      }

      Map<String, String> env = new LinkedHashMap<>();
      Integer exposed = null;
      String user = null;
      String workdir = "/";
      List<String> entrypoint = null;
      List<String> cmd = List.of();
      List<String> healthcheck = null;
      List<Copy> copies = new ArrayList<>();
      Set<String> created = new LinkedHashSet<>();
      Map<String, Set<String>> chowned = new LinkedHashMap<>();
      for (String[] instruction : all.subList(last + 1, all.size())) {
        String args = instruction[1];
        switch (instruction[0]) {
          case "ENV" -> {
            Matcher pair = ENV_PAIR.matcher(args);
            while (pair.find()) {
              String value = pair.group(2);
              env.put(pair.group(1), value.startsWith("\"") ? value.substring(1, value.length() - 1) : value);
            }
          }
          case "EXPOSE" -> exposed = Integer.parseInt(args.split("\\s+")[0].replace("/tcp", ""));
          case "USER" -> user = args;
          case "WORKDIR" -> workdir = args;
          case "ENTRYPOINT" -> entrypoint = execForm("ENTRYPOINT", args);
          case "CMD" -> cmd = execForm("CMD", args);
          case "HEALTHCHECK" -> {
            Matcher m = HEALTHCHECK.matcher(args);
            assertThat(m.matches()).as("HEALTHCHECK [options] CMD [\"exec\", \"form\"]: %s", args).isTrue();
            healthcheck = execForm("HEALTHCHECK", m.group(1));
          }
          case "COPY" -> copies.add(copy(args, stageWorkdirs));
          case "RUN" -> shellCommands(args, created, chowned);
          default -> { }
        }
      }
      assertThat(user).as("USER").matches("\\d+:\\d+");
      assertThat(exposed).as("EXPOSE").isNotNull();
      assertThat(entrypoint).as("ENTRYPOINT").isNotEmpty();
      assertThat(healthcheck).as("HEALTHCHECK").isNotEmpty();
      Set<String> owned = chowned.getOrDefault(user, Set.of());
      assertThat(owned).as("folders chowned to USER %s", user).isNotEmpty();
      String[] ids = user.split(":");
      return new RuntimeStage(env, exposed, Integer.parseInt(ids[0]), Integer.parseInt(ids[1]), workdir,
          entrypoint, cmd, healthcheck, copies, created, owned);
    }

    /** Instructions as [KEYWORD, arguments], continuation lines joined and comments dropped. */
    private static List<String[]> instructions(String dockerfile) {
      List<String[]> result = new ArrayList<>();
      StringBuilder current = new StringBuilder();
      for (String line : dockerfile.split("\n")) {
        if (line.trim().startsWith("#") || (current.length() == 0 && line.isBlank())) {
          continue;
        }
        String trimmed = line.strip();
        if (trimmed.endsWith("\\")) {
          current.append(trimmed, 0, trimmed.length() - 1).append(' ');
          continue;
        }
        current.append(trimmed);
        String text = current.toString().strip();
        current.setLength(0);
        int space = text.indexOf(' ');
        result.add(new String[] {text.substring(0, space).toUpperCase(), text.substring(space + 1).strip()});
      }
      return result;
    }

    private static List<String> execForm(String instruction, String args) {
      assertThat(args).as("%s in exec (JSON) form", instruction).startsWith("[");
      return new JsonArray(args).stream().map(String.class::cast).toList();
    }

    /** {@code COPY [--from=stage] src dest}: a build-stage output comes from this build's jar folder. */
    private static Copy copy(String args, Map<String, String> stageWorkdirs) {
      List<String> words = new ArrayList<>(List.of(args.split("\\s+")));
      String from = null;
      while (words.get(0).startsWith("--")) {
        String option = words.remove(0);
        if (option.startsWith("--from=")) {
          from = option.substring("--from=".length());
        }
      }
      assertThat(words).as("COPY of one file: %s", args).hasSize(2);
      String source = words.get(0);
      Path project = Path.of("").toAbsolutePath();
      Path local;
      if (from != null) {
        String buildWorkdir = stageWorkdirs.get(from);
        assertThat(source).as("COPY --from=%s source inside its WORKDIR %s", from, buildWorkdir).startsWith(buildWorkdir + "/");
        String relative = source.substring(buildWorkdir.length() + 1);
        // the image builds into target/; this build may use another folder (-Dbuild.dir), where the jar is
        local = relative.startsWith("target/") ? jar().toAbsolutePath().getParent().resolve(relative.substring("target/".length()))
            : project.resolve(relative);
      } else {
        local = project.resolve(source);
      }
      assertThat(local).as("COPY source %s", source).isRegularFile();
      return new Copy(local, words.get(1));
    }

    /** The folders a RUN creates ({@code mkdir}) and hands to an owner ({@code chown}). */
    private static void shellCommands(String run, Set<String> created, Map<String, Set<String>> chowned) {
      for (String command : run.split("&&|;")) {
        List<String> words = new ArrayList<>(List.of(command.strip().split("\\s+")));
        String program = words.remove(0);
        words.removeIf(word -> word.startsWith("-"));
        if (program.equals("mkdir")) {
          created.addAll(words);
        } else if (program.equals("chown") && !words.isEmpty()) {
          chowned.computeIfAbsent(words.remove(0), owner -> new LinkedHashSet<>()).addAll(words);
        }
      }
    }
  }
}
