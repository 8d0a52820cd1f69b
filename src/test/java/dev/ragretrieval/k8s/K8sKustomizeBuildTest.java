package dev.ragretrieval.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ragretrieval.config.ConfigLoader;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapEnvSource;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressServiceBackend;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What {@code kubectl apply -k k8s/} really sends: the kustomization rendered by kustomize (name
 * hashes, generated ConfigMaps, common labels, image override applied), then checked for references
 * that agree with each other and with the service. K8sManifestsTest checks the files one by one.
 */
@DisplayName("kustomize build k8s/: the rendered resources reference each other correctly")
class K8sKustomizeBuildTest {

  private static final Path K8S = Path.of("k8s");
  // kustomize appends "-" and a 10-character content hash to every generated name
  private static final String HASHED = "-[a-z0-9]{10}";

  private static final List<HasMetadata> RENDERED = new ArrayList<>();
  private static Map<String, Object> kustomization;
  private static Deployment deployment;
  private static Container container;
  private static Map<String, String> podLabels;

  // per test, not @BeforeAll: a skip then shows on every test in the report, not as "0 tests run"
  @BeforeEach
  void renderOnce() throws Exception {
    List<String> command = Kustomize.assumeInstalled();
    if (deployment == null) {
      render(command);
    }
  }

  @SuppressWarnings("unchecked")
  private static void render(List<String> command) throws Exception {
    String yaml = Kustomize.render(command, K8S);
    Object parsed = new KubernetesSerialization().unmarshal(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
    // fabric8 returns a List for a multi-document stream, a single object otherwise
    if (parsed instanceof List<?> list) {
      list.forEach(item -> RENDERED.add((HasMetadata) item));
    } else if (parsed instanceof KubernetesList list) {
      RENDERED.addAll(list.getItems());
    } else {
      RENDERED.add((HasMetadata) parsed);
    }
    kustomization = new ObjectMapper(new YAMLFactory()).readValue(K8S.resolve("kustomization.yaml").toFile(), Map.class);
    deployment = only(Deployment.class);
    container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
  }

  @Test
  @DisplayName("renders the seven resources plus two generated ConfigMaps, and no Secret (created by hand)")
  void renderedSet() {
    assertThat(RENDERED).extracting(r -> r.getClass().getSimpleName()).containsExactlyInAnyOrder(
        "ConfigMap", "ConfigMap", "Deployment", "Service", "Ingress", "HorizontalPodAutoscaler",
        "PodDisruptionBudget", "NetworkPolicy", "CronJob");
    // the common labels of kustomization.yaml reached every resource
    assertThat(RENDERED).allSatisfy(r -> assertThat(r.getMetadata().getLabels())
        .as("%s labels", r.getKind()).containsEntry("app.kubernetes.io/name", "rag-retrieval")
        .containsEntry("app.kubernetes.io/part-of", "rag-retrieval"));
  }

  @Test
  @DisplayName("the generated config ConfigMap holds exactly conf/config.yaml and the Deployment mounts it by its hashed name at RAG_CONFIG")
  void configMapIsTheServiceConfig() throws Exception {
    ConfigMap config = configMap("rag-retrieval-config");
    assertThat(config.getData()).containsOnlyKeys("config.yaml");
    assertThat(config.getData().get("config.yaml")).isEqualTo(Files.readString(Path.of("conf/config.yaml")));

    Volume volume = podSpec().getVolumes().stream()
        .filter(v -> v.getConfigMap() != null && v.getConfigMap().getName().startsWith("rag-retrieval-config"))
        .findFirst().orElseThrow(() -> new AssertionError("no volume from the config ConfigMap"));
    assertThat(volume.getConfigMap().getName()).isEqualTo(config.getMetadata().getName());
    VolumeMount mount = container.getVolumeMounts().stream().filter(m -> m.getName().equals(volume.getName()))
        .findFirst().orElseThrow(() -> new AssertionError("volume " + volume.getName() + " is not mounted"));
    assertThat(mount.getReadOnly()).isTrue();
    assertThat(env("RAG_CONFIG")).isEqualTo(mount.getMountPath() + "/config.yaml");
  }

  @Test
  @DisplayName("the generated env ConfigMap is referenced by its hashed name and sets only variables the service reads")
  void envConfigMap() {
    ConfigMap env = configMap("rag-retrieval-env");
    List<String> referenced = container.getEnvFrom().stream().map(EnvFromSource::getConfigMapRef)
        .filter(Objects::nonNull).map(ConfigMapEnvSource::getName).toList();
    assertThat(referenced).containsExactly(env.getMetadata().getName());
    assertThat(ConfigLoader.environmentVariables()).containsAll(env.getData().keySet());
    // the data dir it names is one of the pod's writable emptyDirs
    String dataDir = env.getData().get("RAG_DATA_DIR");
    VolumeMount data = container.getVolumeMounts().stream().filter(m -> m.getMountPath().equals(dataDir)).findFirst()
        .orElseThrow(() -> new AssertionError("nothing mounted at RAG_DATA_DIR " + dataDir));
    assertThat(volume(data.getName()).getEmptyDir()).isNotNull();
  }

  @Test
  @DisplayName("every ConfigMap the pod uses is in the rendered set (no unhashed, dangling name)")
  void noDanglingConfigMaps() {
    Stream<String> fromVolumes = podSpec().getVolumes().stream().map(Volume::getConfigMap).filter(Objects::nonNull)
        .map(ref -> ref.getName());
    Stream<String> fromEnv = container.getEnvFrom().stream().map(EnvFromSource::getConfigMapRef).filter(Objects::nonNull)
        .map(ConfigMapEnvSource::getName);
    List<String> rendered = RENDERED.stream().filter(ConfigMap.class::isInstance).map(r -> r.getMetadata().getName()).toList();
    assertThat(Stream.concat(fromVolumes, fromEnv).toList()).isNotEmpty().allSatisfy(name -> assertThat(rendered).contains(name));
  }

  @Test
  @DisplayName("the Service selects the Deployment's pods and targets a named container port")
  void serviceSelectsPods() {
    Service service = only(Service.class);
    assertThat(service.getSpec().getSelector()).isNotEmpty();
    assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
    assertThat(podLabels).containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());
    for (ServicePort port : service.getSpec().getPorts()) {
      String target = port.getTargetPort().getStrVal();
      assertThat(container.getPorts()).as("container port named %s", target)
          .anySatisfy(p -> assertThat(p.getName()).isEqualTo(target));
    }
  }

