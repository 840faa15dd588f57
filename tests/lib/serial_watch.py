#!/usr/bin/python3
"""Watch a QEMU guest's serial console while it runs, and stop a hung guest.

tests/lib/qemu.sh runs every QEMU through this script (the `run` command):
it starts QEMU, follows the serial log as the guest writes it, and stops the
guest as soon as it is known to be stuck instead of waiting out the test's
time limit:

  lockup     the kernel printed a soft or hard lockup line
  rcu_stall  the kernel printed an RCU stall line
  silence    nothing reached the console for longer than the test allows
  timeout    the test's overall time limit passed

After a lockup or stall line the watcher waits a little (until the console
is quiet for a few seconds, at most GRACE_S) so that the backtraces of every
CPU reach the log, then classifies the hang: the signature "tcg-stale-int3"
means the CPUs were caught trapping on an int3 of a code patch site (see
docs/design.md, "Hangs under multi-threaded TCG"); the launcher retries only
those under single-threaded TCG. A panic gets the signature "ioapic-timer-check"
when it is the kernel's boot-time timer check failing ("IO-APIC + timer
doesn't work!"): a vCPU kept off the host CPU during the check, which a busy
host does to a TCG guest; the launcher boots such a guest once more.

The decision logic is the Watch class, fed bytes and host times; the unit test
(tests/build/test_serial_watch) replays recorded logs through it. The `run`
command also writes a timing file (seconds since start, bytes so far) next
to the log, so a recorded run can be replayed with its real pauses.
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

LOCKUP_RE = re.compile(
    rb"watchdog: BUG: soft lockup - CPU#\d+ stuck for \d+s!"
    rb"|watchdog: Watchdog detected hard LOCKUP on cpu \d+"
)
STALL_RE = re.compile(rb"INFO: rcu_\w+ (?:self-)?detected (?:expedited )?stalls?\b")
PANIC_RE = re.compile(rb"Kernel panic - not syncing")
# Frames that place a CPU in the int3 path of a live code patch: the trap
# itself, the kernel's handlers for it, or the patcher waiting for the other
# CPUs to acknowledge the patch.
STALE_INT3_RE = re.compile(
    rb"\b(?:asm_exc_int3|exc_int3|poke_int3_handler|kprobe_int3_handler|text_poke_bp_batch)\+0x"
)
# A CPU interrupted right at a 5-byte patch site that is off (nop5), not at
# a function's first byte (the ftrace nop): where a CPU caught in that loop
# is found when the report samples it.
RIP_RE = re.compile(rb"RIP: 0010:\S+\+0x([0-9a-f]+)/")
AT_NOP5_RE = re.compile(rb"Code: (?:[0-9a-f]{2} )+<0f> 1f 44 00 00\b")
TCG_SIGNATURE = "tcg-stale-int3"
IOAPIC_RE = re.compile(rb"IO-APIC \+ timer doesn't work")
IOAPIC_SIGNATURE = "ioapic-timer-check"
PROBE_S = 45.0  # how long a silent guest gets to show life under one-insn TBs

GRACE_S = 30.0  # most time given to the backtraces after a hang line
QUIET_S = 4.0  # the backtraces are over when the console is quiet this long
TAIL_LINES = 400  # lines kept for the classification and the report


class Verdict:
    def __init__(self, kind, at, reason, signature=""):
        self.kind = kind
        self.at = at
        self.reason = reason
        self.signature = signature

    def __repr__(self):
        return f"Verdict({self.kind!r}, {self.at:.2f}, {self.reason!r}, {self.signature!r})"


class Watch:
    """Decides, from what the guest printed and when, whether it is stuck.

    feed(data, now) with every chunk read from the console, check(now) as
    often as convenient; check returns a Verdict once, then keeps returning
    it. Times are seconds since the guest started.
    """

    def __init__(self, limit_s=None, silence_s=None, marks=(), grace_s=GRACE_S, quiet_s=QUIET_S,
                 stop_on_hang=True):
        self.stop_on_hang = stop_on_hang
        self.limit_s = limit_s
        self.silence_s = silence_s
        self.grace_s = grace_s
        self.quiet_s = quiet_s
        self.marks = [(name, re.compile(rx.encode())) for name, rx in marks]
        self.mark_at = {}  # name -> seconds of the first matching line
        self.last_output = 0.0
        self.max_gap = 0.0
        self.partial = b""
        self.lines = []  # the last TAIL_LINES lines
        self.hang = None  # (kind, first time, first line)
        self.hang_lines = []  # lines from the hang line on
        self.panic = None
        self.verdict = None

    def feed(self, data, now):
        if not data:
            return
        self.max_gap = max(self.max_gap, now - self.last_output)
        self.last_output = now
        self.partial += data
        *complete, self.partial = self.partial.split(b"\n")
        for raw in complete:
            self._line(raw.rstrip(b"\r"), now)

    def _line(self, line, now):
        self.lines.append(line)
        del self.lines[:-TAIL_LINES]
        # Marks in order: each is looked for only after the one before it.
        for name, rx in self.marks:
            if name in self.mark_at:
                continue
            if rx.search(line):
                self.mark_at[name] = now
            break
        if self.hang:
            if len(self.hang_lines) < TAIL_LINES:
                self.hang_lines.append(line)
        else:
            for kind, rx in (("lockup", LOCKUP_RE), ("rcu_stall", STALL_RE)):
                m = rx.search(line)
                if m:
                    self.hang = (kind, now, line[m.start() :].decode(errors="replace"))
                    self.hang_lines = [line]
                    break
        if self.panic is None and PANIC_RE.search(line):
            self.panic = line[PANIC_RE.search(line).start() :].decode(errors="replace")

    def panic_signature(self):
        """The known cause of the panic seen, or "": the boot-time timer check."""
        if self.panic and IOAPIC_RE.search(self.panic.encode(errors="replace")):
            return IOAPIC_SIGNATURE
        return ""

    def signature(self):
        if not self.hang:
            return ""
        offset = None
        for line in self.hang_lines:
            if STALE_INT3_RE.search(line):
                return TCG_SIGNATURE
            m = RIP_RE.search(line)
            if m:
                offset = int(m.group(1), 16)
            elif AT_NOP5_RE.search(line) and offset:
                return TCG_SIGNATURE
        return ""

    def check(self, now):
        if self.verdict:
            return self.verdict
        if self.hang and self.stop_on_hang:
            kind, first, line = self.hang
            if now - first >= self.grace_s or now - self.last_output >= self.quiet_s:
                self.verdict = Verdict(kind, now, line, self.signature())
        elif self.silence_s is not None and now - self.last_output >= self.silence_s:
            self.verdict = Verdict(
                "silence", now, f"nothing on the serial console for {now - self.last_output:.0f} s "
                f"(this test allows {self.silence_s:g} s)"
            )
        if not self.verdict and self.limit_s is not None and now >= self.limit_s:
            self.verdict = Verdict("timeout", now, f"no power-off within {self.limit_s:g} s")
        return self.verdict


def replay(log, timing=None, step_s=0.01, end_s=None, **kw):
    """Feeds a recorded serial log through a Watch.

    With a timing file (lines "SECONDS BYTES"), every chunk arrives when it
    did in the recorded run; without one, a line arrives every step_s. After
    the log, time runs on to end_s (default: long enough for any verdict),
    checked every 0.25 s. Returns the Watch.
    """
    data = open(log, "rb").read()
    w = Watch(**kw)
    chunks = []
    if timing:
        done = 0
        for row in open(timing):
            t, n = row.split()
            n = int(n)
            chunks.append((float(t), data[done:n]))
            done = n
        if done < len(data):
            chunks.append((chunks[-1][0] if chunks else 0.0, data[done:]))
    else:
        t = 0.0
        for line in data.splitlines(keepends=True):
            t += step_s
            chunks.append((t, line))
    now = 0.0
    for t, chunk in chunks:
        while now + 0.25 < t and not w.check(now + 0.25):
            now += 0.25
        if w.verdict:
            return w
        now = t
        w.feed(chunk, now)
        w.check(now)
        if w.verdict:
            return w
    stop = end_s if end_s is not None else now + 3600
    while now < stop and not w.check(now):
        now += 0.25
    return w


# ------------------------------------------------------------------ run --
def qmp_human(sock_path, command, timeout=5.0):
    """One HMP command through QMP's human-monitor-command; its text or None."""
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(timeout)
        s.connect(sock_path)
        f = s.makefile("rwb")
        f.readline()  # greeting
        for req in (
            {"execute": "qmp_capabilities"},
            {"execute": "human-monitor-command", "arguments": {"command-line": command}},
        ):
            f.write(json.dumps(req).encode() + b"\n")
            f.flush()
            while True:
                reply = json.loads(f.readline())
                if "return" in reply or "error" in reply:
                    break
        s.close()
        return reply.get("return", json.dumps(reply.get("error")))
    except (OSError, ValueError):
        return None


