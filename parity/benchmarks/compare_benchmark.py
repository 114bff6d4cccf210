"""Checks one `gym eval run --benchmark` of ngym against upstream NeMo Gym 0.7.0's own code (run with its venv).

Reads a JSON list of jobs from argv[1]; each names a benchmark's rollouts file, ngym's metrics file, the agent, the
resources server's implementation and resolved config, and the prompt config the run used. For each it checks:
  - aggregate metrics: ngym's answer of /aggregate_metrics (in <stem>_metrics.json) equals upstream's
    `compute_aggregate_metrics` with the upstream server class's own hooks, over the same rollouts stripped as
    upstream's collector strips them;
  - prompts: each rollout's `responses_create_params.input` equals upstream's `apply_prompt_to_row` of the row.
Prints one JSON object per job.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
import sys
import warnings
from pathlib import Path

from nemo_gym.prompt import apply_prompt_to_row, load_prompt_config
from nemo_gym.reward_profile import compute_aggregate_metrics


SITE_PACKAGES = Path(next(path for path in sys.path if path.endswith("site-packages")))
# Upstream's server class per implementation whose metric hooks it overrides, and the config keys they read.
# instruction_following keeps the default profile (its server overrides no hook).
SERVER_CLASSES = {
    "math_with_judge": ("LibraryJudgeMathResourcesServer", None),
    "mcqa": ("MCQAResourcesServer", None),
    "code_gen": ("CompCodingResourcesServer", None),
    "equivalence_llm_judge": ("LLMJudgeResourcesServer", ("LLMJudgeResourcesServerConfig", ("judge_equal_label", "judge_not_equal_label"))),
}
# What upstream's collector leaves out of a rollout before asking /aggregate_metrics (rollout_collection.py).
HEAVY_FIELDS = ("response", "responses_create_params", "ng_agent_observations", "ng_model_call_capture", "ng_trajectory")
INPUT_ONLY = ("_ng_task_index", "_ng_rollout_index", "agent_ref", "response")


def hooks(implementation: str, server_config: dict) -> dict:
    if implementation not in SERVER_CLASSES:
        return {}
    class_name, config_spec = SERVER_CLASSES[implementation]
    sys.path.insert(0, str(SITE_PACKAGES / "resources_servers" / implementation))
    module = importlib.import_module(f"resources_servers.{implementation}.app")
    server = getattr(module, class_name)
    if config_spec is not None:
        config_class, keys = config_spec
        values = {key: server_config[key] for key in keys if key in server_config}
        instance = server.model_construct(config=getattr(module, config_class).model_construct(**values))
        return {"compute_metrics_fn": instance.compute_metrics, "get_key_metrics_fn": instance.get_key_metrics}
    found = {}
    if "compute_metrics" in vars(server):
        found["compute_metrics_fn"] = functools.partial(server.compute_metrics, server)
    if "get_key_metrics" in vars(server):
        found["get_key_metrics_fn"] = functools.partial(server.get_key_metrics, server)
    return found


def stripped(row: dict) -> dict:
    entry = {key: value for key, value in row.items() if key not in HEAVY_FIELDS}
    response = row.get("response") or {}
    metadata = {key: response[key] for key in ("usage", "incomplete_details") if response.get(key) is not None}
    if metadata:
        entry["response"] = metadata
    return entry


def plain(value):
    return json.loads(json.dumps(value, default=lambda o: o.item()))


def differences(ours, theirs, path="", found=None):
    found = [] if found is None else found
    if isinstance(theirs, dict):
        if not isinstance(ours, dict):
            found.append(f"{path}: ngym {ours!r} is not an object")
        else:
            for key in sorted(set(ours) ^ set(theirs)):
                found.append(f"{path}.{key}: only in {'ngym' if key in ours else 'upstream'}")
            for key in set(ours) & set(theirs):
                differences(ours[key], theirs[key], f"{path}.{key}", found)
    elif isinstance(theirs, list):
        if not isinstance(ours, list) or len(ours) != len(theirs):
            found.append(f"{path}: ngym {ours!r} != upstream {theirs!r}")
        else:
            for index, (a, b) in enumerate(zip(ours, theirs)):
                differences(a, b, f"{path}[{index}]", found)
    elif isinstance(theirs, (int, float)) and not isinstance(theirs, bool):
        if not (isinstance(ours, (int, float)) and math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12)):
            found.append(f"{path}: ngym {ours!r}, upstream {theirs!r}")
    elif ours != theirs:
        found.append(f"{path}: ngym {ours!r}, upstream {theirs!r}")
    return found


def check(job: dict) -> dict:
    rows = [json.loads(line) for line in Path(job["rollouts"]).read_text().splitlines() if line.strip()]
    rows = [row for row in rows if (row.get("agent_ref") or {}).get("name") == job["agent"]]
    rows.sort(key=lambda row: (row["_ng_task_index"], row["_ng_rollout_index"]))
    ours = json.loads(Path(job["metrics"]).read_text())["aggregate_metrics"].get(job["agent"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = plain(compute_aggregate_metrics([stripped(row) for row in rows], **hooks(job["implementation"], job["server_config"])).model_dump())
    aggregate = ["ngym's metrics file has no aggregate_metrics for the agent"] if ours is None else differences(ours, theirs)

    prompt_mismatches = []
    if job.get("prompt_config"):
        prompt = load_prompt_config(job["prompt_config"])
        for row in rows:
            # The row as read (verify's added fields stay: no prompt names them).
            raw = {key: value for key, value in row.items() if key not in INPUT_ONLY}
            params = dict(raw.get("responses_create_params") or {})
            params.pop("input", None)
            raw["responses_create_params"] = params
            expected = apply_prompt_to_row(raw, prompt)["responses_create_params"]["input"]
            if expected != row["responses_create_params"]["input"]:
                prompt_mismatches.append({"task": row["_ng_task_index"], "upstream": expected, "ngym": row["responses_create_params"]["input"]})
    rewards = [row.get("reward") for row in rows]
    return {
        "benchmark": job["benchmark"],
        "rollouts": len(rows),
        "tasks": len({row["_ng_task_index"] for row in rows}),
        "mean_reward": sum(rewards) / len(rewards) if rewards else None,
        "aggregate_equal": not aggregate,
        "aggregate_differences": aggregate[:5],
        "prompts_checked": len(rows) if job.get("prompt_config") else 0,
        "prompt_mismatches": prompt_mismatches[:3],
        "key_metrics": theirs.get("key_metrics"),
    }


def main() -> None:
    for job in json.loads(Path(sys.argv[1]).read_text()):
        try:
            result = check(job)
        except Exception as error:  # one benchmark's problem is reported with it; the others are still checked
            result = {"benchmark": job["benchmark"], "rollouts": 0, "tasks": 0, "mean_reward": None, "aggregate_equal": False, "aggregate_differences": [f"{type(error).__name__}: {error}"], "prompts_checked": 0, "prompt_mismatches": [], "key_metrics": None}
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
