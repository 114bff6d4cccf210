# math_with_code's Python for one rollout. It runs inside the rollout's sandbox box and keeps its variables
# between calls, as upstream's per-session worker does: one JSON request {"code": ...} per line on stdin,
# one JSON answer per line on its own channel, {"ok": true, "out", "err", "res"} or {"ok": false, "error"}.
#
# Upstream's rules, which the answers depend on: the code runs with a small set of builtins (so `sorted`,
# `round`, `class` statements... are NameErrors) plus numpy, scipy and pandas bound as np/numpy, scipy,
# pd/pandas; globals and locals are separate dicts kept across calls; stdout and stderr are captured; a
# SIGALRM of max_execution_time seconds raises TimeoutError("code timed-out"); `res` is str() of the last
# line evaluated again when it looks like an expression.
import io
import json
import os
import signal
import sys
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import scipy

TIMEOUT = int(sys.argv[1])
NOT_EXPRESSIONS = ("print", "import", "from", "def", "class", "if", "for", "while", "try", "with")

BUILTINS = {
    "print": print,
    "len": len,
    "str": str,
    "int": int,
    "float": float,
    "list": list,
    "dict": dict,
    "tuple": tuple,
    "set": set,
    "min": min,
    "max": max,
    "sum": sum,
    "abs": abs,
    "range": range,
    "enumerate": enumerate,
    "zip": zip,
    "__import__": __import__,
}


def on_alarm(signum, frame):
    raise TimeoutError("code timed-out")


def last_expression_value(code, globals_dict, locals_dict):
    lines = code.strip().split("\n")
    last = lines[-1].strip()
    if last.startswith(NOT_EXPRESSIONS):
        return None
    try:
        return str(eval(last, globals_dict, locals_dict))
    except Exception:
        return None


def execute(code, globals_dict, locals_dict):
    stdout, stderr = io.StringIO(), io.StringIO()
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TIMEOUT)
    try:
        with redirect_stdout(stdout), redirect_stderr(stderr):
            exec(code, globals_dict, locals_dict)
            result = last_expression_value(code, globals_dict, locals_dict)
    finally:
        signal.alarm(0)
    return stdout.getvalue(), stderr.getvalue(), result


def main():
    # Answers go to a copy of fd 1; fd 1 itself becomes /dev/null, so what the code writes past its
    # captured sys.stdout cannot garble the answers.
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    globals_dict = {"__builtins__": BUILTINS, "np": np, "numpy": np, "scipy": scipy, "pd": pd, "pandas": pd}
    locals_dict = {}
    for line in sys.stdin:
        code = json.loads(line)["code"]
        try:
            out, err, res = execute(code, globals_dict, locals_dict)
            answer = {"ok": True, "out": out, "err": err, "res": res}
        except Exception as error:
            answer = {"ok": False, "error": str(error)}
        channel.write(json.dumps(answer) + "\n")
        channel.flush()


main()
