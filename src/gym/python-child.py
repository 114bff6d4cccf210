"""Runs a Python server for `ngym run` (src/gym/launcher.ts): `python python-child.py <entrypoint>` runs the
entrypoint as `python <entrypoint>` would (as __main__, its folder first on sys.path), and ends the server's
process group when `ngym run` goes away, however it goes (SIGKILL included). The app the server hands to
uvicorn.run serves Prometheus `GET /metrics` (python-server-metrics.py; not with NGYM_SERVER_METRICS=0, which is
`telemetry.metrics_enabled: false`) and, with NGYM_MEMORY_BUDGET_BYTES set (the entry's `memory_budget`), admits
requests that bring work only while the process is under it.

A Python server has no IPC channel to notice its parent's death by. ngym run holds the only write end of this
process's stdin and never writes to it: once ngym run is gone, the pipe reads EOF. The server's own stdin is
/dev/null, so neither it nor anything it starts can take that pipe's input.
"""

import asyncio
import gc
import importlib.util
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


def load_sibling(filename: str):
    """A module beside this script, by path (this script runs as a file, not from a package). No bytecode is written
    beside it: the folder may be an installed package's."""
    spec = importlib.util.spec_from_file_location("ngym_" + filename[:-3].replace("-", "_"), os.path.join(os.path.dirname(os.path.abspath(__file__)), filename))
    module = importlib.util.module_from_spec(spec)
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes_bytecode
    return module


server_metrics = load_sibling("python-server-metrics.py")
resident_bytes = server_metrics.resident_bytes


class MemoryAdmission:
    """ASGI middleware: a request other than GET or HEAD waits while the process holds `budget` bytes or more.
    Nothing is refused. With nothing in flight it goes on after a full collection, so work never stops for good
    (memory kept by the allocator, or a leak)."""

    def __init__(self, app, budget: int):
        self.app = app
        self.budget = budget
        self.in_flight = 0
        self.holding = False
        # Read by /metrics: requests that had to wait, and those waiting now.
        self.waits = 0
        self.waiting = 0

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http" or scope.get("method") in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        collected_at = 0.0
        resident = resident_bytes()
        if resident >= self.budget:
            if not self.holding:
                self.holding = True
                print(
                    f"Over its memory_budget ({resident / 2**20:.0f} MiB resident, memory_budget "
                    f"{self.budget / 2**20:.0f} MiB): new requests wait until memory falls.",
                    file=sys.stderr,
                    flush=True,
                )
            self.waits += 1
            self.waiting += 1
            try:
                while resident >= self.budget:
                    if time.monotonic() - collected_at >= 1.0:
                        gc.collect()
                        collected_at = time.monotonic()
                        if self.in_flight == 0:
                            break
                    await asyncio.sleep(0.025)
                    resident = resident_bytes()
            finally:
                self.waiting -= 1
        self.holding = False
        self.in_flight += 1
        try:
            return await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1


def wrap_served_app(budget, metrics: bool, auth_token) -> None:
    """Wraps the app the server hands to uvicorn.run (upstream's servers start that way): admission by memory inside,
    metrics outside, so that they count the time requests wait. A multi-worker server hands uvicorn.run an import
    string, which each worker process imports for itself: it is left alone."""
    try:
        import uvicorn
    except ImportError:
        if budget is not None:
            sys.exit("memory_budget: this server's Python has no uvicorn, and only an app run by uvicorn.run can be admitted by memory.")
        return

    run = uvicorn.run

    def run_wrapped(app, *args, **kwargs):
        if isinstance(app, str):
            if metrics:
                print(f"Serves no GET /metrics: uvicorn.run was given the import string {app!r} (several workers), not an app.", file=sys.stderr, flush=True)
            return run(app, *args, **kwargs)
        admission = None
        if budget is not None:
            held = resident_bytes()
            if held >= budget:
                sys.exit(
                    f"memory_budget: {budget / 2**20:.0f} MiB is below what this server holds before any work "
                    f"({held / 2**20:.0f} MiB resident): it could never admit anything. Raise it, or set it to null."
                )
            app = admission = MemoryAdmission(app, budget)
        if metrics:
            app = server_metrics.ServerMetrics(app, auth_token=auth_token, admission=admission)
        return run(app, *args, **kwargs)

    uvicorn.run = run_wrapped


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: python-child.py <entrypoint> [args...]")
    entrypoint = os.path.abspath(sys.argv[1])
    pipe = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    threading.Thread(target=end_with_parent, args=(pipe,), name="ngym-parent-watch", daemon=True).start()
    # ngym run's settings for this wrapper, kept from the server and what it starts.
    budget = os.environ.pop("NGYM_MEMORY_BUDGET_BYTES", "")
    metrics = os.environ.pop("NGYM_SERVER_METRICS", "1") != "0"
    auth_token = os.environ.pop("NGYM_AUTH_TOKEN", "") or None
    wrap_served_app(int(budget) if budget else None, metrics, auth_token)
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(entrypoint)
    runpy.run_path(entrypoint, run_name="__main__")


main()
