"""`POST /aggregate_metrics` on ngym's resources servers against upstream 0.7.0's own profiler.

Upstream's collectors ask every resources server for its aggregate metrics at the end of a run. ngym's answer
must be what upstream's `nemo_gym.reward_profile.compute_aggregate_metrics` computes from the same verify
responses, with the environment's own `compute_metrics` / `get_key_metrics` where upstream's server has them
(mcqa, math_with_judge, code_gen, structured_outputs, equivalence_llm_judge). Seeded random runs (several tasks and repeats, missing
rollouts, masked samples, booleans, absent and non-numeric fields, token usage, `ng_perf` records, the fields
those environments' metrics read, judge evaluations with and without recorded parsing issues) are sent to both and compared field by field.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
import random
import sys
import urllib.request
import warnings
from pathlib import Path

import pytest
import yaml

from conftest import REPO, bubblewrap_usable, ngym_run

CASES = 40
SITE_PACKAGES = Path(next(path for path in sys.path if path.endswith("site-packages")))

# Each environment: its config file, the resources server entry's overrides for a gym of resources servers
# only, and upstream's server class whose metric hooks it follows (None: the default profile).
ENVIRONMENTS = {
    "example_multi_step": ("example_multi_step", {}, None),
    "mcqa": ("mcqa", {}, "MCQAResourcesServer"),
    "math_with_judge": ("math_with_judge", {"should_use_judge": False, "judge_model_server": {"type": "responses_api_models", "name": "judge_model"}}, "LibraryJudgeMathResourcesServer"),
    "structured_outputs": ("structured_outputs_json", {}, "StructuredOutputsResourcesServer"),
    "code_gen": ("code_gen", {"sandbox": {"pool_size": 1}}, "CompCodingResourcesServer"),
    "equivalence_llm_judge": ("equivalence_llm_judge", {"judge_model_server": {"type": "responses_api_models", "name": "judge_model"}}, "LLMJudgeResourcesServer"),
}
# Upstream servers whose hooks read their config (the judge's verdict labels): built with these config values.
HOOK_CONFIGS = {"equivalence_llm_judge": ("LLMJudgeResourcesServerConfig", {"judge_equal_label": "[[A=B]]", "judge_not_equal_label": "[[A!=B]]"})}
PARSING_ISSUES = ["no_verdict", "conflicting_verdicts", "repeated_verdict", "truncated_judge_output", "unparseable_judge_output"]
JUDGE_REPLIES = ["[[A=B]] they are equivalent", "[[A!=B]]", "[[A=B]] no, [[A!=B]]", "[[A=B]] [[A=B]]", "unsure", "", None]


def judge_response(rng: random.Random) -> dict:
    """A saved judge response: a message whose last text part holds the verdict, or shapes with no text to read."""
    shape = rng.random()
    if shape < 0.1:
        output: list = []
    elif shape < 0.2:
        output = [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}]
    elif shape < 0.25:
        output = [{"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}]
    else:
        output = [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": rng.choice(JUDGE_REPLIES)}]}]
    return {"output": output, "status": rng.choice(["completed", "completed", "incomplete"])}


def judge_evaluation(rng: random.Random) -> dict | None:
    """equivalence_llm_judge's evaluations as verify records them now and as older rollouts hold them."""
    kind = rng.random()
    if kind < 0.05:
        return rng.choice([None, {}])
    evaluation: dict = {"responses_create_params": {"input": []}, "verdict_label": rng.choice([None, "[[A=B]]", "[[A!=B]]"])}
    if kind < 0.15:
        evaluation["verdict_label"] = "JUDGE_ERROR"
    if rng.random() < 0.5:
        evaluation["judgement_parsing_issues"] = rng.sample(PARSING_ISSUES, rng.randint(0, 2))
    if rng.random() < 0.7:
        evaluation["response"] = judge_response(rng) if rng.random() < 0.9 else None
    return evaluation


def verify_responses(rng: random.Random) -> list[dict]:
    tasks = rng.randint(1, 6)
    repeats = rng.randint(1, 4)
    masking = rng.random() < 0.3
    rows = []
    for task in range(tasks):
        for rollout in range(repeats):
            if rng.random() < 0.1:
                continue  # a rollout that failed: absent from the run
            row: dict = {
                "_ng_task_index": task,
                "_ng_rollout_index": rollout,
                "reward": rng.choice([0.0, 1.0, 0.5, round(rng.random(), 3)]),
                "agent_ref": {"name": "some_agent"},
                "expected_answer": "B",
            }
            if rng.random() < 0.8:
                row["is_correct"] = rng.random() < 0.5
            if rng.random() < 0.5:
                row["num_tool_calls"] = rng.randint(0, 5)
            # Fields the environments' own metrics read.
            row["extracted_answer"] = rng.choice([None, "A", "B", "C", "42"])
            if rng.random() < 0.7:
                row["library_reward"] = rng.choice([0.0, 1.0])
            row["judge_evaluations"] = rng.choice([None, [], [{"verdict": "equal"}], [judge_evaluation(rng) for _ in range(rng.randint(1, 3))]])
            row["extracted_model_code"] = rng.choice([None, "print(1)", "print(2)"])
            row["difficulty"] = rng.choice([None, "easy", "hard"])
            row["schema_type"] = rng.choice(["json", "yaml"])
            for field, values in (("problem_type", [None, "nested"]), ("num_tools", [None, 0, 3]), ("parallel_tool_calls", [None, True, False]), ("tool_choice", ["", "auto"])):
                if rng.random() < 0.6:
                    row[field] = rng.choice(values)
            if rng.random() < 0.7:
                usage = {"input_tokens": rng.randint(10, 500), "output_tokens": rng.randint(1, 300)}
                usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
                usage["input_tokens_details"] = {"cached_tokens": 0}
                row["response"] = {"usage": usage}
            if masking and rng.random() < 0.3:
                row["mask_sample"] = True
            if rng.random() < 0.2:
                row["ng_perf"] = {
                    "completion_tokens": rng.randint(1, 300),
                    "num_turns": rng.randint(0, 4),
                    "total_latency_ms": rng.uniform(5, 500),
                    "token_observability_coverage": rng.choice([0, 1]),
                }
            rows.append(row)
    return rows or [{"_ng_task_index": 0, "_ng_rollout_index": 0, "reward": 1.0}]


