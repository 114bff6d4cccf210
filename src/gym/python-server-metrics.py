"""Prometheus `GET /metrics` for a Python server under `ngym run`: python-child.py loads this module by path and wraps
the ASGI app the server hands to uvicorn.run in `ServerMetrics`.

It serves what ngym's TypeScript servers serve (src/telemetry/server-metrics.ts), with the same names, labels and
help texts: requests in flight, time to answer per route, method and status, failures by kind, waits for memory
(with a `memory_budget`), and the process's resident memory, CPU time and open files. The asyncio loop's delay takes
the names of prom-client's event-loop metrics with `python_` for `nodejs_`. The text format is written here because a
server's own environment need not have prometheus_client.

An app that answers `GET /metrics` itself keeps it: the scrape goes to the app first, and only a 404 from it is
replaced by these metrics. With ngym run's `auth_token`, these metrics need it as every route of an ngym server but
`GET /` does.
"""

import asyncio
import bisect
import collections
import hashlib
import hmac
import json
import math
import os
import time

METRICS_PATH = "/metrics"
CONTENT_TYPE = b"text/plain; version=0.0.4; charset=utf-8"
ERROR_CODE_HEADER = b"x-ngym-error-code"
AUTH_TOKEN_KEY = "auth_token"

# Seconds, as server-metrics.ts has them: the same `le` labels let one query span both kinds of server.
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 300, 900, 3600)

# How often the loop's delay is sampled. Node's is every 10 ms, but an asyncio timer costs far more than libuv's: at
# 10 ms an idle server spent 1.5% of a core on it, at 100 ms nothing measurable (0.2% with or without).
LAG_SAMPLE_SECONDS = 0.1
# Delays kept between two scrapes (a minute's worth); the oldest go first when nobody scrapes.
LAG_SAMPLES_KEPT = 600

# What nginx answers for a request whose caller hung up before any answer; uvicorn sends nothing then.
CALLER_GONE_STATUS = 499

# When this module loads, which python-child.py does first thing: the process's start, near enough.
STARTED_AT = time.time()


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def number(value: float) -> str:
    """A sample value or `le` label as JavaScript writes it (prom-client): `1`, not `1.0`, so the labels match."""
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(float(value))


def escaped(text: str, quotes: bool) -> str:
    """A label value (`quotes`) or help text as the format wants them: backslash, newline (and `"`) escaped."""
    text = text.replace("\\", "\\\\").replace("\n", "\\n")
    return text.replace('"', '\\"') if quotes else text


def labels(pairs) -> str:
    return "{" + ",".join(f'{name}="{escaped(str(value), quotes=True)}"' for name, value in pairs) + "}" if pairs else ""


