package dev.ragretrieval.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ragretrieval.config.AppConfig;
import dev.ragretrieval.config.ConfigLoader;
import io.fabric8.kubernetes.api.model.ConfigMapEnvSource;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The manifests under k8s/, loaded into the Kubernetes model classes and checked against the service. */
class K8sManifestsTest {

  private static final Path K8S = Path.of("k8s");
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static Map<String, Object> kustomization;
  private static final Map<String, HasMetadata> RESOURCES = new LinkedHashMap<>();
  private static Deployment deployment;
  private static Container container;
  private static AppConfig serviceDefaults;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void load() throws IOException {
    kustomization = new ObjectMapper(new YAMLFactory()).readValue(K8S.resolve("kustomization.yaml").toFile(), Map.class);
    for (String file : (List<String>) kustomization.get("resources")) {
      assertThat(K8S.resolve(file)).as("resource %s", file).isRegularFile();
      RESOURCES.put(file, loadResource(file));
    }
    deployment = only(Deployment.class);
    container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    serviceDefaults = ConfigLoader.fromJson(yaml(Path.of("conf/config.yaml")), Map.of());
  }

  @Test
  @DisplayName("every kustomization resource exists and loads into a real Kubernetes model class")
  void resourcesLoad() {
    assertThat(RESOURCES.values()).extracting(r -> r.getClass().getSimpleName())
        .containsExactlyInAnyOrder("Deployment", "Service", "Ingress", "HorizontalPodAutoscaler",
            "PodDisruptionBudget", "NetworkPolicy", "CronJob");
    assertThat(RESOURCES.values()).allSatisfy(r -> assertThat(r.getMetadata().getName())
        .isEqualTo(r instanceof CronJob ? "rag-retrieval-ingest" : "rag-retrieval"));
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
  }