RIP_SAMPLE_RE = re.compile(r"^RIP=([0-9a-f]{16})", re.M)
IDT_RE = re.compile(r"^IDT=\s*([0-9a-f]+)", re.M)
HEX_BYTE_RE = re.compile(r"\b0x([0-9a-f]{1,16})\b")


def int3_entry(idt_gate_words):
    """The #BP (vector 3) handler address from the gate's two 64-bit words."""
    lo, hi = idt_gate_words
    return (lo & 0xFFFF) | (((lo >> 48) & 0xFFFF) << 16) | ((hi & 0xFFFFFFFF) << 32)


def classify_registers(samples, read):
    """QEMU's side of a hang, for guests whose console shows no backtrace.

    samples: texts of "info registers -a" taken one after another; read(addr,
    n, unit) -> list of ints from guest memory (unit "b" bytes, "g" 64-bit
    words), or None. Returns why the hang has the TCG signature, or "".
    The signature: a vCPU at the #BP handler's entry stub (from the IDT),
    or a vCPU that every sample finds at the same 5-byte patch site (nop5
    0f 1f 44 00 00, or jmp rel32 e9).
    """
    per_sample = [[int(x, 16) for x in RIP_SAMPLE_RE.findall(t)] for t in samples]
    per_sample = [r for r in per_sample if r]
    if not per_sample:
        return ""
    m = IDT_RE.search(samples[0])
    if m:
        words = read(int(m.group(1), 16) + 3 * 16, 2, "g")
        if words and len(words) == 2:
            entry = int3_entry(words)
            for rips in per_sample:
                for cpu, rip in enumerate(rips):
                    if entry <= rip < entry + 0x40:
                        return f"vCPU {cpu} in the int3 handler's entry (RIP {rip:#x})"
    for cpu in range(min(len(r) for r in per_sample)):
        rip = per_sample[0][cpu]
        if len(per_sample) > 1 and all(r[cpu] == rip for r in per_sample):
            code = read(rip, 5, "b")
            if code == [0x0F, 0x1F, 0x44, 0x00, 0x00] or (code and code[0] == 0xE9):
                return f"vCPU {cpu} held at a code patch site (RIP {rip:#x}: {' '.join(f'{c:02x}' for c in code)})"
    return ""


