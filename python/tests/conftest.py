"""Shared pieces of the Python interop suite: the repository's paths, and `ngym run` as a subprocess.

The suite runs upstream NeMo Gym 0.7.0's own Python code (installed by `npm run setup:python`) against ngym's
servers. `ngym run` is started with the head server on a free port; a test talks to it the way a trainer does.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[2]
NGYM = [shutil.which("node") or "node", str(REPO / "bin" / "ngym.js")]
START_TIMEOUT_S = 120


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class Gym:
    """A running `ngym run`: its head server port and everything it printed."""

    def __init__(self, process: subprocess.Popen, head_port: int, output: list[str]):
        self.process = process
        self.head_port = head_port
        self.output = output

    def stop(self) -> int:
        self.process.terminate()
        try:
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def output_lines(process: subprocess.Popen) -> "queue.Queue[str | None]":
    """The lines a process prints (stdout, with stderr merged into it), as they come; None when it has ended."""
    lines: "queue.Queue[str | None]" = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


@contextmanager
def ngym_run(*args: str) -> Iterator[Gym]:
    """`ngym run <args>` until every server is ready; stopped (and checked to exit cleanly) afterwards."""
    process = subprocess.Popen(
        [*NGYM, "run", *args, "++head_server={host: 127.0.0.1, port: 0}"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = output_lines(process)
    output: list[str] = []
    head_port = None
    while True:
        try:
            line = lines.get(timeout=START_TIMEOUT_S)
        except queue.Empty:
            process.kill()
            raise RuntimeError("ngym run was not ready in time:\n" + "".join(output))
        if line is None:
            raise RuntimeError(f"ngym run exited (code {process.wait()}) before it was ready:\n" + "".join(output))
        output.append(line)
        if line.startswith("Head server: http://"):
            head_port = int(line.strip().rsplit(":", 1)[1])
        if "servers ready" in line and head_port is not None:
            break
    gym = Gym(process, head_port, output)
    try:
        yield gym
    finally:
        code = gym.stop()
        assert code == 0, f"ngym run exited with {code}:\n" + "".join(output[-40:])


def ngym_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """One `ngym <args>` run to completion."""
    return subprocess.run([*NGYM, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)


def agent_of(config: dict) -> str:
    """The one agent instance of an environment config."""
    agents = [name for name, entry in config.items() if isinstance(entry, dict) and "responses_api_agents" in entry]
    assert len(agents) == 1, f"the config has agents {agents}"
    return agents[0]


def bubblewrap_usable() -> bool:
    """Whether the sandboxed environments can run here (bwrap present and allowed to make namespaces)."""
    if shutil.which("bwrap") is None:
        return False
    probe = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-all", "true"], capture_output=True)
    return probe.returncode == 0


os.environ.setdefault("NO_COLOR", "1")
