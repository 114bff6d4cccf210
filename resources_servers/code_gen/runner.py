# code_gen's test runner. It runs inside a sandbox box, next to the model's code (solution.py) and the
# test inputs (task.json: mode, inputs, fn_name, timeout). The expected outputs never enter the box: the
# runner only reports what the code did for each test, one JSON record per line on its own channel, and
# the server judges the records (app.ts, with comparator.py in a box of its own).
#
# It reproduces how upstream's LiveCodeBench harness presents a test to a solution, because rewards
# depend on it: stdin/stdout programs are wrapped into a function after a fixed block of imports and
# called once per test with sys.stdin, sys.stdin.buffer and open() serving the test input and sys.stdout
# captured; call-based solutions (a `fn_name`) are called with each test's JSON arguments. A SIGALRM of
# `timeout` seconds bounds the loading and each test. The same functions of os, shutil and subprocess are
# disabled as upstream disables them, so solutions that use them fail the same way.
import ast
import faulthandler
import json
import os
import signal
import sys
import time
import traceback
from io import BytesIO, StringIO, TextIOWrapper
from types import ModuleType
from unittest.mock import mock_open, patch

IMPORT_BLOCK = (
    "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\nfrom heapq import *\n"
    "from bisect import *\nfrom copy import *\nfrom math import *\nfrom random import *\nfrom statistics import *\n"
    "from itertools import *\nfrom functools import *\nfrom operator import *\nfrom io import *\nfrom sys import *\n"
    "from json import *\nfrom builtins import *\nfrom typing import *\nimport string\nimport re\nimport datetime\n"
    "import collections\nimport heapq\nimport bisect\nimport copy\nimport math\nimport random\nimport statistics\n"
    "import itertools\nimport functools\nimport operator\nimport io\nimport sys\nimport json\n"
    "sys.setrecursionlimit(50000)\nsys.set_int_max_str_digits(1 << 20)\n"
)
MEMORY_BYTES = 4 * 1024**3


def truncate(value, length=300):
    text = value if isinstance(value, str) else str(value)
    if len(text) <= length:
        return text
    return text[: length // 2] + "...(truncated) ..." + text[-length // 2 :]


class TimeoutException(Exception):
    pass


def on_alarm(signum, frame):
    raise TimeoutException


class Capture:
    """sys.stdout for one test: a text layer over bytes, read back as UTF-8 with replacement."""

    def __enter__(self):
        self.previous = sys.stdout
        self.raw = BytesIO()
        self.stream = TextIOWrapper(self.raw, encoding="utf-8", newline="", write_through=True)
        self.stream.close = lambda *args, **kwargs: None
        sys.stdout = self.stream
        return self

    def __exit__(self, *exc):
        self.stream.flush()
        self.text = self.raw.getvalue().decode("utf-8", errors="replace")
        sys.stdout = self.previous


class BufferStandIn:
    def __init__(self, text):
        self.data = BytesIO(text.encode("utf-8"))

    def read(self, *args):
        return self.data.read(*args)

    def readline(self, *args):
        return self.data.readline(*args)

    def readlines(self, *args):
        return self.data.readlines(*args)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.data)

    def __getattr__(self, name):
        return getattr(self.data, name)


class StdinStandIn:
    """read() is always the whole input, readlines() its '\\n'-split; readline and iteration consume it."""

    def __init__(self, text):
        self.text = text
        self.lines = StringIO(text)
        self.buffer = BufferStandIn(text)

    def read(self, *args):
        return self.text

    def readline(self, *args):
        return self.lines.readline(*args)

    def readlines(self, *args):
        return self.text.split("\n")

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.lines)

    def __getattr__(self, name):
        return getattr(self.lines, name)


def call_with_stdin(function, inputs):
    if isinstance(inputs, list):
        inputs = "\n".join(inputs)
    line_iterator = iter(inputs.split("\n"))
    stand_in = StdinStandIn(inputs)
    # Entered in this order, the last three patch the process's own sys.stdin object, before sys.stdin is
    # replaced: the solution sees the stand-in (only sys.__stdin__ keeps the patched methods).
    with patch("sys.stdin.read", lambda *args: inputs), patch("sys.stdin.readlines", lambda *args: inputs.split("\n")), patch(
        "sys.stdin.readline", lambda *args: next(line_iterator)
    ), patch("sys.stdin", stand_in), patch("builtins.open", mock_open(read_data=inputs)):
        try:
            return function()
        except SystemExit:
            pass


def inline_main_guard(code):
    """A last top-level `if __name__ == '__main__':` has its body moved to the top level."""
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            code = ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:
        pass
    return code


def wrap_in_function(code):
    """Top-level imports stay; every other statement becomes the body of wrapped_function()."""
    try:
        tree = ast.parse(code)
        imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
        others = [node for node in tree.body if not isinstance(node, (ast.Import, ast.ImportFrom))]
        arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
        extra = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
        function = ast.FunctionDef(name="wrapped_function", args=arguments, body=others, decorator_list=[], lineno=-1, **extra)
        return IMPORT_BLOCK + "\n" + ast.unparse(imports) + "\n" + ast.unparse(function)
    except Exception:
        return code


def load(code, timeout):
    signal.alarm(timeout)
    try:
        module = ModuleType("tmp_sol", "")
        exec(code, module.__dict__)
        # LeetCode-style solutions are methods of a class Solution.
        loaded = module.Solution() if "class Solution" in code else module
        assert loaded is not None
    finally:
        signal.alarm(0)
    return loaded