def qmp_read(sock_path, addr, n, unit):
    out = qmp_human(sock_path, f"x/{n}x{unit} {addr:#x}")
    if not out or ":" not in out:
        return None
    vals = [int(x, 16) for x in HEX_BYTE_RE.findall(out.split(":", 1)[1])]
    return vals[:n] if len(vals) >= n else None


def shell_quote(s):
    return "'" + str(s).replace("'", "'\\''") + "'"


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cmd_run(a):
    marks = [m.split("=", 1) for m in a.mark]
    w = Watch(a.limit, a.silence, marks, stop_on_hang=not a.keep_running)
    open(a.serial, "wb").close()
    timing = open(a.timing, "w") if a.timing else None
    out = open(a.qemu_out, "wb")
    start = time.monotonic()
    proc = subprocess.Popen(a.cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    if a.pid_file:
        with open(a.pid_file, "w") as f:
            f.write(f"{proc.pid}\n")
    # Signals to this script stop the guest too.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: (stop(proc), sys.exit(1)))
    serial = None
    size = 0
    verdict = None
    while True:
        now = time.monotonic() - start
        if serial is None and os.path.exists(a.serial):
            serial = open(a.serial, "rb")
        if serial:
            data = serial.read()
            if data:
                size += len(data)
                w.feed(data, now)
                if timing:
                    timing.write(f"{now:.2f} {size}\n")
                    timing.flush()
        exited = proc.poll() is not None
        if exited:
            break
        verdict = w.check(now)
        if verdict:
            break
        time.sleep(0.25)
    elapsed = time.monotonic() - start
    registers = ""
    if verdict and verdict.kind in ("lockup", "rcu_stall", "silence") and a.qmp:
        # Where each virtual CPU is, as QEMU sees it, for the record.
        regs = []
        for _ in range(8):
            r = qmp_human(a.qmp, "info registers -a")
            if r:
                regs.append(r)
            time.sleep(0.1)
        why = classify_registers(regs, lambda addr, n, unit: qmp_read(a.qmp, addr, n, unit))
        if why and not verdict.signature:
            verdict.signature = TCG_SIGNATURE
            verdict.reason += f"; QEMU: {why}"
        if regs and a.hang_info:
            with open(a.hang_info, "w") as f:
                f.write(f"signature from QEMU's registers: {why or 'none'}\n")
                for i, r in enumerate(regs):
                    f.write(f"=== info registers -a, sample {i + 1} ===\n{r}\n")
            registers = a.hang_info
    if verdict and verdict.kind == "silence" and not verdict.signature and a.qmp and proc.poll() is None:
        # A silent guest may be caught in QEMU's stale-translation loop with
        # interrupts off, so the kernel cannot report it. Translating one
        # instruction at a time changes nothing in the guest but bypasses
        # every translation made so far: a guest that then prints again was
        # held by QEMU's translations, not by its own state.
        if qmp_human(a.qmp, "singlestep on") is not None:
            before = size
            t0 = time.monotonic()
            while time.monotonic() - t0 < PROBE_S and size == before and proc.poll() is None:
                time.sleep(0.5)
                data = serial.read() if serial else b""
                if data:
                    size += len(data)
                    w.feed(data, time.monotonic() - start)
            qmp_human(a.qmp, "singlestep off")
            if size > before:
                verdict.signature = TCG_SIGNATURE
                verdict.reason += (f"; it printed again {time.monotonic() - t0:.0f} s after QEMU "
                                   "switched to one-instruction translations")
    stop(proc)
    rc = proc.returncode
    if serial:
        data = serial.read()
        if data:
            w.feed(data, elapsed)
    if not verdict:
        if rc == 0 and w.panic:
            verdict = Verdict("panic", elapsed, w.panic, w.panic_signature())
        elif rc == 0:
            verdict = Verdict("poweroff", elapsed, "the guest powered off")
        elif rc == -signal.SIGKILL:
            verdict = Verdict("killed", elapsed, "QEMU was killed (SIGKILL): the power cut")
        else:
            verdict = Verdict("exit", elapsed, f"QEMU exited with status {rc}")
    res = {
        "QW_STATUS": verdict.kind,
        "QW_REASON": verdict.reason,
        "QW_SIGNATURE": verdict.signature,
        "QW_ELAPSED": f"{elapsed:.2f}",
        "QW_MAX_GAP": f"{w.max_gap:.1f}",
        "QW_QEMU_RC": rc,
        "QW_REGISTERS": registers,
    }
    for name, _ in marks:
        res[f"QW_MARK_{name}"] = f"{w.mark_at[name]:.2f}" if name in w.mark_at else ""
    with open(a.result, "w") as f:
        for k, v in res.items():
            f.write(f"{k}={shell_quote(v)}\n")
    return 0 if verdict.kind == "poweroff" else 1


def cmd_replay(a):
    marks = [m.split("=", 1) for m in a.mark]
    w = replay(a.log, a.timing, limit_s=a.limit, silence_s=a.silence, marks=marks)
    v = w.check(1e9) if not w.verdict else w.verdict
    print(f"{v.kind} {v.at:.2f} {v.signature or '-'} {v.reason}")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run QEMU, watch its serial log")
    r.add_argument("--serial", required=True, help="the log QEMU's -serial file: writes")
    r.add_argument("--timing", help="write 'SECONDS BYTES' lines here")
    r.add_argument("--result", required=True, help="shell assignments QW_*=... go here")
    r.add_argument("--qemu-out", default=os.devnull, help="QEMU's own stdout and stderr")
    r.add_argument("--limit", type=float, required=True, help="overall seconds")
    r.add_argument("--silence", type=float, help="most seconds without console output")
    r.add_argument("--mark", action="append", default=[], help="NAME=REGEX, in order")
    r.add_argument("--qmp", help="QMP socket, for the registers of a hung guest")
    r.add_argument("--hang-info", help="where the registers of a hung guest go")
    r.add_argument("--pid-file", help="QEMU's process id goes here (qm_kill)")
    r.add_argument("--keep-running", action="store_true",
                   help="note hangs but let the guest run (for experiments on a hung guest)")
    r.add_argument("cmd", nargs=argparse.REMAINDER)
    q = sub.add_parser("replay", help="replay a recorded log, print the verdict")
    q.add_argument("log")
    q.add_argument("--timing")
    q.add_argument("--limit", type=float)
    q.add_argument("--silence", type=float)
    q.add_argument("--mark", action="append", default=[])
    m = sub.add_parser("mon", help="one HMP command through a QMP socket")
    m.add_argument("qmp")
    m.add_argument("command_line")
    a = p.parse_args()
    if a.command == "mon":
        r = qmp_human(a.qmp, a.command_line)
        if r is None:
            sys.exit(f"serial_watch: the monitor at {a.qmp} did not answer")
        sys.stdout.write(r)
        return 0
    if a.command == "run":
        if a.cmd[:1] == ["--"]:
            a.cmd = a.cmd[1:]
        if not a.cmd:
            p.error("run: no QEMU command after --")
        return cmd_run(a)
    return cmd_replay(a)


if __name__ == "__main__":
    sys.exit(main())
