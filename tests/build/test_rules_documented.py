#!/usr/bin/env python3
"""Every finding rule a step or a recorder can emit is named in docs/report.md.

A rule is the 4th argument of ps_findf(), the 3rd of ps_find_unstable() or a
`.rule = "..."` of a struct ps_finding in userland/steps/<step>.c, or the 3rd
argument of hit() in a step's pure rules, userland/hw/<step>_rules.c; or the
3rd argument of ps_rec_find() in userland/record/<member>.c. report.md must
name it as `rule`, `<step>.<rule>` or `<member>.<rule>`. String literals
only: a rule chosen at run time from two literals (a ? "x" : "y") counts both.
"""
import glob
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
doc = open(os.path.join(root, "docs/report.md"), encoding="utf-8").read()


def args_of(src, start):
    """Top-level comma-separated arguments of the call whose '(' is at start."""
    depth, cur, out, i, instr = 0, [], [], start, False
    while i < len(src):
        c = src[i]
        if instr:
            cur.append(c)
            if c == "\\":
                cur.append(src[i + 1])
                i += 1
            elif c == '"':
                instr = False
        elif c == '"':
            instr = True
            cur.append(c)
        elif c in "({[":
            depth += 1
            if depth > 1:
                cur.append(c)
        elif c in ")}]":
            depth -= 1
            if depth == 0:
                out.append("".join(cur))
                return out
            cur.append(c)
        elif c == "," and depth == 1:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    return out


missing, total = [], 0
sources = [(os.path.basename(p)[:-2], p) for p in glob.glob(os.path.join(root, "userland/steps/*.c"))]
sources += [(os.path.basename(p)[: -len("_rules.c")], p)
            for p in glob.glob(os.path.join(root, "userland/hw/*_rules.c"))]
def literals(src, call, arg):
    """The string literals of argument arg (0-based) of every call to call in src."""
    found = set()
    for m in re.finditer(r"\b%s\s*\(" % call, src):
        a = args_of(src, m.end() - 1)
        if len(a) > arg:
            found.update(re.findall(r'"([a-z0-9_]+)"', a[arg]))
    return found


for step, path in sorted(sources):
    src = open(path, encoding="utf-8").read()
    rules = set(re.findall(r'\.rule\s*=\s*"([a-z0-9_]+)"', src))
    rules |= literals(src, "ps_findf", 3) | literals(src, "ps_find_unstable", 2)
    rules |= literals(src, "hit", 2)
    for r in sorted(rules):
        total += 1
        if f"`{r}`" not in doc and f"`{step}.{r}`" not in doc:
            missing.append(f"{step}.{r}")
for path in sorted(glob.glob(os.path.join(root, "userland/record/*.c"))):
    member = os.path.basename(path)[:-2]
    for r in sorted(literals(open(path, encoding="utf-8").read(), "ps_rec_find", 2)):
        total += 1
        if f"`{member}.{r}`" not in doc:
            missing.append(f"{member}.{r}")
if missing:
    print("rules a step or recorder emits that docs/report.md does not name:", " ".join(missing))
    sys.exit(1)
print(f"{total} rules, each named in docs/report.md")
