# syntax=docker/dockerfile:1.7
# Build: docker build -t rag-retrieval .
# Run:   docker run -p 8080:8080 rag-retrieval   (embedded default: local model + embedded store)

# ---- build ---------------------------------------------------------------------------------
FROM eclipse-temurin:21-jdk AS build
WORKDIR /src
# the wrapper and the pom first: dependencies are fetched again only when the pom changes
COPY mvnw pom.xml ./
COPY .mvn .mvn
RUN --mount=type=cache,target=/root/.m2 ./mvnw -q -B dependency:go-offline
COPY proto proto
COPY conf conf
COPY src src
RUN --mount=type=cache,target=/root/.m2 ./mvnw -q -B -DskipTests package

# ---- runtime -------------------------------------------------------------------------------
FROM eclipse-temurin:21-jre
RUN groupadd --system --gid 10001 rag \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin rag \
 && mkdir -p /app/conf /data /var/cache/djl \
 && chown 10001:10001 /data /var/cache/djl
WORKDIR /app
COPY --from=build /src/target/rag-retrieval.jar /app/rag-retrieval.jar
COPY --from=build /src/conf/config.yaml /app/conf/config.yaml

# Everything written at run time goes to /tmp, /data or the DJL cache, so the container also runs
# with a read-only root filesystem (mount writable volumes there, as k8s/base/deployment.yaml does).
# ONNX Runtime unpacks its native library into java.io.tmpdir (removed once loaded), the tokenizer's
# into DJL_CACHE_DIR.
ENV RAG_HTTP_PORT=8080 \
    RAG_CONFIG=/app/conf/config.yaml \
    RAG_DATA_DIR=/data \
    DJL_CACHE_DIR=/var/cache/djl \
    HOME=/data
VOLUME ["/data"]
USER 10001:10001
EXPOSE 8080

# the JRE image has no curl or wget: a few lines of JDK code in the jar ask /health/live
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["java", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Xmx16m", "-cp", "/app/rag-retrieval.jar", "dev.ragretrieval.observability.HealthCheck"]

# container-aware heap; die on OOM so the orchestrator restarts a clean process.
# Extra JVM flags: JDK_JAVA_OPTIONS. Other verbs: docker run rag-retrieval ingest /books
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-Djava.io.tmpdir=/tmp", "-jar", "/app/rag-retrieval.jar"]
CMD ["serve"]
