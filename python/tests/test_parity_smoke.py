"""Parity smoke: `npm run parity` on 200 seeded cases per environment, ngym's resources servers against upstream
NeMo Gym 0.7.0's Python ones (docs/parity.md has the full run and the causes of every disagreement).

Since ngym follows 0.7.0 (2026-11-25) every environment here agrees on all 200 cases and on every one of upstream's
own example rollouts; a disagreement fails it. The harness asks a disagreeing case again before counting it, so a
side's time limit hit on a loaded machine is not one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import NGYM, REPO

CASES = 200
# Cases (of 200, seed 1) with reward and every compared field equal, measured 2026-11-25.
AGREE_AT_LEAST = {
    "mcqa": 200,
    "mcqa_answer_colon_md": 200,
    "math_with_judge": 200,
    "structured_outputs": 200,
    "example_single_tool_call": 200,
    "example_multi_step": 200,
    "calendar": 200,
    "workplace_assistant": 200,
    "equivalence_llm_judge": 200,
    "equivalence_llm_judge_swap": 200,
    "math_with_judge_judged": 200,
    # Measured 2026-11-26. Not here: google_search (0.7.0 answers 500 to every answer without a box, which ngym
    # scores 0: a known disagreement, docs/parity.md) and code_gen (200 / 200, but upstream's grading starts Ray
    # and a process per case, and its verdicts depend on time limits: too slow and load-sensitive for this smoke).
    "math_advanced_calculations": 200,
    "math_with_code": 200,
    # Measured 2026-11-26: 200 / 200 each (reasoning_gym about 40 s, 20 of them the library making its rows).
    "reasoning_gym": 200,
    "example_session_state_mgmt": 200,
    # The Nemotron RL mix's ports, one instance each (every instance measured 200 / 200 at seed 1, 2026-11-26;
    # docs/parity.md has the 2,000-case runs of all their modes).
    "single_step_tool_use_with_argument_comparison": 200,
    "single_step_tool_use_with_argument_comparison_parallel": 200,
    "equivalence_rule": 200,
    "format_verification": 200,
    "abstention": 200,
    "multichallenge": 200,
    "inverse_if": 200,
    "nvarc": 200,
    "terminus_judge": 200,
}


def _parity(environments: list[str], tmp_path: Path) -> dict:
    """`npm run parity` on CASES cases of each environment; its PARITY_JSON summary."""
    run = subprocess.run(
        [NGYM[0], "--conditions=ngym-source", "--import", "tsx", "parity/run.ts", *environments, "--cases", str(CASES), "--out", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=1200,
    )
    assert run.returncode == 0, run.stderr + run.stdout[-4000:]
    line = next(line for line in run.stdout.splitlines() if line.startswith("PARITY_JSON "))
    return {**json.loads(line.removeprefix("PARITY_JSON ")), "stdout": run.stdout}


def _check(result: dict, floor: int, tmp_path: Path, stdout: str) -> None:
    environment = result["environment"]
    assert result["total"] == CASES
    assert result["agree"] >= floor, f"{environment}: {result['agree']}/{CASES} agree, measured {floor}; see {tmp_path / (environment + '.jsonl')}\n{stdout[-4000:]}"
    rollouts = sum(count for cause, count in result["causes"].items() if cause.startswith("rollout:"))
    assert rollouts == 0, f"{environment}: {rollouts} example rollouts disagree"


def test_parity_smoke(tmp_path: Path) -> None:
    summary = _parity(list(AGREE_AT_LEAST), tmp_path)
    results = {result["environment"]: result for result in summary["results"]}
    assert set(results) == set(AGREE_AT_LEAST)
    for environment, floor in AGREE_AT_LEAST.items():
        _check(results[environment], floor, tmp_path, summary["stdout"])


def test_parity_smoke_instruction_following(tmp_path: Path) -> None:
    """Local only: upstream's server needs verifiable_instructions (GitHub only) and NLTK data, which CI cannot
    download; the harness reports the environment skipped, with the setup command, when they are absent."""
    summary = _parity(["instruction_following"], tmp_path)
    skipped = {item["environment"]: item["reason"] for item in summary["skipped"]}
    if "instruction_following" in skipped:
        pytest.skip(f"instruction_following: {skipped['instruction_following']}")
    # 200 / 200 measured 2026-11-26 (1,997 / 2,000 on the full run; docs/parity.md).
    _check(summary["results"][0], 200, tmp_path, summary["stdout"])
