#!/usr/bin/env python3
"""Count the functions of a tree that are longer than N lines (not a test: a
figure for issue 22). A function is what the checked-in .clang-format makes
of one: a line at column 0 that opens its body with "{" alone on the next
lines, closed by "}" alone at column 0; its length runs from the first line
of its signature to that closing brace, both counted.
Usage: tests/build/long_functions.py [DIR] [--over N] [--list]"""
import os
import re
import sys


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line == "{" and i > 0:
            j = i - 1
            while j > 0 and lines[j].startswith((" ", "\t")):
                j -= 1
            start = j
        elif line == "}" and start is not None:
            m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", lines[start])
            yield i - start + 1, m.group(1) if m else "?", start + 1
            start = None


def main():
    args = sys.argv[1:]
    over = 100
    if "--over" in args:
        over = int(args[args.index("--over") + 1])
    top = next((a for a in args if not a.startswith("--") and not a.isdigit()), "userland")
    found = []
    for root, _, files in os.walk(top):
        for f in sorted(files):
            if f.endswith(".c"):
                p = os.path.join(root, f)
                found += [(n, p, name, line) for n, name, line in functions(p) if n > over]
    found.sort(reverse=True)
    if "--list" in args:
        for n, p, name, line in found:
            print(f"{n:5d} {p}:{line} {name}")
    print(f"{len(found)} functions over {over} lines in {top}")


main()
