"""Cases for checking ngym's reasoning_gym /verify against the reasoning-gym library (library.test.ts).

For every task of the library (or those named), makes `--size` rows exactly as create_dataset.py writes them
(round-tripped through JSON, as a server receives them), and for each row a right answer (the oracle) and
wrong ones, each as the model's text `<answer>...</answer>`, with the score upstream NeMo Gym's server gives
it: `float(reasoning_gym.get_score_answer_fn(task)(answer=extracted, entry=row))`, 0 when that raises, a
fresh score function per call as upstream. Prints JSON lines `{"task", "kind", "row", "text", "score"}`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from create_dataset import build_dataset, library_tasks, nemo_gym_row


def upstream_score(task: str, text: str, row: dict) -> float:
    import reasoning_gym
    from reasoning_gym.utils import extract_answer

    answer = extract_answer(text, tag_name="answer")
    entry = {"question": row["question"], "answer": row["answer"], "metadata": row["metadata"]}
    try:
        with contextlib.redirect_stdout(sys.stderr):
            return float(reasoning_gym.get_score_answer_fn(task)(answer=answer, entry=entry))
    except Exception:  # noqa: BLE001 - upstream's server scores a failing scorer 0
        return 0.0


def right_answer(row: dict) -> str:
    """The oracle; for rows without one (answer null), a solution the library keeps in the metadata, if any."""
    if row["answer"] is not None:
        return row["answer"]
    metadata = row["metadata"]
    if isinstance(metadata.get("example_answer"), str):  # propositional_logic
        return metadata["example_answer"]
    if "possible_answer" in metadata:  # graph_color
        return json.dumps(metadata["possible_answer"])
    return ""  # boxnet, rush_hour: no solution is stored


def wrong_answers(oracle: str | None) -> list[tuple[str, str]]:
    oracle = oracle or ""
    # A plainly wrong answer, and a near miss: the oracle with its last character changed.
    near = oracle[:-1] + ("0" if oracle[-1:] != "0" else "1") if oracle else "0"
    return [("wrong", "no idea"), ("near_miss", near)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default="", help="comma-separated; default: every task of the library")
    parser.add_argument("--size", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    tasks = [name for name in args.tasks.split(",") if name] or [n for names in library_tasks().values() for n in names]
    out = sys.stdout
    for task in tasks:
        with contextlib.redirect_stdout(sys.stderr):
            dataset = build_dataset([task], args.size, args.seed, {})
            rows = [json.loads(json.dumps(nemo_gym_row(dataset[index], "reasoning_gym_simple_agent"))) for index in range(args.size)]
        for row in rows:
            for kind, candidate in [("right", right_answer(row)), *wrong_answers(row["answer"])]:
                text = f"<answer>{candidate}</answer>"
                out.write(json.dumps({"task": task, "kind": kind, "row": row, "text": text, "score": upstream_score(task, text, row)}) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