  @Test
  @DisplayName("the Ingress backend names the Service and one of its ports")
  void ingressBackend() {
    Service service = only(Service.class);
    List<IngressServiceBackend> backends = new ArrayList<>();
    only(Ingress.class).getSpec().getRules().forEach(rule -> rule.getHttp().getPaths()
        .forEach(path -> backends.add(path.getBackend().getService())));
    assertThat(backends).isNotEmpty().allSatisfy(backend -> {
      assertThat(backend.getName()).isEqualTo(service.getMetadata().getName());
      assertThat(service.getSpec().getPorts()).anySatisfy(port -> {
        if (backend.getPort().getName() != null) {
          assertThat(port.getName()).isEqualTo(backend.getPort().getName());
        } else {
          assertThat(port.getPort()).isEqualTo(backend.getPort().getNumber());
        }
      });
    });
  }

  @Test
  @DisplayName("the HPA scales this Deployment; the PDB and NetworkPolicy select its pods")
  void selectorsAndTargets() {
    CrossVersionObjectReference target = only(HorizontalPodAutoscaler.class).getSpec().getScaleTargetRef();
    assertThat(target.getApiVersion()).isEqualTo(deployment.getApiVersion());
    assertThat(target.getKind()).isEqualTo(deployment.getKind());
    assertThat(target.getName()).isEqualTo(deployment.getMetadata().getName());

    Map<String, String> pdb = only(PodDisruptionBudget.class).getSpec().getSelector().getMatchLabels();
    Map<String, String> policy = only(NetworkPolicy.class).getSpec().getPodSelector().getMatchLabels();
    assertThat(pdb).isNotEmpty();
    assertThat(policy).isNotEmpty();
    assertThat(podLabels).containsAllEntriesOf(pdb).containsAllEntriesOf(policy);
  }

  @Test
  @DisplayName("the ingest CronJob never runs twice at once and uses the service's image, ConfigMaps (hashed names) and Secret")
  void ingestCronJob() {
    CronJob cron = only(CronJob.class);
    assertThat(cron.getSpec().getConcurrencyPolicy()).isEqualTo("Forbid");
    PodSpec pod = cron.getSpec().getJobTemplate().getSpec().getTemplate().getSpec();
    assertThat(pod.getRestartPolicy()).isEqualTo("Never");
    Container ingest = pod.getContainers().get(0);
    assertThat(ingest.getImage()).isEqualTo(container.getImage());
    assertThat(ingest.getArgs()).first().isEqualTo("ingest");
    assertThat(ingest.getArgs().get(1)).matches("https?://.*sitemap.*");
    assertThat(ingest.getEnvFrom()).extracting(e -> e.getConfigMapRef() == null ? null : e.getConfigMapRef().getName())
        .contains(configMap("rag-retrieval-env").getMetadata().getName());
    assertThat(ingest.getEnvFrom()).extracting(e -> e.getSecretRef() == null ? null : e.getSecretRef().getName())
        .containsAll(container.getEnvFrom().stream().filter(e -> e.getSecretRef() != null)
            .map(e -> e.getSecretRef().getName()).toList());
    String configVolume = pod.getVolumes().stream().filter(v -> v.getConfigMap() != null)
        .map(v -> v.getConfigMap().getName()).findFirst().orElseThrow();
    assertThat(configVolume).isEqualTo(configMap("rag-retrieval-config").getMetadata().getName());
    assertThat(ingest.getEnv()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("RAG_CONFIG"));
    assertThat(ingest.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
  }

  @Test
  @DisplayName("the image is the one the images: override names")
  @SuppressWarnings("unchecked")
  void imageOverride() {
    Map<String, Object> image = ((List<Map<String, Object>>) kustomization.get("images")).get(0);
    assertThat(container.getImage()).isEqualTo(image.get("newName") + ":" + image.get("newTag"));
  }

  // --- helpers ---

  private static <T extends HasMetadata> T only(Class<T> type) {
    List<T> found = RENDERED.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as(type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  /** The ConfigMap generated as {@code base}, which must carry kustomize's hash suffix. */
  private static ConfigMap configMap(String base) {
    List<ConfigMap> found = RENDERED.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast)
        .filter(c -> c.getMetadata().getName().startsWith(base + "-")).toList();
    assertThat(found).as("ConfigMap %s", base).hasSize(1);
    assertThat(found.get(0).getMetadata().getName()).matches(base + HASHED);
    return found.get(0);
  }

  private static PodSpec podSpec() {
    return deployment.getSpec().getTemplate().getSpec();
  }

  private static Volume volume(String name) {
    return podSpec().getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name));
  }

  private static String env(String name) {
    return container.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst()
        .orElseThrow(() -> new AssertionError("no env " + name));
  }
}
