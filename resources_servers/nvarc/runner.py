# nvarc's runner for the model's `transform` (inductive mode). It runs inside a sandbox box, once per verify, as
# `python3 -c <this file>` with one JSON request on stdin, {"code", "grid", "timeout"}, and prints one JSON answer on
# stdout: {"success": true, "result": <the transformed grid>} or {"success": false, "error": "..."}.
#
# The rules are NeMo Gym 0.7.0's nvarc runner's, because the reward depends on them:
# - the code runs with the builtins module's public names minus open/input/exit/quit/vars/dir/globals/locals/help/...
#   (so underscore names such as __build_class__ are missing: a `class` statement fails), plus __name__, __doc__ and
#   an __import__ that refuses os, subprocess, socket, pickle, threading, signal and the rest of the list below;
# - what the code prints is captured (only the answer reaches stdout), an exception anywhere is a failed answer;
# - `transform(grid)` runs under a SIGALRM of `timeout` seconds (0: none); the code's top level does not;
# - a torch tensor is detached to a list, numpy arrays and scalars become Python lists and numbers (numpy is imported
#   then, so it must be installed: the server checks that at start).
import builtins
import io
import json
import signal
import sys

REQUEST = json.loads(sys.stdin.read())

HIDDEN_BUILTINS = frozenset(
    {"open", "input", "breakpoint", "help", "license", "credits", "copyright", "exit", "quit", "vars", "dir", "globals", "locals"}
)
REFUSED_MODULES = frozenset(
    {
        "os", "subprocess", "shutil", "pathlib", "builtins", "socket", "urllib", "requests", "http", "ftplib", "smtplib",
        "pickle", "shelve", "marshal", "importlib", "pkgutil", "ctypes", "multiprocessing", "threading", "signal",
        "tempfile", "fileinput", "codecs", "pty", "fcntl", "resource", "syslog", "asyncio", "concurrent",
    }
)


class TransformTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise TransformTimeout(f"Transform execution exceeded {REQUEST['timeout']}s")


def plain(value):
    """The value with numpy arrays and scalars made Python lists and numbers, containers rebuilt."""
    import numpy

    if isinstance(value, numpy.ndarray):
        return plain(value.tolist())
    if isinstance(value, numpy.integer):
        return int(value)
    if isinstance(value, numpy.floating):
        return float(value)
    if isinstance(value, numpy.bool_):
        return bool(value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


real_import = builtins.__import__


def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if name.split(".")[0] in REFUSED_MODULES:
        raise ImportError(f"Import of '{name}' is not allowed in sandbox")
    return real_import(name, globals, locals, fromlist, level)


allowed = {name: getattr(builtins, name) for name in dir(builtins) if name not in HIDDEN_BUILTINS and not name.startswith("_")}
allowed["__name__"] = "__main__"
allowed["__doc__"] = None
allowed["__import__"] = guarded_import
allowed["__builtins__"] = allowed

answer_channel = sys.stdout
sys.stdout = io.StringIO()
sys.stderr = io.StringIO()

try:
    namespace = {"__builtins__": allowed}
    exec(REQUEST["code"], namespace)
    if "transform" not in namespace:
        raise ValueError("No 'transform' function defined in code")
    grid = REQUEST["grid"]
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(REQUEST["timeout"])
    try:
        result = namespace["transform"](grid)
    finally:
        signal.alarm(0)
    if result is not None:
        if hasattr(result, "detach") and hasattr(result, "cpu"):
            result = result.detach().cpu().tolist()
        result = plain(result)
    sys.stdout = answer_channel
    print(json.dumps({"success": True, "result": result}))
except TransformTimeout as error:
    sys.stdout = answer_channel
    print(json.dumps({"success": False, "error": f"TimeoutError: {error}"}))
except Exception as error:
    sys.stdout = answer_channel
    print(json.dumps({"success": False, "error": f"{type(error).__name__}: {str(error)[:500]}"}))
