"""Runs a Python server for `ngym run` (src/gym/launcher.ts): `python python-child.py <entrypoint>` runs the
entrypoint as `python <entrypoint>` would (as __main__, its folder first on sys.path), and ends the server's
process group when `ngym run` goes away, however it goes (SIGKILL included). The app the server hands to
uvicorn.run serves Prometheus `GET /metrics` (python-server-metrics.py; not with NGYM_SERVER_METRICS=0, which is
`telemetry.metrics_enabled: false`) and, with NGYM_MEMORY_BUDGET_BYTES set (the entry's `memory_budget`), admits
requests that bring work by the rules ngym's own servers follow (src/util/memory-gate.ts), which keep its peak
memory under that budget.

A Python server has no IPC channel to notice its parent's death by. ngym run holds the only write end of this
process's stdin and never writes to it: once ngym run is gone, the pipe reads EOF. The server's own stdin is
/dev/null, so neither it nor anything it starts can take that pipe's input.
"""

import asyncio
import collections
import gc
import importlib.util
import math
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


# Admission by memory follows src/util/memory-gate.ts rule for rule, with its constants and its order of checks, so
# that a Python server under `ngym run` stays under its budget as ngym's own servers do: its header says why each
# rule is there, and a change to one belongs in the other. Times are in milliseconds, as there.
POLL_MS = 25
# Reading /proc/self/statm costs some 15 µs: far under the budget a reading this recent is reused.
READING_MS = 5
INITIAL_WINDOW = 1
PER_PIECE_HALF_LIFE_MS = 2_000
# A request started this recently may not have allocated yet: readings are not trusted to show it.
SETTLE_MS = 100
# A request starts only if this many requests' worth fits on top of the projection: itself and a spare, for what
# the allocator keeps, which no reading attributes in time.
HEADROOM_PIECES = 2
COLLECT_EVERY_MS = 1000
# Kinds of work (method and path) told apart; past this many (a client inventing paths), the rest share one.
MAX_KINDS = 32
SHARED_KIND = "(other kinds)"


def now_ms() -> float:
    return time.monotonic() * 1000


class WorkKind:
    """memory-gate.ts's WorkKind: what the gate knows of one kind of request, whose memory may differ from another's
    (a session seed takes next to nothing, a verify may take much)."""

    def __init__(self):
        self.in_flight = 0
        # What one request in flight is expected to hold (the decaying most seen), and when that was last updated.
        self.per_piece = 0.0
        self.per_piece_at = -math.inf
        # Whether a request of this kind could have shown its memory (one was in flight SETTLE_MS with a reading
        # taken, or one ended): until then this kind's requests go one at a time.
        self.calibrated = False
        # When the requests started in the last SETTLE_MS started, oldest first.
        self.recent_starts = collections.deque()

    def observe(self, size: float, now: float) -> None:
        decayed = self.per_piece * 0.5 ** ((now - self.per_piece_at) / PER_PIECE_HALF_LIFE_MS)
        self.per_piece = max(size, decayed)
        self.per_piece_at = now

    def start(self, now: float) -> None:
        self.in_flight += 1
        self.trim(now)
        self.recent_starts.append(now)

    def unsettled(self, now: float) -> int:
        """Requests in flight started in the last SETTLE_MS: too recent to show in a reading."""
        self.trim(now)
        return min(self.in_flight, len(self.recent_starts))

    def trim(self, now: float) -> None:
        while self.recent_starts and self.recent_starts[0] <= now - SETTLE_MS:
            self.recent_starts.popleft()


