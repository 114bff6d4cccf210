# code_gen's judge of test results. It runs in a sandbox box of its own that never runs model code: it
# gets data only (what runner.py reported for a test, and the expected output, which never enters the
# box of the code under test) and answers whether the test passed, with upstream's metadata when it did
# not. Keeping it apart from the code under test means a solution cannot reach the expected outputs or
# the comparison (upstream compares inside the solution's own process, where a solution can).
#
# Requests and answers are JSON lines on stdin/stdout, answered in order:
#   {"op": "outputs", "outputs": [...]}            -> {"ok": true} or {"fatal": message}
#   {"op": "judge", "mode": "stdio"|"call", "record": {...}, "expected": "..."}
#       -> {"pass": true} or {"pass": false, "code": -2|-3|-4|false, "metadata": {...}} or {"fatal": message}
import json
import math
import sys
import traceback
from decimal import Decimal

sys.set_int_max_str_digits(0)
FLOAT_TOLERANCE = Decimal("1e-6")
VERDICTS = ("yes", "no")


def truncate(value, length=300):
    text = value if isinstance(value, str) else str(value)
    if len(text) <= length:
        return text
    return text[: length // 2] + "...(truncated) ..." + text[-length // 2 :]


class Opaque:
    """A value the runner could not encode: equal to nothing, printed as it printed."""

    def __init__(self, type_name, text):
        self.type_name = type_name
        self.text = text

    def __str__(self):
        return self.text

    __repr__ = __str__


def decode(tagged):
    kind = tagged[0]
    if kind == "N":
        return None
    if kind == "B":
        return bool(tagged[1])
    if kind == "I":
        return int(tagged[1])
    if kind == "F":
        return float(tagged[1])
    if kind == "S":
        return tagged[1]
    if kind == "L":
        return [decode(item) for item in tagged[1]]
    if kind == "T":
        return tuple(decode(item) for item in tagged[1])
    if kind == "E":
        return {decode(item) for item in tagged[1]}
    if kind == "Z":
        return frozenset(decode(item) for item in tagged[1])
    if kind == "D":
        return {decode(key): decode(item) for key, item in tagged[1]}
    return Opaque(tagged[1], tagged[2])


# ---- stdin/stdout tests: line by line, exactly, as a yes/no verdict in any case, or as numbers ----


def stripped_lines(text):
    return [line.strip() for line in text.strip().split("\n")]


def as_decimals(line):
    try:
        return True, [Decimal(token) for token in line.split()]
    except Exception:
        return False, []


def is_float_token(token):
    return "." in token or "e" in token.lower()


def decimals_match(expected_token, predicted_token, expected, predicted):
    if expected == predicted:
        return True
    if not (is_float_token(expected_token) or is_float_token(predicted_token)):
        return False
    if not (expected.is_finite() and predicted.is_finite()):
        return False
    error = abs(expected - predicted)
    scale = max(abs(expected), Decimal(1))
    return error <= FLOAT_TOLERANCE or error / scale <= FLOAT_TOLERANCE


def lines_match(expected_tokens, predicted_tokens, expected, predicted):
    if len(expected) != len(predicted):
        return False
    return all(decimals_match(*values) for values in zip(expected_tokens, predicted_tokens, expected, predicted))


def judge_stdio_output(output, expected, inputs):
    predicted_lines = stripped_lines(output)
    expected_lines = stripped_lines(expected)
    metadata = {"output": truncate(output), "inputs": inputs, "expected": truncate(expected), "error_code": -2}
    if len(predicted_lines) != len(expected_lines):
        metadata["error_message"] = "Wrong answer: mismatched output length"
        return {"pass": False, "code": -2, "metadata": metadata}
    for index, (predicted_line, expected_line) in enumerate(zip(predicted_lines, expected_lines)):
        metadata["error_message"] = f"Wrong answer at output_line_idx={index}: {truncate(predicted_line)} != {truncate(expected_line)}"
        if predicted_line == expected_line:
            continue
        lowered = predicted_line.strip().lower()
        if lowered in VERDICTS and lowered == expected_line.strip().lower():
            continue
        ok, predicted = as_decimals(predicted_line)
        if not ok:
            return {"pass": False, "code": -2, "metadata": metadata}
        ok, expected_numbers = as_decimals(expected_line)
        if not ok:
            return {"pass": False, "code": -2, "metadata": metadata}
        if lines_match(expected_line.split(), predicted_line.split(), expected_numbers, predicted):
            continue
        return {"pass": False, "code": -2, "metadata": metadata}
    return {"pass": True}


# ---- call-based tests: Python equality, then equal JSON, then numeric closeness ----


def close(a, b):
    """numpy.allclose(a, b) for two floats (rtol 1e-05, atol 1e-08, NaN never close)."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-08 + 1e-05 * abs(b)


def values_are_close(expected, predicted):
    if expected == predicted:
        return True
    if isinstance(expected, bool) or isinstance(predicted, bool):
        return False
    if not (isinstance(expected, float) or isinstance(predicted, float)):
        return False
    if not isinstance(expected, (int, float, str)) or not isinstance(predicted, (int, float, str)):
        return False
    try:
        return close(float(predicted), float(expected))
    except (TypeError, ValueError):
        return False


def judge_call_value(prediction, expected):
    same = prediction == expected
    try:
        same = same or (json.dumps(prediction) == json.dumps(expected))
    except Exception:
        pass
    if not same:
        same = values_are_close(expected, prediction)
    if not same and isinstance(prediction, list) and isinstance(expected, list):
        same = len(prediction) == len(expected) and all(values_are_close(e, p) for p, e in zip(prediction, expected))
    return same


def judge(mode, record, expected_text):
    kind = record["kind"]
    if mode == "call":
        expected = json.loads(expected_text)
    else:
        expected = expected_text
    if kind == "timeout":
        metadata = {"error": record["error"], "error_code": -3, "error_message": "Time Limit Exceeded", "inputs": record["inputs"], "expected": truncate(expected)}
        return {"pass": False, "code": -3, "metadata": metadata}
    if kind == "error":
        metadata = {"error": record["error"], "error_code": -4, "error_message": "Runtime Error", "inputs": record["inputs"], "expected": truncate(expected), "traceback": record["traceback"]}
        return {"pass": False, "code": -4, "metadata": metadata}
    if kind == "output":
        return judge_stdio_output(record["text"], expected, record["inputs"])
    prediction = decode(record["value"])
    try:
        same = judge_call_value(prediction, expected)
    except Exception as error:
        # Upstream compares inside the test's try: a comparison that raises is the test's runtime error.
        metadata = {"error": repr(error), "error_code": -4, "error_message": "Runtime Error", "inputs": record["inputs"], "expected": truncate(expected), "traceback": traceback.format_exc()}
        return {"pass": False, "code": -4, "metadata": metadata}
    if same:
        return {"pass": True}
    # Upstream records the comparison itself (False) for a call-based wrong answer, not -2.
    metadata = {"output": record["text"], "inputs": record["inputs"], "expected": truncate(expected), "error_code": -2, "error_message": "Wrong Answer"}
    return {"pass": False, "code": False, "metadata": metadata}


def answer(request):
    try:
        if request["op"] == "outputs":
            for output in request["outputs"]:
                json.loads(output)
            return {"ok": True}
        return judge(request["mode"], request["record"], request["expected"])
    except Exception as error:
        # Upstream's harness turns an exception outside a test's own try into a [-4] for the whole task.
        return {"fatal": f"Error during testing: {error}"}


def main():
    for line in sys.stdin:
        reply = answer(json.loads(line))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


main()