def plain(value):
    """numpy scalars (upstream's pandas output) as Python numbers."""
    return json.loads(json.dumps(value, default=lambda o: o.item()))


def assert_close(ours, theirs, path: str = "") -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), f"{path}: {ours!r} is not an object"
        assert set(ours) == set(theirs), f"{path}: keys only in ngym {sorted(set(ours) - set(theirs))}, only in upstream {sorted(set(theirs) - set(ours))}"
        for key in theirs:
            assert_close(ours[key], theirs[key], f"{path}.{key}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), f"{path}: {ours!r} != {theirs!r}"
        for index, (a, b) in enumerate(zip(ours, theirs)):
            assert_close(a, b, f"{path}[{index}]")
    elif isinstance(theirs, (int, float)) and not isinstance(theirs, bool):
        assert isinstance(ours, (int, float)) and math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12), f"{path}: ngym {ours!r}, upstream {theirs!r}"
    else:
        assert ours == theirs, f"{path}: ngym {ours!r}, upstream {theirs!r}"


def upstream_hooks(env: str) -> dict:
    """Upstream's metric hooks of the environment's server class, called with the class as `self` (they only use its static parts)."""
    class_name = ENVIRONMENTS[env][2]
    if class_name is None:
        return {}
    sys.path.insert(0, str(SITE_PACKAGES / "resources_servers" / env))  # code_gen imports its helpers by bare name
    module = importlib.import_module(f"resources_servers.{env}.app")
    server = getattr(module, class_name)
    if env in HOOK_CONFIGS:
        config_class, values = HOOK_CONFIGS[env]
        # An instance with just its config, without starting anything: the hooks call super() and read self.config.
        instance = server.model_construct(config=getattr(module, config_class).model_construct(**values))
        return {"compute_metrics_fn": instance.compute_metrics, "get_key_metrics_fn": instance.get_key_metrics}
    hooks = {"compute_metrics_fn": functools.partial(server.compute_metrics, server)}
    if "get_key_metrics" in vars(server):
        hooks["get_key_metrics_fn"] = functools.partial(server.get_key_metrics, server)
    return hooks


@pytest.fixture(scope="module")
def resources_gym(tmp_path_factory: pytest.TempPathFactory):
    """One gym serving the resources servers (and a model that math_with_judge names but never calls here)."""
    recordings = REPO / "resources_servers/math_with_judge/data/example_rollouts.jsonl"
    config: dict = {"judge_model": {"responses_api_models": {"replay_model": {"entrypoint": "app.ts", "rollouts_jsonl_fpath": str(recordings)}}}}
    for env, (config_name, overrides, _) in ENVIRONMENTS.items():
        if env == "code_gen" and not bubblewrap_usable():
            continue
        entries = yaml.safe_load((REPO / "resources_servers" / env / "configs" / f"{config_name}.yaml").read_text())
        name, entry = next((name, entry) for name, entry in entries.items() if "resources_servers" in entry)
        entry["resources_servers"][env].update(overrides)
        config[name] = entry
    path = tmp_path_factory.mktemp("gym") / "resources_only.yaml"
    path.write_text(yaml.safe_dump(config))
    with ngym_run(f"+config_paths=[{path}]") as gym:
        with urllib.request.urlopen(f"http://127.0.0.1:{gym.head_port}/server_instances") as answer:
            yield {item["dir_path"].rstrip("/").rsplit("/", 1)[-1]: item["url"] for item in json.load(answer) if item["server_type"] == "resources_servers"}


@pytest.mark.parametrize("env", list(ENVIRONMENTS))
def test_aggregate_metrics_equal_upstream(env: str, resources_gym: dict) -> None:
    from nemo_gym.reward_profile import compute_aggregate_metrics

    if env not in resources_gym:
        pytest.skip(f"{env} is not served here (its sandbox needs bubblewrap with user namespaces)")
    hooks = upstream_hooks(env)
    rng = random.Random(f"20261125 {env}")
    for case in range(CASES):
        responses = verify_responses(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = plain(compute_aggregate_metrics([dict(row) for row in responses], **hooks).model_dump())
        request = urllib.request.Request(
            f"{resources_gym[env]}/aggregate_metrics",
            data=json.dumps({"verify_responses": responses}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request) as answer:
            ours = json.load(answer)
        assert_close(ours, theirs, f"{env} case {case}")