class MemoryGate:
    """memory-gate.ts's MemoryGate: a request starts only if two requests of its kind fit under `budget` on top
    of what is projected (and, near the budget, within the window); else it waits, in arrival order, for a place.
    Everything runs on the server's event loop, so nothing here needs a lock."""

    def __init__(self, budget: int):
        self.budget = budget
        self.waiters = collections.deque()
        self.in_flight = 0
        self.window = INITIAL_WINDOW
        self.went_over = False
        self.halved = False
        self.reading = 0
        self.read_at = -math.inf
        self.collected_at = -math.inf
        self.timer = None
        self.holding = False
        self.held_since = -math.inf
        # The lowest reading with nothing in flight: what the process holds without work.
        self.idle = math.inf
        self.kinds = {}
        # Requests that had to wait (read by /metrics).
        self.waits = 0

    def admit(self, kind: str = ""):
        """None when the request may start now; else a future of True once it may (call release() with the same
        kind when it ends either way), or of False once drop() took it out of the queue."""
        work_kind = self.kind_named(kind)
        if not self.waiters and self.has_room(self.read(self.near_budget()), work_kind):
            self.start(work_kind)
            return None
        self.waits += 1
        waiter = asyncio.get_running_loop().create_future()
        self.waiters.append((waiter, work_kind))
        self.schedule()
        return waiter

    def drop(self, waiter) -> None:
        """A waiter that no longer wants to start (its caller hung up): out of the queue, never counted in flight."""
        for entry in self.waiters:
            if entry[0] is waiter:
                self.waiters.remove(entry)
                waiter.set_result(False)
                return

    def kind_named(self, name: str) -> WorkKind:
        kind = self.kinds.get(name)
        if kind is None:
            if len(self.kinds) >= MAX_KINDS:
                return self.kind_named(SHARED_KIND)
            kind = self.kinds[name] = WorkKind()
        return kind

    def shrink_in_flight(self, kind: WorkKind) -> None:
        # Only a full window grows; it doubles per window's worth until memory first went over, then grows by one.
        full = self.in_flight >= math.floor(self.window)
        self.in_flight = max(0, self.in_flight - 1)
        kind.in_flight = max(0, kind.in_flight - 1)
        kind.calibrated = True
        if not full or self.read(False) >= self.budget:
            return
        self.window += 1 / self.window if self.went_over else 1

    def release(self, kind: str = "") -> None:
        self.shrink_in_flight(self.kind_named(kind))
        if self.waiters and self.has_room(self.read(self.near_budget()), self.waiters[0][1]):
            self.admit_next()

    def near_budget(self) -> bool:
        """Past half the budget every admission reads afresh: a reused reading misses what was admitted since."""
        return self.reading >= self.budget / 2

    def read(self, fresh: bool) -> int:
        now = now_ms()
        if fresh or now - self.read_at >= READING_MS:
            self.reading = resident_bytes()
            self.read_at = now
            if self.in_flight == 0:
                self.idle = min(self.idle, self.reading)
            else:
                self.observe(now)
        return self.reading

    def observe(self, now: float) -> None:
        """What the reading says each kind in flight holds per request: the memory over the idle baseline spread
        over the requests that have had time to show theirs, or over all in flight for a kind none of whose have."""
        busy = [kind for kind in self.kinds.values() if kind.in_flight > 0]
        settled = sum(kind.in_flight - kind.unsettled(now) for kind in busy)
        above = max(0, self.reading - self.idle)
        for kind in busy:
            shown = kind.in_flight > kind.unsettled(now)
            if shown:
                kind.calibrated = True
            if math.isfinite(self.idle):
                kind.observe(above / settled if shown else above / self.in_flight, now)

    def projected(self, resident: int) -> float:
        """Memory once the requests in flight hold what they are expected to: the reading plus those too recent to
        show in it, or the idle memory plus all of them, whichever is more."""
        now = now_ms()
        unsettled_bytes = 0.0
        in_flight_bytes = 0.0
        for kind in self.kinds.values():
            if kind.in_flight > 0:
                unsettled_bytes += kind.unsettled(now) * kind.per_piece
                in_flight_bytes += kind.in_flight * kind.per_piece
        from_reading = resident + unsettled_bytes
        return max(from_reading, self.idle + in_flight_bytes) if math.isfinite(self.idle) else from_reading

    def has_room(self, resident: int, kind: WorkKind) -> bool:
        if resident >= self.budget:
            # Halved once per time over, as TCP halves once per loss.
            if not self.halved:
                self.window = max(1, min(self.window, self.in_flight // 2))
            self.halved = True
            self.went_over = True
            return False
        self.halved = False
        # With nothing in flight one request always goes: the estimate alone must never stop work for good.
        if self.in_flight > 0 and ((kind.in_flight > 0 and not kind.calibrated) or self.projected(resident) + HEADROOM_PIECES * kind.per_piece >= self.budget):
            return False
        return resident < self.budget / 2 or self.in_flight < math.floor(self.window)

    def schedule(self) -> None:
        if self.timer is None:
            self.timer = asyncio.get_running_loop().call_later(POLL_MS / 1000, self.admit_waiting)

    def admit_waiting(self) -> None:
        self.timer = None
        resident = self.read(True)
        if resident >= self.budget and now_ms() - self.collected_at >= COLLECT_EVERY_MS:
            self.collected_at = now_ms()
            # Reference counting frees most objects at once; what is held in reference cycles waits for this.
            gc.collect()
            resident = self.read(True)
        self.hold(resident >= self.budget, resident)
        # Still over with nothing in flight after a collection since the hold began: what is held is no request's
        # (memory the allocator keeps, or a leak). One request at a time goes on, so work never stops for good.
        if self.holding and self.in_flight == 0 and self.collected_at > self.held_since:
            self.admit_next()
        while self.waiters and self.has_room(resident, self.waiters[0][1]):
            self.admit_next()
        if self.waiters:
            self.schedule()
        else:
            self.hold(False, resident)

    def start(self, kind: WorkKind) -> None:
        self.in_flight += 1
        kind.start(now_ms())

    def admit_next(self) -> None:
        if self.waiters:
            waiter, kind = self.waiters.popleft()
            self.start(kind)
            waiter.set_result(True)

    def hold(self, holding: bool, resident: int) -> None:
        if holding == self.holding:
            return
        self.holding = holding
        self.held_since = now_ms()
        if holding:
            print(
                f"Over its memory_budget ({resident / 2**20:.0f} MiB resident, memory_budget {self.budget / 2**20:.0f} MiB): "
                "new requests wait until memory falls.",
                file=sys.stderr,
                flush=True,
            )
        else:
            print(f"Back under its memory_budget ({resident / 2**20:.0f} MiB resident): admitting requests again.", file=sys.stderr, flush=True)


class MemoryAdmission:
    """ASGI middleware, as src/server/admission.ts is for ngym's servers: a request other than GET or HEAD starts
    when the gate admits it, and holds its place until the app returns, which is once the response has been sent in
    full (a streamed body included). Nothing is refused; a request whose caller hangs up while it waits is dropped."""

    def __init__(self, app, budget: int):
        self.app = app
        self.gate = MemoryGate(budget)

    # Read by /metrics: requests that had to wait, and those waiting now.
    @property
    def waits(self) -> int:
        return self.gate.waits

    @property
    def waiting(self) -> int:
        return len(self.gate.waiters)

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http" or scope.get("method") in ("GET", "HEAD"):
            return await self.app(scope, receive, send)
        # Each route is its own kind of work: what a request holds depends on what it does.
        kind = f"{scope.get('method')} {scope.get('path')}"
        waiter = self.gate.admit(kind)
        try:
            if waiter is not None:
                received = []
                if not await self.admitted(waiter, receive, received):
                    return
                receive = replaying(received, receive)
            return await self.app(scope, receive, send)
        finally:
            if waiter is None or waiter.result():
                self.gate.release(kind)

    async def admitted(self, waiter, receive, received) -> bool:
        """Waits for the gate, reading the request meanwhile (its body is held while it waits): uvicorn tells of a
        caller hanging up only through receive(). What is read goes into `received`, for the app. False when the
        caller hung up first."""
        listening = asyncio.ensure_future(read_until_gone(receive, received))
        try:
            await asyncio.wait((waiter, listening), return_when=asyncio.FIRST_COMPLETED)
        finally:
            listening.cancel()
            # The caller hung up, or the server is stopping (this task cancelled): nobody is left to answer.
            self.gate.drop(waiter)
        # Over before the app reads the request itself: one reader at a time.
        await asyncio.wait((listening,))
        return waiter.result()


async def read_until_gone(receive, received) -> None:
    """Reads the request's messages into `received` until the caller hangs up (once the body is in, uvicorn's
    receive() waits for that)."""
    while True:
        message = await receive()
        received.append(message)
        if message["type"] == "http.disconnect":
            return


def replaying(received, receive):
    """A receive() that gives what was read while the request waited before what comes next."""

    async def replay():
        return received.pop(0) if received else await receive()

    return replay


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
            admission = MemoryAdmission(app, budget)
            # Read as the gate reads, with nothing in flight: also the first idle baseline.
            held = admission.gate.read(True)
            if held >= budget:
                sys.exit(
                    f"memory_budget: {budget / 2**20:.0f} MiB is below what this server holds before any work "
                    f"({held / 2**20:.0f} MiB resident): it could never admit anything. Raise it, or set it to null."
                )
            app = admission
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
