#!/usr/bin/env python3
"""powercut_wait.py - wait for the moment of a power cut in a running guest, then cut.

Follows the guest's serial log and the stick image's FAT dirty flag (the
byte the kernel sets while the stick is mounted read-write, i.e. while
probestick writes), and sends SIGKILL to QEMU at the chosen moment:

  --at SECONDS            SECONDS after the plan's first line ("probestick: plan ...")
  --during STEP SECONDS   SECONDS after STEP started
  --after-write STEP      right after the write that follows STEP's end (the
                          dirty flag rose and fell again, or the next step started)
  --in-write STEP         while the write after STEP's end runs (dirty flag set)
  --measure               no cut: print "plan: SECONDS" (first line of the plan
                          to the line saying it is done)

Prints one line "cut: <what> at <s> s; dirty=<0|1>; console: <last step line>"
and exits 0 when it cut, 1 when the guest ended first.
"""
import argparse
import os
import re
import signal
import sys
import time

DIRTY_OFFSET = (1 << 20) + 0x41  # the FAT partition starts at 1 MiB; BPB byte 65
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
# "[4/11] disk_read: ..." when a step starts, "[4/11] disk_read  pass   1.8 s ..." when it ends
END = rb" +(pass|warn|fail|error|skipped|aborted) +[0-9]"


def dirty(image):
    with open(image, "rb") as f:
        f.seek(DIRTY_OFFSET)
        return f.read(1)[0] & 1


def console(path):
    try:
        with open(path, "rb") as f:
            return ANSI.sub(b"", f.read()).replace(b"\r", b"")
    except OSError:
        return b""


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def last_step_line(text):
    lines = [l for l in text.split(b"\n") if re.match(rb"\[\d+/\d+\] ", l)]
    return lines[-1].decode(errors="replace")[:100] if lines else "-"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--serial", required=True)
    p.add_argument("--image", required=True)
    p.add_argument("--pid-file", required=True)
    p.add_argument("--limit", type=float, default=300)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--at", type=float)
    g.add_argument("--during", nargs=2)
    g.add_argument("--after-write")
    g.add_argument("--in-write")
    g.add_argument("--measure", action="store_true")
    a = p.parse_args()
    t0 = time.monotonic()
    pid = None
    while time.monotonic() - t0 < 30 and pid is None:
        try:
            pid = int(open(a.pid_file).read())
        except (OSError, ValueError):
            time.sleep(0.05)
    if pid is None:
        sys.exit("powercut_wait: QEMU never started (no pid file)")

    def wait_for(pattern, poll=0.05):
        while time.monotonic() - t0 < a.limit:
            if re.search(pattern, console(a.serial)):
                return True
            if not alive(pid):
                return False
            time.sleep(poll)
        return False

    what = ""
    if a.measure:
        if not wait_for(rb"probestick: plan ", poll=0.02):
            return 1
        start = time.monotonic()
        if not wait_for(rb"probestick: plan \w+ done in ", poll=0.02):
            return 1
        print(f"plan: {time.monotonic() - start:.1f}")
        return 0
    if a.at is not None:
        if not wait_for(rb"probestick: plan "):
            return 1
        start = time.monotonic()
        while time.monotonic() - start < a.at:
            if not alive(pid):
                return 1
            time.sleep(0.01)
        what = f"{a.at:.2f} s into the plan"
    elif a.during:
        step, secs = a.during[0].encode(), float(a.during[1])
        if not wait_for(rb"\[\d+/\d+\] " + re.escape(step) + rb":"):
            return 1
        time.sleep(secs)
        what = f"{secs:.1f} s into {a.during[0]}"
    else:
        name = a.after_write or a.in_write
        step = name.encode()
        m = None
        while time.monotonic() - t0 < a.limit:
            m = re.search(rb"\[(\d+)/(\d+)\] " + re.escape(step) + END, console(a.serial))
            if m or not alive(pid):
                break
            time.sleep(0.005)
        if not m:
            return 1
        nxt = rb"\[%d/%s\] " % (int(m.group(1)) + 1, m.group(2))
        seen_set = False
        while time.monotonic() - t0 < a.limit:
            d = dirty(a.image)
            if a.in_write and d:
                what = f"in the write after {name}"
                break
            seen_set = seen_set or d
            if a.after_write and ((seen_set and not d) or re.search(nxt, console(a.serial))):
                what = f"right after the write after {name}"
                break
            if a.in_write and re.search(nxt, console(a.serial)):
                what = f"after {name} (the write was over before it was seen)"
                break
            if not alive(pid):
                return 1
            time.sleep(0.002)
    if not alive(pid):
        return 1
    os.kill(pid, signal.SIGKILL)
    # Once QEMU is gone nothing changes on the image: this is the state at the cut.
    time.sleep(0.2)
    print(f"cut: {what} at {time.monotonic() - t0:.2f} s; dirty={dirty(a.image)}; "
          f"console: {last_step_line(console(a.serial))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
