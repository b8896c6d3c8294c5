#!/usr/bin/env python3
"""Independent check of a weighted draw: scipy's chi-square goodness-of-fit test of the
OBSERVED counts against the frequencies the WEIGHTS give.

Usage: chisquare.py < {"observed": [...], "weights": [...]}
Prints the p-value.
"""
import json
import sys

from scipy.stats import chisquare


def main():
    data = json.load(sys.stdin)
    observed = data["observed"]
    weights = data["weights"]
    n = sum(observed)
    total = sum(weights)
    expected = [n * w / total for w in weights]
    print(json.dumps(float(chisquare(observed, expected).pvalue)))


if __name__ == "__main__":
    main()
