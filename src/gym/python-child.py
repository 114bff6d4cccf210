"""Runs a Python server for `ngym run` (src/gym/launcher.ts): `python python-child.py <entrypoint>` runs the
entrypoint as `python <entrypoint>` would (as __main__, its folder first on sys.path), and ends the server's
process group when `ngym run` goes away, however it goes (SIGKILL included).

A Python server has no IPC channel to notice its parent's death by. ngym run holds the only write end of this
process's stdin and never writes to it: once ngym run is gone, the pipe reads EOF. The server's own stdin is
/dev/null, so neither it nor anything it starts can take that pipe's input.
"""

import os
import runpy
import signal
import sys
import threading


def end_with_parent(pipe: int) -> None:
    try:
        while os.read(pipe, 4096):
            pass
    except OSError:
        pass
    # ngym run starts this process as the leader of its own group: the group is the server and what it started.
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: python-child.py <entrypoint> [args...]")
    entrypoint = os.path.abspath(sys.argv[1])
    pipe = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    threading.Thread(target=end_with_parent, args=(pipe,), name="ngym-parent-watch", daemon=True).start()
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(entrypoint)
    runpy.run_path(entrypoint, run_name="__main__")


main()
