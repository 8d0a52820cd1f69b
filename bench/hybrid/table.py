"""Prints bench/hybrid/run's reports as Markdown: hit@1 / MRR@10 per ranking (rows) and set and
store (columns), then how often the two stores agree question by question."""
import glob
import json
import os
import sys

work, sets = sys.argv[1], sys.argv[2:]
STORES = ("embedded", "qdrant")


def load(path):
    report = json.load(open(path))
    return report.get("modes", {"hybrid": report})


def fusion_of(name):  # "k60-d1-w0.5" -> (60, 1.0, 0.5)
    k, rest = name[1:].split("-d")
    d, w = rest.split("-w")
    return int(k), float(d), float(w)


cells = {}  # (ranking, set, store) -> "hit@1 / MRR"
tests = {}
rankings = set()
for s in sets:
    for store in STORES:
        for path in glob.glob(os.path.join(work, s, store, "k*.json")):
            fusion = fusion_of(os.path.basename(path)[:-5])
            for mode, report in load(path).items():
                m = report["overall"]
                key = "dense" if mode == "dense" else fusion
                tests[s] = m["tests"]
                rankings.add(key)
                cells[(key, s, store)] = f"{m['hit_at_1']:.3f} / {m['mrr']:.3f}"

ordered = ["dense"] + sorted((r for r in rankings if r != "dense"), key=lambda f: (-f[0], -f[2], f[1]))
print("| ranking | " + " | ".join(f"{s} ({tests.get(s, '?')}) {store}" for s in sets for store in STORES) + " |")
print("|---|" + "---:|" * (len(sets) * len(STORES)))
for r in ordered:
    label = "dense" if r == "dense" else f"hybrid k={r[0]} dense_w={r[1]:g} keyword_w={r[2]:g}"
    print(f"| {label} | " + " | ".join(cells.get((r, s, store), "") for s in sets for store in STORES) + " |")

print()
print("| set | hybrid rankings compared | questions with the same top result | with the same rank of the first right one |")
print("|---|---:|---:|---:|")
for s in sets:
    same_top = same_rank = total = runs = 0
    for path in glob.glob(os.path.join(work, s, "embedded", "k*.json")):
        other = os.path.join(work, s, "qdrant", os.path.basename(path))
        if not os.path.exists(other):
            continue
        a, b = load(path)["hybrid"]["tests"], load(other)["hybrid"]["tests"]
        runs += 1
        for x, y in zip(a, b):
            total += 1
            same_top += x.get("top_result") == y.get("top_result")
            same_rank += x.get("first_relevant_rank") == y.get("first_relevant_rank")
    if total:
        print(f"| {s} | {runs} | {same_top}/{total} | {same_rank}/{total} |")
