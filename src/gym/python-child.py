"""Runs a Python server for `ngym run` (src/gym/launcher.ts): `python python-child.py <entrypoint>` runs the
entrypoint as `python <entrypoint>` would (as __main__, its folder first on sys.path), and ends the server's
process group when `ngym run` goes away, however it goes (SIGKILL included). With NGYM_MEMORY_BUDGET_BYTES set
(the entry's `memory_budget`), the server's app admits requests that bring work only while the process is under it.

A Python server has no IPC channel to notice its parent's death by. ngym run holds the only write end of this
process's stdin and never writes to it: once ngym run is gone, the pipe reads EOF. The server's own stdin is
/dev/null, so neither it nor anything it starts can take that pipe's input.
"""

import asyncio
import gc
import os
import runpy
import signal
import sys
import threading
import time


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


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class MemoryAdmission:
    """ASGI middleware: a request other than GET or HEAD waits while the process holds `budget` bytes or more.
    Nothing is refused. With nothing in flight it goes on after a full collection, so work never stops for good
    (memory kept by the allocator, or a leak)."""

    def __init__(self, app, budget: int):
        self.app = app
        self.budget = budget
        self.in_flight = 0
        self.holding = False

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http" or scope.get("method") in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        collected_at = 0.0
        resident = resident_bytes()
        if resident >= self.budget and not self.holding:
            self.holding = True
            print(
                f"Over its memory_budget ({resident / 2**20:.0f} MiB resident, memory_budget "
                f"{self.budget / 2**20:.0f} MiB): new requests wait until memory falls.",
                file=sys.stderr,
                flush=True,
            )
        while resident >= self.budget:
            if time.monotonic() - collected_at >= 1.0:
                gc.collect()
                collected_at = time.monotonic()
                if self.in_flight == 0:
                    break
            await asyncio.sleep(0.025)
            resident = resident_bytes()
        self.holding = False
        self.in_flight += 1
        try:
            return await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1


def admit_by_memory(budget: int) -> None:
    """Wraps the app the server hands to uvicorn.run (upstream's servers start that way; a multi-worker server
    hands it an import string, which is left alone)."""
    import uvicorn

    run = uvicorn.run

    def run_with_admission(app, *args, **kwargs):
        if not isinstance(app, str):
            held = resident_bytes()
            if held >= budget:
                sys.exit(
                    f"memory_budget: {budget / 2**20:.0f} MiB is below what this server holds before any work "
                    f"({held / 2**20:.0f} MiB resident): it could never admit anything. Raise it, or set it to null."
                )
            app = MemoryAdmission(app, budget)
        return run(app, *args, **kwargs)

    uvicorn.run = run_with_admission


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: python-child.py <entrypoint> [args...]")
    entrypoint = os.path.abspath(sys.argv[1])
    pipe = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    threading.Thread(target=end_with_parent, args=(pipe,), name="ngym-parent-watch", daemon=True).start()
    budget = os.environ.pop("NGYM_MEMORY_BUDGET_BYTES", "")
    if budget:
        admit_by_memory(int(budget))
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(entrypoint)
    runpy.run_path(entrypoint, run_name="__main__")


main()
