"""Replays hybrid fusion settings offline, from each question's dense and BM25 lists written once.

  replay.py lists SERVICE_URL QDRANT_HTTP_URL COLLECTION EVAL_FILE OUT.json
      the dense list (top 100, POST /v1/retrieve with search_mode dense on a running service) and the
      BM25 list (top 100 with scores: Qdrant's qdrant/bm25 query with the collection's options) of
      every question of EVAL_FILE
  replay.py grid OUT_DIR SET...
      MRR@10 against dense per set for RRF settings (k, keyword weight), the keyword list free or
      confined to the dense candidates (as the service now does), worst set first

The lists come from single questions, while `eval` embeds in batches: a few neighbouring dense hits
may swap against the eval's; use this to choose what to measure, and bench/hybrid/run to measure it.
"""
import json
import os
import re
import sys
import urllib.request


def post(url, body):
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request, timeout=120))


def tests_of(path):
    text = open(path).read().strip()
    if text.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def lists(service, qdrant, collection, eval_file, out):
    info = json.load(urllib.request.urlopen(f"{qdrant}/collections/{collection}"))["result"]["config"]
    avg_len = (info.get("metadata") or {}).get("rag_bm25_avg_len", 256)
    # KeywordAnalysis.qdrantOptions
    options = {"k": 1.2, "b": 0.75, "avg_len": avg_len, "language": "english", "stopwords": "english",
               "stemmer": {"type": "snowball", "language": "english"}, "lowercase": True,
               "ascii_folding": False, "max_token_len": 40}
    questions = []
    for t in tests_of(eval_file):
        text = t.get("query_text") or t.get("query")
        dense = post(f"{service}/v1/retrieve", {"query": text, "top_k": 100, "score_threshold": 0.0,
                                                 "collection": collection, "search_mode": "dense"})["results"]
        bm25 = post(f"{qdrant}/collections/{collection}/points/query", {
            "query": {"text": text, "model": "qdrant/bm25", "options": options}, "using": "bm25", "limit": 100,
            "with_payload": ["source_url", "section", "chunk_id"]})["result"]["points"]
        questions.append({
            "id": t.get("test_id"), "expected": t.get("expected_results") or t.get("expected"),
            "dense": [{"id": h["id"], "cid": h.get("chunk_id"), "url": h.get("source_url"),
                       "section": h.get("section"), "cos": h["score"]} for h in dense],
            "bm25": [{"id": p["id"], "cid": p["payload"].get("chunk_id"), "url": p["payload"].get("source_url"),
                      "section": p["payload"].get("section"), "score": p["score"]} for p in bm25]})
    json.dump(questions, open(out, "w"))


# --- eval/Expected.java's matching ---
def _norm(url):
    url = re.sub(r"^\./", "", url.strip())
    return re.sub(r"\.(mdx?|html?)$", "", re.sub(r"/+$", "", url))


def _same_source(actual, expected):
    if actual is None:
        return False
    a, e = _norm(actual), _norm(expected)
    return e != "" and (a == e or a.endswith("/" + e))


def _same_text(actual, expected):
    e = re.sub(r"^#+\s*", "", expected.strip())
    return actual is not None and e != "" and actual.strip().lower() == e.lower()


def matches(expected, hit):
    if isinstance(expected, dict):
        source = expected.get("source_url") or expected.get("source")
        return ((expected.get("chunk_id") is None or expected["chunk_id"] == hit["cid"])
                and (source is None or _same_source(hit["url"], source))
                and (expected.get("section") is None or _same_text(hit["section"], expected["section"])))
    text = expected.strip()
    if text == hit["cid"]:
        return True
    cut = text.rfind("#")
    if cut > 0 and _same_source(hit["url"], text[:cut]) and _same_text(hit["section"], text[cut + 1:]):
        return True
    return _same_source(hit["url"], text) or _same_text(hit["section"], text)


# --- search/Fusion.java's formula and order ---
def fused(q, k, dense_weight, keyword_weight, confined, candidates=40, top=10):
    dense = q["dense"][:candidates]
    in_dense = {h["id"] for h in dense}
    keyword = [h for h in q["bm25"] if not confined or h["id"] in in_dense][:candidates]
    cosine = {h["id"]: h["cos"] for h in q["dense"]}
    score = {}
    for weight, hits in ((dense_weight, dense), (keyword_weight, keyword)):
        for rank, h in enumerate(hits, 1):
            score[h["id"]] = score.get(h["id"], 0.0) + (1 / (rank / weight + k) if weight > 0 else 0.0)
    return sorted(score, key=lambda i: (-score[i], -cosine.get(i, 0.0), i))[:top]


def mrr(questions, ranking):
    total = 0.0
    for q in questions:
        hits = {h["id"]: h for h in q["dense"] + q["bm25"]}
        for rank, i in enumerate(ranking(q), 1):
            if any(matches(e, hits[i]) for e in q["expected"]):
                total += 1 / rank
                break
    return total / len(questions)


def grid(out_dir, sets):
    data = {s: json.load(open(os.path.join(out_dir, s + ".json"))) for s in sets}
    dense = {s: mrr(qs, lambda q: [h["id"] for h in q["dense"][:10]]) for s, qs in data.items()}
    print("dense MRR@10: " + ", ".join(f"{s} {dense[s]:.3f}" for s in sets))
    rows = []
    for confined in (False, True):
        for k in (1, 2, 3, 4, 5, 6, 8, 10, 20, 60):
            for w in (0.1, 0.2, 0.25, 0.33, 0.5, 1.0):
                delta = {s: mrr(qs, lambda q: fused(q, k, 1.0, w, confined)) - dense[s] for s, qs in data.items()}
                rows.append((min(delta.values()), k, w, confined, delta))
    rows.sort(key=lambda r: -r[0])
    print("| keyword list | k | keyword weight | worst | " + " | ".join(sets) + " |")
    print("|---|---:|---:|---:|" + "---:|" * len(sets))
    for worst, k, w, confined, delta in rows:
        print(f"| {'dense candidates' if confined else 'free'} | {k} | {w:g} | {worst:+.3f} | "
              + " | ".join(f"{delta[s]:+.3f}" for s in sets) + " |")


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "lists":
        lists(*sys.argv[2:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "grid":
        grid(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
