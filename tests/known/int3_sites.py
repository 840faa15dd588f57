#!/usr/bin/python3
"""Where the CPUs of a hung guest were, from the kernel's backtraces in LOG.

Two kinds of frame are reported, with the bytes the kernel read from memory
at that point (its Code: line, "<..>" marking RIP):
  trap     a CPU in the int3 path (asm_exc_int3, exc_int3, poke_int3_handler,
           kprobe_int3_handler): the interrupted frame under it is the code
           site of the int3. The trap leaves RIP one byte past the int3, the
           kprobe handler rewinds it onto the int3's address, so the site's
           first byte is at RIP-1 or RIP.
  at site  a CPU interrupted right at a 5-byte patch site (a jump label or
           static call when off: nop5 0f 1f 44 00 00; a jump label when on:
           jmp rel32 e9, which other code has too), not at a function's
           first byte (the ftrace nop every function starts with).
A CPU that keeps trapping on an int3 where memory holds none is executing a
stale translation of that code.
Usage: int3_sites.py LOG      prints one line per frame
       int3_sites.py --code LOG   prints "SITE_SYMBOL INDEX BYTES..." for the
                              first site found (for tests/known/tcg-site-rewrite)
"""
import re
import sys

TRAP = re.compile(r"RIP: 0010:(asm_exc_int3|exc_int3|poke_int3_handler|kprobe_int3_handler)\+")
RIP = re.compile(r"RIP: 0010:(\S+)")
CODE = re.compile(r"Code: (.*)")
NOP5 = ["0f", "1f", "44", "00", "00"]


def code_after(lines, i):
    """The Code: bytes and the index of RIP in them, for the RIP line i."""
    for nxt in lines[i + 1 : i + 3]:
        c = CODE.search(nxt)
        if c:
            b = c.group(1).split()
            k = next((j for j, x in enumerate(b) if x.startswith("<")), None)
            if k:
                b[k] = b[k].strip("<>")
                return b, k
            return None
    return None


def frames(lines):
    out = []
    trap = None
    for i, line in enumerate(lines):
        if TRAP.search(line):
            trap = TRAP.search(line).group(1)
            continue
        m = RIP.search(line)
        if not m:
            continue
        code = code_after(lines, i)
        if trap and code:
            out.append(("trap", trap, m.group(1), code))
        elif code and "+0x0/" not in m.group(1) and (
            code[0][code[1] : code[1] + 5] == NOP5 or code[0][code[1]] == "e9"
        ):
            # (+0x0: a function's own first bytes, the ftrace nop.)
            out.append(("at site", "", m.group(1), code))
        trap = None
    return out


def main():
    args = sys.argv[1:]
    want_code = args[:1] == ["--code"]
    if want_code:
        args = args[1:]
    lines = open(args[0], errors="replace").read().replace("\r", "").splitlines()
    found = frames(lines)
    if want_code:
        # The site of a trap first, else a CPU found at a site.
        for want in ("trap", "at site"):
            for kind, _, site, (b, k) in found:
                if kind == want:
                    print(site, k, " ".join(b))
                    return
        return
    for kind, trap, site, (b, k) in found:
        around = f"[RIP-1, RIP..RIP+4] = {b[k - 1]} {' '.join(b[k:k + 5])}"
        if kind == "trap":
            held = "holds an int3" if "cc" in (b[k - 1], b[k]) else "holds no int3"
            print(f"trap ({trap}) from {site}: memory {around}: {held}")
        else:
            print(f"at site {site}: memory {around}")


if __name__ == "__main__":
    main()
