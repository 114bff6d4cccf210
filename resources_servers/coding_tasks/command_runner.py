"""Runs one command in the sandbox's work directory, then reports it and the directory's files.

argv: timeout_seconds, then the command. The command's output is captured here (stdout and stderr
interleaved), so the run's own stdout carries only the report: one JSON line with the exit code, whether the
command timed out, its output (base64) and every regular file left in the directory (base64, with its mode),
which the host copies back into the rollout's workspace. Links and caches are left out.
"""

import base64
import json
import os
import signal
import subprocess
import sys

SKIPPED_DIRECTORIES = {"__pycache__", ".pytest_cache", "node_modules"}


def run(timeout, command):
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        output, _ = process.communicate(timeout=timeout)
        return process.returncode, False, output
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return None, True, output


def files():
    found = []
    for root, directories, names in os.walk(".", followlinks=False):
        directories[:] = sorted(name for name in directories if name not in SKIPPED_DIRECTORIES)
        for name in sorted(names):
            path = os.path.join(root, name)
            stats = os.lstat(path)
            if not os.path.isfile(path) or os.path.islink(path):
                continue
            with open(path, "rb") as handle:
                content = base64.b64encode(handle.read()).decode("ascii")
            found.append({"path": os.path.relpath(path, "."), "content": content, "mode": stats.st_mode & 0o755})
    return found


def main():
    exit_code, timed_out, output = run(float(sys.argv[1]), sys.argv[2:])
    report = {
        "exit_code": exit_code,
        "timed_out": timed_out,
        "output": base64.b64encode(output).decode("ascii"),
        "files": files(),
    }
    sys.stdout.write("\n" + json.dumps(report) + "\n")


main()
