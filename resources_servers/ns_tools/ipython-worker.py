# ns_tools' Python for one rollout: an IPython shell that keeps its variables from call to call, as the
# NeMo-Skills sandbox's stateful `stateful_python_code_exec` does ("a stateful Jupyter notebook"). It runs inside
# the rollout's sandbox box; the host sends one JSON request per line, {"code", "timeout", "max_output_characters"},
# and reads one JSON answer per line, {"status": "completed" | "error" | "timeout", "stdout", "stderr"}.
#
# What the model sees is what a notebook cell shows: printed text, then the value of a last expression as
# IPython displays it (its pretty printer, `Out[1]: ` prompt removed), or a Plain-mode traceback without its
# `Cell In [n], line k` lines; stripped, and cut after max_output_characters with "<output cut>". A cell still
# running after `timeout` seconds is interrupted (its variables so far are kept) and reported as a timeout.
import json
import os
import re
import signal
import sys

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from traitlets.config import Config

OUTPUT_CUT = "<output cut>"
PROMPT = "Out[1]: "
# A frame of a cell (`Cell In [1], line 4`; `..., line 2 in f` inside a function: IPython 8.5 writes no comma).
CELL_LINE = re.compile(r"^\s*Cell In ?\[\d+\], line \d+(,? in .*)?$")


class CellTimeout(BaseException):
    """Raised into the running cell by the alarm; a BaseException, so the cell's `except Exception` lets it through."""


def on_alarm(signum, frame):
    raise CellTimeout()


def clean(text, limit):
    text = text.replace(PROMPT, "")
    text = "\n".join(line for line in text.split("\n") if not CELL_LINE.match(line)).strip()
    if len(text) > limit:
        text = text[:limit] + OUTPUT_CUT
    return text


def new_shell():
    config = Config()
    # No history database: nothing is written, and every cell is "In [1]" (so its prompt is `Out[1]: `).
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    shell.run_line_magic("colors", "NoColor")
    shell.InteractiveTB.set_mode(mode="Plain")
    # A timed-out cell shows no traceback of the alarm: only what it printed before.
    shell.set_custom_exc((CellTimeout,), lambda shell, etype, value, tb, tb_offset=None: None)
    return shell


def run(shell, request):
    timed_out = False
    with capture_output(display=False) as captured:
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, float(request["timeout"]))
        try:
            result = shell.run_cell(request["code"])
            failed = not result.success
            timed_out = isinstance(result.error_in_exec, CellTimeout)
        except CellTimeout:
            # The alarm struck outside the cell's own code (IPython's bookkeeping around it).
            failed = timed_out = True
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    limit = int(request["max_output_characters"])
    status = "timeout" if timed_out else "error" if failed else "completed"
    return {"status": status, "stdout": clean(captured.stdout, limit), "stderr": clean(captured.stderr, limit)}


def main():
    # The protocol keeps private copies of stdin and stdout; the cells' own fds 0, 1 and 2 lead nowhere, so code
    # that reads stdin or writes below sys.stdout (a subprocess, C code) cannot garble it.
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull, "r")
    shell = new_shell()
    for line in requests:
        answers.write(json.dumps(run(shell, json.loads(line))) + "\n")
        answers.flush()


main()
