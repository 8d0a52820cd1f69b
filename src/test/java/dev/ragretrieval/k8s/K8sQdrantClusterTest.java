package dev.ragretrieval.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ragretrieval.config.ConfigLoader;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code kubectl apply -k k8s-cluster/}, rendered: the service with the three-node Qdrant component
 * (k8s/qdrant-cluster), whose pieces must point at each other and at the service's settings.
 */
@DisplayName("kustomize build k8s-cluster/: the service plus a three-node Qdrant cluster")
class K8sQdrantClusterTest {

  private static final List<HasMetadata> RENDERED = new ArrayList<>();

  @BeforeEach
  void renderOnce() throws Exception {
    List<String> command = Kustomize.assumeInstalled();
    if (RENDERED.isEmpty()) {
      String yaml = Kustomize.render(command, Path.of("k8s-cluster"));
      Object parsed = new KubernetesSerialization().unmarshal(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
      if (parsed instanceof List<?> list) {
        list.forEach(item -> RENDERED.add((HasMetadata) item));
      } else if (parsed instanceof KubernetesList list) {
        RENDERED.addAll(list.getItems());
      }
    }
  }

  @Test
  @DisplayName("three Qdrant nodes in cluster mode, on persistent volumes, one per Kubernetes node")
  void statefulSet() {
    StatefulSet qdrant = only(StatefulSet.class);
    assertThat(qdrant.getSpec().getReplicas()).isEqualTo(3);
    Container node = qdrant.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(node.getEnv()).extracting(EnvVar::getName, EnvVar::getValue)
        .contains(org.assertj.core.groups.Tuple.tuple("QDRANT__CLUSTER__ENABLED", "true"));
    assertThat(node.getPorts()).extracting(p -> p.getContainerPort()).contains(6333, 6334, 6335);
    assertThat(qdrant.getSpec().getVolumeClaimTemplates()).hasSize(1);
    String claim = qdrant.getSpec().getVolumeClaimTemplates().get(0).getMetadata().getName();
    assertThat(node.getVolumeMounts()).anySatisfy(m -> {
      assertThat(m.getName()).isEqualTo(claim);
      assertThat(m.getMountPath()).isEqualTo("/qdrant/storage");
    });
    var antiAffinity = qdrant.getSpec().getTemplate().getSpec().getAffinity().getPodAntiAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution();
    assertThat(antiAffinity).singleElement().satisfies(term -> {
      assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
      assertThat(qdrant.getSpec().getTemplate().getMetadata().getLabels())
          .containsAllEntriesOf(term.getLabelSelector().getMatchLabels());
    });
    // the bootstrap address names the governing Service, which publishes pods before they are ready
    Service peers = service(qdrant.getSpec().getServiceName());
    assertThat(peers.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(peers.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(String.join("\n", node.getArgs())).contains("qdrant-0." + peers.getMetadata().getName() + ":6335");
  }

  @Test
  @DisplayName("QDRANT_HOST names a headless Service over the Qdrant pods' gRPC port; new collections get 3 shards x 2 replicas")
  void serviceFindsTheCluster() {
    ConfigMap env = RENDERED.stream().filter(r -> r instanceof ConfigMap c && c.getMetadata().getName().startsWith("rag-retrieval-env"))
        .map(ConfigMap.class::cast).findFirst().orElseThrow();
    Map<String, String> data = env.getData();
    assertThat(data).containsEntry("QDRANT_SHARD_NUMBER", "3").containsEntry("QDRANT_REPLICATION_FACTOR", "2");
    assertThat(ConfigLoader.environmentVariables()).containsAll(data.keySet());

    Service headless = service(data.get("QDRANT_HOST"));
    assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(headless.getSpec().getPublishNotReadyAddresses()).isNotEqualTo(Boolean.TRUE);
    assertThat(headless.getSpec().getPorts()).anySatisfy(p -> assertThat(p.getPort()).isEqualTo(Integer.parseInt(data.get("QDRANT_GRPC_PORT"))));
    StatefulSet qdrant = only(StatefulSet.class);
    assertThat(qdrant.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(headless.getSpec().getSelector());
    // the service's NetworkPolicy lets it reach these pods (egress to app.kubernetes.io/name=qdrant)
    assertThat(qdrant.getSpec().getTemplate().getMetadata().getLabels()).containsEntry("app.kubernetes.io/name", "qdrant");
    // and the service's pods still find their own, merged env ConfigMap
    Deployment service = only(Deployment.class);
    assertThat(service.getSpec().getTemplate().getSpec().getContainers().get(0).getEnvFrom())
        .anySatisfy(from -> assertThat(from.getConfigMapRef().getName()).isEqualTo(env.getMetadata().getName()));
  }

  @Test
  @DisplayName("a PodDisruptionBudget lets one Qdrant node go at a time")
  void disruptionBudget() {
    PodDisruptionBudget budget = RENDERED.stream()
        .filter(r -> r instanceof PodDisruptionBudget p && p.getMetadata().getName().equals("qdrant"))
        .map(PodDisruptionBudget.class::cast).findFirst().orElseThrow();
    assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(only(StatefulSet.class).getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
  }

  private static Service service(String name) {
    return RENDERED.stream().filter(r -> r instanceof Service s && s.getMetadata().getName().equals(name))
        .map(Service.class::cast).findFirst().orElseThrow(() -> new AssertionError("no Service " + name));
  }

  private static <T> T only(Class<T> type) {
    List<T> found = RENDERED.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as(type.getSimpleName()).hasSize(1);
    return found.get(0);
  }
}
