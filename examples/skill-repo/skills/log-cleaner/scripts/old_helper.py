#!/usr/bin/env python3
"""Print the size of every file in a directory, largest first (superseded by rotate.sh)."""

import os
import sys

directory = sys.argv[1]
sizes = [(os.path.getsize(os.path.join(directory, name)), name) for name in os.listdir(directory)]
for size, name in sorted(sizes, reverse=True):
    print(f"{size:12d}  {name}")
