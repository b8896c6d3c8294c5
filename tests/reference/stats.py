#!/usr/bin/env python3
"""The report's statistical tests by scipy, independently of mirror.

Reads JSON lines on stdin and prints one JSON line for each:
  {"table": [a, b, c, d]}  ->  {"p": Fisher's exact test's two-sided p-value of
                                [[a, b], [c, d]]}
  {"p_values": [...]}      ->  {"q": Benjamini-Hochberg's q-values of them, same order}

Usage: stats.py < lines.jsonl
"""
import json
import sys

from scipy.stats import false_discovery_control, fisher_exact


def main():
    for line in sys.stdin:
        v = json.loads(line)
        if "table" in v:
            a, b, c, d = v["table"]
            print(json.dumps({"p": float(fisher_exact([[a, b], [c, d]]).pvalue)}))
        else:
            q = false_discovery_control(v["p_values"], method="bh")
            print(json.dumps({"q": [float(x) for x in q]}))


if __name__ == "__main__":
    main()
