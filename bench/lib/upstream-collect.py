"""Upstream NeMo Gym's own `ng_collect_rollouts`, unchanged, with its per-rollout timings written out.

Usage: python upstream-collect.py <report.json> <ng_collect_rollouts arguments...>

The collector already times every /run it dispatches (DispatchLatencyTracker.record); this wrapper keeps those
durations, the first and last completion, and the process's CPU time between them, and writes them as JSON to
<report.json> when the collector exits. Its own start-up (imports, config parsing) is left out of every figure,
as the ngym side's collector process leaves out its own.
"""

import atexit
import json
import os
import signal
import sys
import time

from nemo_gym import rollout_collection, server_utils
from nemo_gym.cli.legacy import main

report_path = sys.argv.pop(1)
durations: list[float] = []
marks: dict[str, float] = {}
original_record = rollout_collection.DispatchLatencyTracker.record
original_post = server_utils.ServerClient.post


async def post(self, *args, **kwargs):
    # The first /run dispatched starts the clock and the CPU count.
    if kwargs.get("url_path") == "/run" and "first_start" not in marks:
        marks["first_start"] = time.monotonic()
        marks["cpu_at_first"] = time.process_time()
    return await original_post(self, *args, **kwargs)


def record(self, seconds: float) -> None:
    now = time.monotonic()
    if not durations:
        marks["first_completion"] = now
    marks["last_completion"] = now
    marks["cpu_at_last"] = time.process_time()
    durations.append(seconds)
    original_record(self, seconds)


def write_report() -> None:
    ordered = sorted(durations)
    pick = lambda fraction: ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000 if ordered else None
    wall = marks["last_completion"] - marks["first_start"] if durations else None
    with open(report_path, "w") as file:
        json.dump(
            {
                "completed": len(durations),
                "wallSeconds": wall,
                "firstCompletionSeconds": marks["first_completion"] - marks["first_start"] if durations else None,
                "cpuSeconds": marks["cpu_at_last"] - marks["cpu_at_first"] if durations else 0,
                "p50Ms": pick(0.5),
                "p99Ms": pick(0.99),
            },
            file,
        )


def write_report_and_exit(signum, _frame) -> None:
    # Stopped by the bench's timeout (upstream's collector can still be aggregating after its last rollout): the
    # completions so far are figures, not a loss.
    write_report()
    os._exit(128 + signum)


rollout_collection.DispatchLatencyTracker.record = record
server_utils.ServerClient.post = post
atexit.register(write_report)
signal.signal(signal.SIGTERM, write_report_and_exit)
sys.argv[0] = "ng_collect_rollouts"
main()
