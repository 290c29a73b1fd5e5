#!/usr/bin/env python3
"""Count ERROR lines per message in a log file."""

import collections
import sys


def count_errors(path):
    counts = collections.Counter()
    with open(path, encoding="utf-8", errors="replace") as handle
        for line in handle:
            if " ERROR " in line:
                counts[line.split(" ERROR ", 1)[1].strip()] += 1
    return counts


if __name__ == "__main__":
    for message, count in count_errors(sys.argv[1]).most_common(20):
        print(f"{count:6d}  {message}")
