"""math_with_code as upstream NeMo Gym 0.7.0 (the installed wheel) computes it, for the parity test
resources_servers/math_with_code/upstream-rules.test.ts. Reads {"answers": [[text, expected], ...],
"sessions": [[code, ...], ...]} on stdin; prints {"answers": [[extracted, match], ...], "sessions":
[[tool response, ...], ...]}, each session's code run in order by upstream's own per-session worker."""
import json
import os
import sys

from resources_servers.math_with_code.app import (
    ExecutePythonResponse,
    _answers_match,
    _extract_boxed_answer,
    _SessionHandle,
)


def run_session(codes, timeout):
    handle = _SessionHandle(timeout)
    responses = []
    try:
        for code in codes:
            # execute_python's own handling of the worker's answer.
            try:
                stdout, stderr, result = handle.exec(code)
                response = ExecutePythonResponse(success=True, stdout=stdout, stderr=stderr, result=result)
            except Exception as error:
                response = ExecutePythonResponse(success=False, stdout="", stderr="", error_message=str(error))
            responses.append(response.model_dump())
    finally:
        handle.close()
    return responses


def main():
    request = json.load(sys.stdin)
    answer_stream = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    answers = []
    for text, expected in request["answers"]:
        extracted = _extract_boxed_answer(text)
        answers.append([extracted, _answers_match(extracted, expected)])
    sessions = [run_session(codes, request["timeout"]) for codes in request["sessions"]]
    json.dump({"answers": answers, "sessions": sessions}, answer_stream)
    answer_stream.flush()


if __name__ == "__main__":
    main()
