"""The reference side of the SWE-bench grading differential test: swebench 4.1.0's own grading, run on the
cases ngym's grader sees.

Reads one JSON case per line on stdin ({"id", "instance": {instance_id, repo, version, FAIL_TO_PASS,
PASS_TO_PASS}, "log", "model_patch"}) and writes one JSON answer per line on stdout. Each log is written to a
file and graded as swebench's run_instance grades test_output.txt: get_eval_report(include_tests_status=True),
an exception meaning the evaluation did not complete; then get_resolution_status on the tests' report, and
get_logs_eval's status map and `found` on their own so the two graders' parses can be compared too.

`--facts` prints what the generator and the checks need instead: the repository-to-parser map ({repo: parser
function name}) and, per repository, a version swebench has specs for (its grading looks the version up).
"""

import json
import os
import sys
import tempfile
from types import SimpleNamespace

from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS
from swebench.harness.grading import get_eval_report, get_logs_eval, get_resolution_status
from swebench.harness.log_parsers import MAP_REPO_TO_PARSER


def grade(case: dict, path: str) -> dict:
    instance = case["instance"]
    # The fields of swebench's TestSpec that grading reads; make_test_spec would also build the row's scripts.
    test_spec = SimpleNamespace(
        instance_id=instance["instance_id"],
        repo=instance["repo"],
        version=instance["version"],
        FAIL_TO_PASS=instance["FAIL_TO_PASS"],
        PASS_TO_PASS=instance["PASS_TO_PASS"],
    )
    # As run_instance writes test_output.txt: text mode, the locale's encoding.
    with open(path, "w") as f:
        f.write(case["log"])
    answer: dict = {"id": case["id"]}
    try:
        status_map, found = get_logs_eval(test_spec, path)
        answer["statuses"] = list(status_map.items())
        answer["found"] = found
    except Exception as error:  # noqa: BLE001 - the exception's class is what is compared
        answer["logs_eval_error"] = type(error).__name__
    prediction = {"instance_id": instance["instance_id"], "model_patch": case["model_patch"]}
    try:
        report = get_eval_report(test_spec, prediction, path, include_tests_status=True)[instance["instance_id"]]
        answer["completed"] = True
        answer["report"] = report
        if "tests_status" in report:
            answer["resolution_status"] = get_resolution_status(report["tests_status"])
    except Exception as error:  # noqa: BLE001 - run_instance records any exception as an evaluation that did not complete
        answer["completed"] = False
        answer["error"] = f"{type(error).__name__}: {error}"
    return answer


def main() -> None:
    if sys.argv[1:] == ["--facts"]:
        parsers = {repo: parser.__name__ for repo, parser in MAP_REPO_TO_PARSER.items()}
        versions = {repo: next(iter(MAP_REPO_VERSION_TO_SPECS[repo])) for repo in MAP_REPO_TO_PARSER if MAP_REPO_VERSION_TO_SPECS.get(repo)}
        print(json.dumps({"parsers": parsers, "versions": versions}))
        return
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "test_output.txt")
        for line in sys.stdin:
            if line.strip():
                sys.stdout.write(json.dumps(grade(json.loads(line), path)) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