class Exposition:
    """Prometheus' text format (version 0.0.4), one metric family after another."""

    def __init__(self):
        self.lines = []

    def family(self, name: str, kind: str, help_text: str, samples) -> None:
        """`samples`: (name suffix, label pairs, value) for each line."""
        self.lines.append(f"# HELP {name} {escaped(help_text, quotes=False)}")
        self.lines.append(f"# TYPE {name} {kind}")
        for suffix, pairs, value in samples:
            self.lines.append(f"{name}{suffix}{labels(pairs)} {number(value)}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


class RequestMetrics:
    """The HTTP metrics: requests in flight by method, a histogram of durations by method, route and status, and
    failures by route and kind."""

    def __init__(self):
        self.in_flight = {}
        # (method, route, status) -> [count per bucket (not cumulative), count past the last bucket, sum]
        self.durations = {}
        self.failures = collections.Counter()

    def started(self, method: str) -> None:
        self.in_flight[method] = self.in_flight.get(method, 0) + 1

    def finished(self, method: str, route: str, status: int, error_type, seconds: float) -> None:
        self.in_flight[method] -= 1
        series = self.durations.get((method, route, status))
        if series is None:
            series = self.durations[(method, route, status)] = [0] * (len(DURATION_BUCKETS) + 1) + [0.0]
        series[bisect.bisect_left(DURATION_BUCKETS, seconds)] += 1
        series[-1] += seconds
        if status >= 400:
            self.failures[(route, error_type or str(status))] += 1

    def write(self, exposition: Exposition) -> None:
        exposition.family(
            "http_server_active_requests",
            "gauge",
            "Requests this server is answering now.",
            [("", [("http_request_method", method)], count) for method, count in self.in_flight.items()],
        )
        samples = []
        for (method, route, status), series in self.durations.items():
            pairs = [("http_request_method", method), ("http_route", route), ("http_response_status_code", status)]
            cumulative = 0
            for bound, count in zip(DURATION_BUCKETS + (math.inf,), series[:-1]):
                cumulative += count
                samples.append(("_bucket", [("le", number(bound))] + pairs, cumulative))
            samples.append(("_sum", pairs, series[-1]))
            samples.append(("_count", pairs, cumulative))
        exposition.family(
            "http_server_request_duration_seconds", "histogram", "Time to answer a request, by route, method and status.", samples
        )
        exposition.family(
            "gym_server_request_failures_total",
            "counter",
            "Requests answered with an error status, by route and kind (the x-ngym-error-code answered, else the status).",
            [("", [("http_route", route), ("error_type", kind)], count) for (route, kind), count in self.failures.items()],
        )


class LoopDelay:
    """The asyncio loop's delay, as prom-client measures Node's: how late a timer set every LAG_SAMPLE_SECONDS fires
    (the window's statistics, cleared at each scrape) and how long a callback queued at the scrape waits to run."""

    def __init__(self):
        self.delays = collections.deque(maxlen=LAG_SAMPLES_KEPT)
        self.due = None
        self.task = None

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self.sample(), name="ngym-loop-delay")

    async def sample(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self.due = loop.time() + LAG_SAMPLE_SECONDS
            await asyncio.sleep(LAG_SAMPLE_SECONDS)
            self.delays.append(max(0.0, loop.time() - self.due))

    async def write(self, exposition: Exposition) -> None:
        loop = asyncio.get_running_loop()
        queued = loop.time()
        await asyncio.sleep(0)
        lag = loop.time() - queued
        delays = list(self.delays)
        self.delays.clear()
        # A timer still waiting past its time: a loop blocked until this scrape shows in this scrape.
        if self.due is not None and loop.time() > self.due:
            delays.append(loop.time() - self.due)
        delays.sort()
        mean = sum(delays) / len(delays) if delays else 0.0
        stddev = math.sqrt(sum((delay - mean) ** 2 for delay in delays) / len(delays)) if delays else 0.0

        def percentile(fraction: float) -> float:
            return delays[min(len(delays) - 1, math.ceil(fraction * len(delays)) - 1)] if delays else 0.0

        for suffix, help_text, value in (
            ("", "Lag of event loop in seconds.", lag),
            ("_min", "The minimum recorded event loop delay.", delays[0] if delays else 0.0),
            ("_max", "The maximum recorded event loop delay.", delays[-1] if delays else 0.0),
            ("_mean", "The mean of the recorded event loop delays.", mean),
            ("_stddev", "The standard deviation of the recorded event loop delays.", stddev),
            ("_p50", "The 50th percentile of the recorded event loop delays.", percentile(0.5)),
            ("_p90", "The 90th percentile of the recorded event loop delays.", percentile(0.9)),
            ("_p99", "The 99th percentile of the recorded event loop delays.", percentile(0.99)),
        ):
            exposition.family(f"python_eventloop_lag{suffix}_seconds", "gauge", help_text, [("", [], value)])


def write_process_metrics(exposition: Exposition) -> None:
    times = os.times()
    exposition.family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", [("", [], times.user + times.system)])
    exposition.family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", [("", [], round(STARTED_AT))])
    # /proc is Linux's: elsewhere these two are left out.
    for name, help_text, read in (
        ("process_resident_memory_bytes", "Resident memory size in bytes.", resident_bytes),
        ("process_open_fds", "Number of open file descriptors.", open_files),
    ):
        try:
            value = read()
        except OSError:
            continue
        exposition.family(name, "gauge", help_text, [("", [], value)])


def write_admission_metrics(exposition: Exposition, admission) -> None:
    exposition.family(
        "gym_admission_waits_total",
        "counter",
        "Requests that had to wait before starting because this server was over its memory_budget.",
        [("", [], admission.waits)],
    )
    exposition.family(
        "gym_admission_waiting", "gauge", "Requests waiting now for this server to fall under its memory_budget.", [("", [], admission.waiting)]
    )


def header_of(headers, name: bytes) -> bytes:
    """A header's value from ASGI's (name, value) pairs; b"" when absent."""
    for key, value in headers:
        if key.lower() == name:
            return value
    return b""


def route_of(scope) -> str:
    """The matched route's template (`/items/{item_id}`): Starlette, so FastAPI, puts it in the scope. '' when none."""
    route = scope.get("route")
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    return template if isinstance(template, str) else ""


class ServerMetrics:
    """ASGI middleware: measures every HTTP request, and answers `GET /metrics` when the app does not. `admission`:
    python-child.py's MemoryAdmission inside it, when the server has a memory_budget."""

    def __init__(self, app, auth_token=None, admission=None):
        self.app = app
        self.admission = admission
        self.token_digest = None if auth_token is None else hashlib.sha256(auth_token.encode()).digest()
        self.requests = RequestMetrics()
        self.loop_delay = LoopDelay()

    async def __call__(self, scope, receive, send):
        # The first call (the lifespan's, else a request's) is the first moment the server's loop runs.
        self.loop_delay.start()
        if scope.get("type") != "http":
            return await self.app(scope, receive, send)
        method = scope["method"]
        started = time.perf_counter()
        answer = {"status": None, "error_type": None, "caller_gone": False}

        async def observed_receive():
            message = await receive()
            if message["type"] == "http.disconnect":
                answer["caller_gone"] = True
            return message

        async def observed_send(message):
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                if message["status"] >= 400:
                    answer["error_type"] = header_of(message.get("headers", ()), ERROR_CODE_HEADER).decode() or None
            await send(message)

        self.requests.started(method)
        route = None
        try:
            if method == "GET" and scope.get("path") == METRICS_PATH:
                if await self.scrape(scope, observed_receive, observed_send):
                    route = METRICS_PATH
            else:
                await self.app(scope, observed_receive, observed_send)
        finally:
            status = answer["status"]
            if status is None:
                # uvicorn answers 500 to an app that ended without answering, unless the caller is gone.
                status = CALLER_GONE_STATUS if answer["caller_gone"] else 500
            route = route_of(scope) if route is None else route
            self.requests.finished(method, route, status, answer["error_type"], time.perf_counter() - started)

    async def scrape(self, scope, receive, send) -> bool:
        """Answers the app's own `GET /metrics` if it has one, else these metrics; True when these were served."""
        declined = False

        async def send_unless_declined(message):
            nonlocal declined
            if message["type"] == "http.response.start" and message["status"] == 404:
                declined = True
            if not declined:
                await send(message)

        await self.app(scope, receive, send_unless_declined)
        if not declined:
            return False
        refusal = self.refusal(scope)
        if refusal is not None:
            body = json.dumps({"detail": refusal}).encode()
            headers = [(b"content-type", b"application/json"), (ERROR_CODE_HEADER, b"NGYM_UNAUTHORIZED"), (b"www-authenticate", b"Bearer")]
            await respond(send, 401, headers, body)
            return True
        exposition = Exposition()
        self.requests.write(exposition)
        if self.admission is not None:
            write_admission_metrics(exposition, self.admission)
        await self.loop_delay.write(exposition)
        write_process_metrics(exposition)
        await respond(send, 200, [(b"content-type", CONTENT_TYPE)], exposition.text().encode())
        return True

    def refusal(self, scope):
        """Why the scrape is refused (src/server/auth.ts's rule and words), or None. Digests compare in constant time."""
        if self.token_digest is None:
            return None
        header = header_of(scope.get("headers", ()), b"authorization").decode("latin-1")
        sent = header[7:] if header.startswith("Bearer ") else ""
        if hmac.compare_digest(hashlib.sha256(sent.encode()).digest(), self.token_digest):
            return None
        if header == "":
            return (
                f"This server requires a bearer token: send 'Authorization: Bearer <{AUTH_TOKEN_KEY}>' "
                f"(the {AUTH_TOKEN_KEY} that `ngym run` was given or printed)."
            )
        return f"The bearer token sent is not this server's {AUTH_TOKEN_KEY}."


async def respond(send, status: int, headers, body: bytes) -> None:
    headers = headers + [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
