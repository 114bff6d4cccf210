"""Grades code_gen cases with upstream NeMo Gym 0.7.0's own harness (the installed wheel), for the parity
test resources_servers/code_gen/harness-parity.test.ts. Reads a JSON list of cases {code, tests, timeout}
on stdin; prints a JSON list of {result, metadata}, one per case, as upstream's verify computes them."""
import importlib.util
import json
import os
import sys

# The wheel's code_gen folder is a namespace package; its lcb_integration imports itself top-level.
sys.path.insert(0, list(importlib.util.find_spec("resources_servers.code_gen").submodule_search_locations)[0])
from lcb_integration.compute_code_generation_metrics import check_correctness  # noqa: E402


def plain(value):
    """numpy scalars from the harness as plain JSON values."""
    if hasattr(value, "item"):
        return value.item()
    return value


def main():
    # What the solutions write past their captured stdout reaches this process's fd 1: keep it off the answer.
    answer_stream = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    answers = []
    for case in json.load(sys.stdin):
        result, metadata = check_correctness({"input_output": json.dumps(case["tests"])}, case["code"], case["timeout"], debug=False)
        answers.append({"result": [plain(entry) for entry in result], "metadata": metadata})
    json.dump(answers, answer_stream)
    answer_stream.flush()


if __name__ == "__main__":
    main()
