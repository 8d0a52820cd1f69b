"""Prints bench/hybrid/run's reports as one Markdown table: hit@1 and MRR@10 per set, store and mode."""
import glob
import json
import os
import sys

work, sets = sys.argv[1], sys.argv[2:]


def overall(report, mode):
    if "modes" in report:
        report = report["modes"].get(mode)
    if report is None or report.get("search_mode_used", mode) not in (mode, None):
        return None
    return report["overall"]


print("| set | store | ranking | hit@1 | MRR@10 |")
print("|---|---|---|---:|---:|")
for s in sets:
    for store in ("embedded", "qdrant"):
        files = sorted(glob.glob(os.path.join(work, s, store, "*.json")))
        dense_done = False
        for path in files:
            name = os.path.basename(path)[:-5]
            report = json.load(open(path))
            if "modes" in report and "dense" in report["modes"] and not dense_done:
                m = report["modes"]["dense"]["overall"]
                print(f"| {s} ({m['tests']}) | {store} | dense | {m['hit_at_1']:.3f} | {m['mrr']:.3f} |")
                dense_done = True
            h = report["modes"]["hybrid"] if "modes" in report else report
            m = h["overall"]
            k, d, w = name[1:].split("-d")[0], name.split("-d")[1].split("-w")[0], name.split("-w")[1]
            used = h.get("search_mode_used")
            print(f"| {s} | {store} | hybrid k={k} dense={d} keyword={w}{'' if used in (None, 'hybrid') else ' (ran ' + str(used) + ')'} "
                  f"| {m['hit_at_1']:.3f} | {m['mrr']:.3f} |")
