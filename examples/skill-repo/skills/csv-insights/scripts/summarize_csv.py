#!/usr/bin/env python3
"""Profile a CSV file: row count, inferred column types, missing values, numeric ranges.

Usage: summarize_csv.py FILE.csv
Prints one JSON object on stdout; exits 1 with a message on stderr when the file cannot be read.
"""

import csv
import json
import sys
from datetime import date


def infer_type(values):
    """The narrowest type that fits every non-empty value: integer, decimal, date or text."""
    present = [v for v in values if v.strip()]
    if not present:
        return "empty"
    for name, parse in (("integer", int), ("decimal", float), ("date", date.fromisoformat)):
        try:
            for value in present:
                parse(value)
        except ValueError:
            continue
        return name
    return "text"


def profile(path):
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if not reader.fieldnames:
            raise ValueError("no header row")
        rows = list(reader)
    columns = {}
    for name in reader.fieldnames:
        values = [row.get(name) or "" for row in rows]
        kind = infer_type(values)
        column = {"type": kind, "missing": sum(1 for v in values if not v.strip())}
        if kind in ("integer", "decimal"):
            convert = int if kind == "integer" else float
            numbers = [convert(v) for v in values if v.strip()]
            column["min"], column["max"] = min(numbers), max(numbers)
        columns[name] = column
    return {"rows": len(rows), "columns": columns}


def main(argv):
    if len(argv) != 2:
        print("usage: summarize_csv.py FILE.csv", file=sys.stderr)
        return 2
    try:
        result = profile(argv[1])
    except FileNotFoundError:
        print(f"file not found: {argv[1]}", file=sys.stderr)
        return 1
    except (ValueError, UnicodeDecodeError, csv.Error) as exc:
        print(f"cannot read {argv[1]}: {exc}", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
