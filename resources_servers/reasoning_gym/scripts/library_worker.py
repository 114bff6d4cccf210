"""A long-lived scorer of reasoning_gym answers with the reasoning-gym library itself, for the resources
server's tasks that have no TypeScript port. JSON lines on stdin/stdout:

    start:    -> {"ready": true, "version": "0.1.25", "tasks": [...]}   (or {"fatal": "..."} and exit 3)
    request:  {"id": 1, "task": "chain_sum", "answer": "42", "entry": {"question", "answer", "metadata"}}
    reply:    {"id": 1, "score": 1.0}
              {"id": 1, "score": 0.0, "scorer_error": "ValueError(...)"}   the scorer raised, upstream scores 0
              {"id": 1, "unknown_task": true}

Scoring is upstream's server's: `float(get_score_answer_fn(task)(answer=, entry=))`, any exception scored 0.
The score function (a default-config dataset's `score_answer`) is made once per task rather than per request.
"""

from __future__ import annotations

import contextlib
import json
import sys


def main() -> int:
    out = sys.stdout
    # Library code that prints must not corrupt the protocol: everything else goes to stderr.
    sys.stdout = sys.stderr
    try:
        import reasoning_gym
        from reasoning_gym.factory import DATASETS
    except Exception as error:  # noqa: BLE001 - reported to the server, which names the fix
        out.write(json.dumps({"fatal": f"cannot import reasoning_gym with {sys.executable}: {error!r}"}) + "\n")
        out.flush()
        return 3
    tasks = sorted(name for name in DATASETS if name != "composite")
    out.write(json.dumps({"ready": True, "version": getattr(reasoning_gym, "__version__", None), "tasks": tasks}) + "\n")
    out.flush()

    scorers: dict = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        reply: dict = {"id": request["id"]}
        task = request["task"]
        if task not in DATASETS or task == "composite":
            reply["unknown_task"] = True
        else:
            try:
                if task not in scorers:
                    with contextlib.redirect_stdout(sys.stderr):
                        scorers[task] = reasoning_gym.get_score_answer_fn(task)
                reply["score"] = float(scorers[task](answer=request["answer"], entry=request["entry"]))
            except Exception as error:  # noqa: BLE001 - upstream scores a failing scorer 0
                reply["score"] = 0.0
                reply["scorer_error"] = repr(error)[:500]
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