def encode(value, path=()):
    """A Python value as tagged JSON that the comparator rebuilds; anything else is opaque."""
    if id(value) in path:
        return ["O", type(value).__name__, "<cycle>"]
    if value is None:
        return ["N"]
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return ["B", bool(value)]
    if isinstance(value, int) or (hasattr(value, "__index__") and type(value).__module__ == "numpy"):
        return ["I", str(int(value))]
    if isinstance(value, float):
        return ["F", float.__repr__(float(value))]
    if isinstance(value, str):
        return ["S", str.__str__(value)]
    inner = path + (id(value),)
    for kind, cls in (("L", list), ("T", tuple), ("E", set), ("Z", frozenset)):
        if isinstance(value, cls):
            return [kind, [encode(item, inner) for item in value]]
    if isinstance(value, dict):
        return ["D", [[encode(key, inner), encode(item, inner)] for key, item in value.items()]]
    try:
        text = str(value)
    except Exception as error:
        text = f"<str() failed: {error!r}>"
    return ["O", type(value).__name__, text]


def failure(index, error, test_input):
    """The record of a test that raised: a time limit (an exception whose repr names TimeoutException, as
    upstream checks it) or a runtime error with its traceback."""
    if "timeoutexception" in repr(error).lower():
        return {"kind": "timeout", "index": index, "error": repr(error), "inputs": truncate(test_input)}
    return {"kind": "error", "index": index, "error": repr(error), "inputs": truncate(test_input), "traceback": traceback.format_exc()}


def run_stdio(code, inputs, timeout, report):
    code = wrap_in_function(inline_main_guard(code))
    loaded = load(code, timeout)
    try:
        function = getattr(loaded, "wrapped_function")
    except Exception:
        function = None
    if function is None:
        raise TypeError("cannot unpack non-iterable NoneType object")
    report({"kind": "ready"})
    for index, test_input in enumerate(inputs):
        signal.alarm(timeout)
        faulthandler.enable()
        signal.alarm(timeout)
        with Capture() as captured:
            try:
                started = time.time()
                call_with_stdin(function, test_input)
                seconds = time.time() - started
                signal.alarm(0)
            except Exception as error:
                signal.alarm(0)
                report(failure(index, error, test_input))
                return
            finally:
                signal.alarm(0)
                faulthandler.disable()
        report({"kind": "output", "index": index, "text": captured.text, "seconds": seconds, "inputs": truncate(test_input)})


def run_call(code, inputs, fn_name, timeout, report):
    loaded = load(IMPORT_BLOCK + "\n\n" + code, timeout)
    try:
        method = getattr(loaded, fn_name)
    except Exception:
        method = None
    if method is None:
        raise TypeError("cannot unpack non-iterable NoneType object")
    arguments = [[json.loads(line) for line in test_input.split("\n")] for test_input in inputs]
    report({"kind": "ready"})
    for index, args in enumerate(arguments):
        signal.alarm(timeout)
        faulthandler.enable()
        try:
            started = time.time()
            prediction = method(*args)
            seconds = time.time() - started
            signal.alarm(0)
            if isinstance(prediction, tuple):
                prediction = list(prediction)
            # `text` is how upstream prints the value in a wrong answer's metadata (its own str()).
            try:
                text = truncate(prediction)
            except Exception as error:
                text = f"<str() failed: {error!r}>"
            record = {"kind": "value", "index": index, "value": encode(prediction), "seconds": seconds, "inputs": truncate(args), "text": text}
            report(record)
        except Exception as error:
            signal.alarm(0)
            report(failure(index, error, args))
            return
        finally:
            signal.alarm(0)
            faulthandler.disable()


def raise_soft_limit(kind, target):
    import resource

    soft, hard = resource.getrlimit(kind)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(kind, (target if hard == resource.RLIM_INFINITY else min(target, hard), hard))
        except ValueError:
            pass


def disable_destructive_functions():
    """The functions upstream's reliability guard sets to None; solutions calling them fail alike."""
    import builtins
    import resource
    import shutil
    import subprocess

    raise_soft_limit(resource.RLIMIT_DATA, MEMORY_BYTES)
    raise_soft_limit(resource.RLIMIT_STACK, MEMORY_BYTES)
    faulthandler.disable()
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"):
        setattr(os, name, None)
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None


def main():
    with open("task.json") as file:
        task = json.load(file)
    with open("solution.py") as file:
        code = file.read()
    # Records go to a copy of the original stdout; fd 1 itself becomes /dev/null, so whatever the solution
    # writes past sys.stdout is dropped, as it is lost upstream.
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    # Upstream grades in a multiprocessing child, whose stdin is /dev/null: a solution reading past the
    # stand-in (the names `from sys import *` bound at load time) reads nothing.
    sys.stdin.close()
    sys.stdin = open(os.open(os.devnull, os.O_RDONLY), encoding="utf-8", closefd=False)

    def report(record):
        channel.write(json.dumps(record) + "\n")
        channel.flush()

    if "numpy" in code:
        # Upstream's harness has numpy loaded before it disables os functions, so solutions can import it
        # afterwards (a fresh import would call the disabled functions). Loading it costs ~0.1 s: only then.
        try:
            import numpy  # noqa: F401
        except ImportError:
            pass
    sys.set_int_max_str_digits(50000)
    signal.signal(signal.SIGALRM, on_alarm)
    disable_destructive_functions()
    timeout = task["timeout"]
    signal.alarm(timeout)
    try:
        if task["fn_name"] is None:
            run_stdio(code, task["inputs"], timeout, report)
        else:
            run_call(code, task["inputs"], task["fn_name"], timeout, report)
    except Exception as error:
        report({"kind": "fatal", "message": f"Error during testing: {error}"})
    finally:
        signal.alarm(0)
    report({"kind": "end"})


main()
