#!/usr/bin/env python3
"""Drives `mirror drill` in a pseudo-terminal as a person would: at each card it reads the
line printed above the prompt; a card seen for the first time is answered with `?` (the
answer is then shown), a card seen again with the move the drill showed for it.

Usage: drill_pty.py MIRROR ARGS...
Prints JSON: {"asked": [[line, answer], ...], "summary": the last line, "exit": status}.
"""
import json
import os
import pty
import re
import select
import sys

PROMPT = b"your move> "


def main():
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(sys.argv[1], sys.argv[1:])
    out = b""
    seen = 0
    known = {}
    asked = []
    current = None
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            raise SystemExit("mirror drill said nothing for 60 s")
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        out += chunk
        if not out.endswith(PROMPT):
            continue
        text = out[seen:].decode("utf-8", "replace").replace("\r", "")
        seen = len(out)
        if current is not None:
            m = re.search(r"No\. The move here: (\S+?):", text)
            if m:
                known[current] = m.group(1)
        lines = re.findall(r"\n([^\n]*?)(?:  \(new card\))?\n[^\n]*reached this position", text)
        current = lines[-1].strip()
        answer = known.get(current, "?")
        asked.append([current, answer])
        os.write(fd, (answer + "\n").encode())
    _, status = os.waitpid(pid, 0)
    text = out.decode("utf-8", "replace").replace("\r", "")
    last = [l for l in text.split("\n") if l.strip()][-1]
    print(json.dumps({"asked": asked, "summary": last, "exit": os.waitstatus_to_exitcode(status)}))


if __name__ == "__main__":
    main()