  @Test
  @DisplayName("the container port is the service's default RAG_HTTP_PORT and the Service sends port 80 to it")
  void ports() {
    ContainerPort http = container.getPorts().get(0);
    assertThat(http.getContainerPort()).isEqualTo(serviceDefaults.http().port()).isEqualTo(8080);
    assertThat(envValue("RAG_HTTP_PORT")).isIn(null, "8080");

    ServicePort port = only(Service.class).getSpec().getPorts().get(0);
    assertThat(only(Service.class).getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(port.getPort()).isEqualTo(80);
    assertThat(resolve(port.getTargetPort())).isEqualTo(8080);
    assertThat(only(Service.class).getSpec().getSelector())
        .isEqualTo(deployment.getSpec().getTemplate().getMetadata().getLabels());
  }

  @Test
  @DisplayName("readiness asks /health/ready, liveness and start-up ask /health/live, on the HTTP port")
  void probes() {
    assertProbe(container.getReadinessProbe(), "/health/ready");
    assertProbe(container.getLivenessProbe(), "/health/live");
    assertProbe(container.getStartupProbe(), "/health/live");
  }

  @Test
  @DisplayName("every environment variable the manifests set is one the service reads")
  void environmentVariablesAreReal() throws IOException {
    Set<String> known = ConfigLoader.environmentVariables();
    List<String> names = new ArrayList<>();
    container.getEnv().stream().map(EnvVar::getName).forEach(names::add);
    names.addAll(generatorLiterals("rag-retrieval-env").keySet());
    Secret secret = (Secret) loadResource("secret.example.yaml");
    names.addAll(secret.getStringData().keySet());

    assertThat(names).isNotEmpty().allSatisfy(name -> assertThat(known).as("variables the service reads").contains(name));
    assertThat(secret.getStringData().keySet()).containsExactlyInAnyOrder("COHERE_API_KEY", "QDRANT_API_KEY", "RAG_API_KEYS");

    // envFrom names a generated ConfigMap and the example Secret, which stays out of the kustomization
    List<String> configMaps = container.getEnvFrom().stream().map(EnvFromSource::getConfigMapRef)
        .filter(java.util.Objects::nonNull).map(ConfigMapEnvSource::getName).toList();
    assertThat(configMaps).containsExactly("rag-retrieval-env");
    assertThat(container.getEnvFrom().stream().map(EnvFromSource::getSecretRef).filter(java.util.Objects::nonNull)
        .map(ref -> ref.getName())).containsExactly(secret.getMetadata().getName());
    assertThat(RESOURCES).doesNotContainKey("secret.example.yaml");
  }

  @Test
  @DisplayName("the generated ConfigMap is conf/config.yaml, mounted where RAG_CONFIG points")
  void configFile() throws IOException {
    assertThat(Files.readString(K8S.resolve("config.yaml"))).isEqualTo(Files.readString(Path.of("conf/config.yaml")));
    assertThat(generator("rag-retrieval-config").get("files")).isEqualTo(List.of("config.yaml"));

    String ragConfig = envValue("RAG_CONFIG");
    Volume config = volume("config");
    assertThat(config.getConfigMap().getName()).isEqualTo("rag-retrieval-config");
    VolumeMount mount = mount("config");
    assertThat(mount.getReadOnly()).isTrue();
    assertThat(ragConfig).isEqualTo(mount.getMountPath() + "/config.yaml");
  }

  @Test
  @DisplayName("the pod outlives the shutdown grace plus the preStop pause before it is killed")
  void gracefulShutdown() {
    long graceSeconds = serviceDefaults.http().shutdownGrace().toSeconds();
    int preStop = container.getLifecycle().getPreStop().getSleep().getSeconds().intValue();
    assertThat(preStop).isPositive();
    assertThat(deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
        .isGreaterThan(graceSeconds + preStop);
  }

  @Test
  @DisplayName("a read-only root filesystem, non-root, no privilege escalation, no capabilities; /tmp, the data dir and the DJL cache are emptyDirs")
  void hardenedWithWritableDirs() throws IOException {
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");

    Map<String, String> dockerEnv = dockerfileEnv();
    String dataDir = generatorLiterals("rag-retrieval-env").getOrDefault("RAG_DATA_DIR", dockerEnv.get("RAG_DATA_DIR"));
    for (String path : List.of("/tmp", dataDir, dockerEnv.get("DJL_CACHE_DIR"))) {
      VolumeMount mount = container.getVolumeMounts().stream().filter(m -> m.getMountPath().equals(path)).findFirst()
          .orElseThrow(() -> new AssertionError("no volume mounted at " + path));
      assertThat(volume(mount.getName()).getEmptyDir()).as("emptyDir at %s", path).isNotNull();
    }
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(10001L);
    assertThat(Files.readString(Path.of("Dockerfile"))).contains("USER 10001:10001", "EXPOSE 8080");
  }

  @Test
  @DisplayName("the Ingress keeps SSE unbuffered and open and routes to the Service's port")
  void ingressForStreams() {
    Ingress ingress = only(Ingress.class);
    Map<String, String> annotations = ingress.getMetadata().getAnnotations();
    assertThat(annotations).containsEntry("nginx.ingress.kubernetes.io/proxy-buffering", "off");
    assertThat(Integer.parseInt(annotations.get("nginx.ingress.kubernetes.io/proxy-read-timeout"))).isGreaterThanOrEqualTo(300);
    assertThat(Integer.parseInt(annotations.get("nginx.ingress.kubernetes.io/proxy-send-timeout"))).isGreaterThanOrEqualTo(300);
    assertThat(ingress.getSpec().getIngressClassName()).isEqualTo("nginx");
    var backend = ingress.getSpec().getRules().get(0).getHttp().getPaths().get(0).getBackend().getService();
    assertThat(backend.getName()).isEqualTo(only(Service.class).getMetadata().getName());
    assertThat(backend.getPort().getName()).isEqualTo(only(Service.class).getSpec().getPorts().get(0).getName());
  }

  @Test
  @DisplayName("the autoscaler, disruption budget and network policy all select this Deployment's pods")
  void selectorsAgree() {
    Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
    HorizontalPodAutoscaler hpa = only(HorizontalPodAutoscaler.class);
    assertThat(hpa.getSpec().getScaleTargetRef().getKind()).isEqualTo("Deployment");
    assertThat(hpa.getSpec().getScaleTargetRef().getName()).isEqualTo(deployment.getMetadata().getName());
    assertThat(hpa.getSpec().getMinReplicas()).isGreaterThanOrEqualTo(2);
    assertThat(hpa.getSpec().getMetrics().get(0).getResource().getName()).isEqualTo("cpu");
    assertThat(podLabels).containsAllEntriesOf(only(PodDisruptionBudget.class).getSpec().getSelector().getMatchLabels());
    assertThat(podLabels).containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());

    NetworkPolicy policy = only(NetworkPolicy.class);
    assertThat(podLabels).containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
    Set<Integer> egressPorts = new HashSet<>();
    policy.getSpec().getEgress().forEach(rule -> rule.getPorts().stream().map(NetworkPolicyPort::getPort)
        .map(p -> p.getIntVal()).forEach(egressPorts::add));
    assertThat(egressPorts).contains(53, serviceDefaults.qdrant().grpcPort(), 443);
    assertThat(policy.getSpec().getIngress().get(0).getPorts().get(0).getPort().getIntVal()).isEqualTo(8080);
  }

  @Test
  @DisplayName("Prometheus scrape annotations point at /metrics on the HTTP port")
  void prometheusAnnotations() {
    Map<String, String> annotations = deployment.getSpec().getTemplate().getMetadata().getAnnotations();
    assertThat(annotations).containsEntry("prometheus.io/scrape", "true")
        .containsEntry("prometheus.io/path", "/metrics")
        .containsEntry("prometheus.io/port", String.valueOf(container.getPorts().get(0).getContainerPort()));
  }

  // --- helpers ---

  private static HasMetadata loadResource(String file) throws IOException {
    try (InputStream in = Files.newInputStream(K8S.resolve(file))) {
      Object loaded = SERIALIZATION.unmarshal(in);
      assertThat(loaded).as(file).isInstanceOf(HasMetadata.class);
      return (HasMetadata) loaded;
    }
  }

  private static <T extends HasMetadata> T only(Class<T> type) {
    List<T> found = RESOURCES.values().stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as(type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  private static void assertProbe(Probe probe, String path) {
    assertThat(probe).isNotNull();
    assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
    assertThat(resolve(probe.getHttpGet().getPort())).isEqualTo(8080);
  }

  /** A port number, or a named container port resolved to its number. */
  private static int resolve(IntOrString port) {
    if (port.getIntVal() != null) {
      return port.getIntVal();
    }
    return container.getPorts().stream().filter(p -> port.getStrVal().equals(p.getName()))
        .map(ContainerPort::getContainerPort).findFirst()
        .orElseThrow(() -> new AssertionError("no container port named " + port.getStrVal()));
  }

  private static String envValue(String name) {
    return container.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst().orElse(null);
  }

  private static Volume volume(String name) {
    return deployment.getSpec().getTemplate().getSpec().getVolumes().stream().filter(v -> v.getName().equals(name))
        .findFirst().orElseThrow(() -> new AssertionError("no volume " + name));
  }

  private static VolumeMount mount(String name) {
    return container.getVolumeMounts().stream().filter(m -> m.getName().equals(name))
        .findFirst().orElseThrow(() -> new AssertionError("no mount of " + name));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> generator(String name) {
    return ((List<Map<String, Object>>) kustomization.get("configMapGenerator")).stream()
        .filter(g -> name.equals(g.get("name"))).findFirst()
        .orElseThrow(() -> new AssertionError("no configMapGenerator " + name));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> generatorLiterals(String name) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String literal : (List<String>) generator(name).getOrDefault("literals", List.of())) {
      int eq = literal.indexOf('=');
      values.put(literal.substring(0, eq), literal.substring(eq + 1));
    }
    return values;
  }

  /** The ENV settings of the Dockerfile's last stage. */
  private static Map<String, String> dockerfileEnv() throws IOException {
    String text = Files.readString(Path.of("Dockerfile")).replace("\\\n", " ");
    String runtime = text.substring(text.lastIndexOf("\nFROM "));
    Map<String, String> env = new LinkedHashMap<>();
    Matcher envLine = Pattern.compile("(?m)^ENV (.+)$").matcher(runtime);
    while (envLine.find()) {
      Matcher pair = Pattern.compile("([A-Z_]+)=(\\S+)").matcher(envLine.group(1));
      while (pair.find()) {
        env.put(pair.group(1), pair.group(2));
      }
    }
    return env;
  }

  @SuppressWarnings("unchecked")
  private static JsonObject yaml(Path file) throws IOException {
    return new JsonObject(new ObjectMapper(new YAMLFactory()).readValue(file.toFile(), Map.class));
  }
}
