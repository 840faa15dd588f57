#!/usr/bin/env python3
"""serial_term.py SOCKET: a terminal on a guest's serial line (QEMU's unix
socket chardev), for tmux to show at 80x24 as a server's console would:
bytes from the guest to the terminal, keys from the terminal to the guest."""
import os
import select
import socket
import sys
import termios
import time
import tty

sock = socket.socket(socket.AF_UNIX)
for _ in range(100):
    try:
        sock.connect(sys.argv[1])
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("serial_term: no serial socket at " + sys.argv[1])
fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd) if os.isatty(fd) else None
if saved:
    tty.setraw(fd)
try:
    while True:
        ready, _, _ = select.select([sock, fd], [], [])
        if sock in ready:
            data = sock.recv(4096)
            if not data:
                break
            os.write(sys.stdout.fileno(), data)
        if fd in ready:
            data = os.read(fd, 1024)
            if not data:
                break
            sock.sendall(data)
finally:
    if saved:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
