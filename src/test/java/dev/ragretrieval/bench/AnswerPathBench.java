package dev.ragretrieval.bench;

import dev.ragretrieval.config.ConfigLoader;
import dev.ragretrieval.ingest.Chunk;
import dev.ragretrieval.retrieval.PayloadMapper;
import dev.ragretrieval.retrieval.ResultJson;
import dev.ragretrieval.retrieval.RetrievedChunk;
import dev.ragretrieval.search.qdrant.QdrantPayloads;
import io.qdrant.client.grpc.Points;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The part of a new question's cost that turns Qdrant's answer into the answer's chunks, timed in
 * one process with nothing else running, as the Qdrant store does it: protobuf parsing a
 * {@code QueryBatchResponse}, the hits' payloads made into JSON objects and mapped to chunks
 * ({@code QdrantPayloads}, {@link PayloadMapper}), and the chunks written as JSON
 * ({@link ResultJson}). The full bench cannot resolve a change of a few percent of a question on
 * this shared machine (bench/README.md); runs of this one, two builds in turns, come closer.
 *
 * <p>Answers are built once from the realistic workload's chunks (the manual's pages, read and
 * chunked by the ingest code, in the payload layout an ingest writes) and serialized: each holds 7
 * questions of 5 points, the sharing the bench sees at 64 clients. Every round parses each
 * answer afresh, as the service does.
 *
 * <p>{@code bench/answer-path [manual-dir] [chunks]}
 */
public final class AnswerPathBench {

  private static final int QUESTIONS_PER_CALL = 7;
  private static final int TOP_K = 5;
  private static final int ANSWERS = 2_000;
  private static final int ROUNDS = 15;
  private static final int MEASURED_FROM = 5;

  private AnswerPathBench() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    int wanted = Integer.parseInt(args[1]);
    List<Points.ScoredPoint> points = seed(root, wanted);
    Random random = new Random(19);
    List<byte[]> answers = new ArrayList<>(ANSWERS);
    for (int a = 0; a < ANSWERS; a++) {
      Points.QueryBatchResponse.Builder answer = Points.QueryBatchResponse.newBuilder().setTime(0.002);
      for (int q = 0; q < QUESTIONS_PER_CALL; q++) {
        Points.BatchResult.Builder hits = Points.BatchResult.newBuilder();
        for (int k = 0; k < TOP_K; k++) {
          hits.addResult(points.get(random.nextInt(points.size())).toBuilder().setScore(0.9f - 0.05f * k));
        }
        answer.addResult(hits);
      }
      answers.add(answer.build().toByteArray());
    }
    PayloadMapper mapper = new PayloadMapper(ConfigLoader.fromJson(new JsonObject(), Map.of()).retrieval());
    System.out.printf(Locale.ROOT, "%d chunks of %s; %d answers of %d questions x %d points, %.1f KB each on average%n",
        points.size(), root, ANSWERS, QUESTIONS_PER_CALL, TOP_K,
        answers.stream().mapToInt(b -> b.length).average().orElse(0) / 1024);
    System.out.println("| round | parse | to chunks | write | total | (µs per question) |");
    System.out.println("|---|---|---|---|---|---|");
    long written = 0;
    double[] sums = new double[3];
    for (int round = 0; round < ROUNDS; round++) {
      long parse = 0;
      long map = 0;
      long write = 0;
      for (byte[] bytes : answers) {
        long t0 = System.nanoTime();
        Points.QueryBatchResponse answer = Points.QueryBatchResponse.parseFrom(bytes);
        long t1 = System.nanoTime();
        List<List<RetrievedChunk>> questions = new ArrayList<>(QUESTIONS_PER_CALL);
        for (Points.BatchResult result : answer.getResultList()) {
          // as QdrantVectorStore reads a dense search's hits
          questions.add(mapper.map(QdrantPayloads.scored(result.getResultList())));
        }
        long t2 = System.nanoTime();
        for (List<RetrievedChunk> chunks : questions) {
          written += ResultJson.encode(json -> ResultJson.chunks(json, chunks)).length();
        }
        long t3 = System.nanoTime();
        parse += t1 - t0;
        map += t2 - t1;
        write += t3 - t2;
      }
      double per = 1e3 * ANSWERS * QUESTIONS_PER_CALL;
      double[] us = {parse / per, map / per, write / per};
      System.out.printf(Locale.ROOT, "| %d%s | %.2f | %.2f | %.2f | %.2f | |%n", round + 1,
          round < MEASURED_FROM ? " (warm-up)" : "", us[0], us[1], us[2], us[0] + us[1] + us[2]);
      if (round >= MEASURED_FROM) {
        for (int i = 0; i < 3; i++) {
          sums[i] += us[i];
        }
      }
    }
    int measured = ROUNDS - MEASURED_FROM;
    System.out.printf(Locale.ROOT, "| mean of rounds %d-%d | %.2f | %.2f | %.2f | %.2f | |%n", MEASURED_FROM + 1, ROUNDS,
        sums[0] / measured, sums[1] / measured, sums[2] / measured, (sums[0] + sums[1] + sums[2]) / measured);
    System.out.println("(" + written + " bytes written)");
  }

  /** The realistic workload's points, as Qdrant would answer them. */
  private static List<Points.ScoredPoint> seed(Path root, int wanted) throws Exception {
    List<Points.ScoredPoint> points = new ArrayList<>(wanted);
    for (Chunk chunk : StandIns.manualChunks(root, wanted)) {
      points.add(Points.ScoredPoint.newBuilder()
          .setId(QdrantPayloads.toPointId(chunk.pointId()))
          .putAllPayload(QdrantPayloads.toPayload(chunk.payload()))
          .build());
    }
    return points;
  }
}
