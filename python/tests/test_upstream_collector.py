"""Upstream NeMo Gym 0.7.0's own collectors against ngym's servers.

For each environment we ship, `ngym run` serves it with replay_model replaying the environment's recorded
example rollouts (strict: any request that differs from the recording fails). Three clients then collect the
same five example rows:
  - `ngym collect` (ours),
  - upstream's `ng_collect_rollouts` command,
  - upstream's `RolloutCollectionHelper.run_examples`, in-process, the way NeMo RL calls it (a head server
    config, rows with `agent_ref`),
and every row's reward and verify fields must be equal across the three, and equal to the recording's reward.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, agent_of, bubblewrap_usable, ngym_cli, ngym_run, read_jsonl

UPSTREAM_BIN = Path(sys.executable).parent

# (environment folder, config file); the agent is the config's agent instance.
ENVIRONMENTS = [
    ("resources_servers", "example_single_tool_call", "example_single_tool_call"),
    ("resources_servers", "example_multi_step", "example_multi_step"),
    ("resources_servers", "example_session_state_mgmt", "example_session_state_mgmt"),
    ("resources_servers", "calendar", "calendar"),
    ("resources_servers", "reasoning_gym", "reasoning_gym"),
    ("resources_servers", "instruction_following", "instruction_following"),
    ("resources_servers", "structured_outputs", "structured_outputs_json"),
    ("resources_servers", "mcqa", "mcqa"),
    ("resources_servers", "math_advanced_calculations", "math_advanced_calculations"),
    ("resources_servers", "workplace_assistant", "workplace_assistant"),
    ("resources_servers", "math_with_judge", "math_with_judge"),
    ("resources_servers", "equivalence_llm_judge", "equivalence_llm_judge"),
    ("resources_servers", "code_gen", "code_gen"),
    ("resources_servers", "math_with_code", "math_with_code"),
    ("responses_api_agents", "mini_swe_agent", "mini_swe_agent"),
    ("resources_servers", "google_search", "google_search"),
]
SANDBOXED = {"code_gen", "math_with_code", "mini_swe_agent"}
JUDGED = {"math_with_judge", "equivalence_llm_judge"}

# Fields a collector adds about the collection itself, not about the rollout.
COLLECTION_FIELDS = {"agent_ref", "response"}


# Wall-clock measurements verify reports (code_gen): they differ between any two runs.
TIMINGS = {"unit_tests_time_taken", "execution time"}


def scored_fields(row: dict) -> dict:
    """The row's own fields and what verify returned: everything but the trajectory, collector bookkeeping and timings."""

    def without_timings(value):
        if isinstance(value, dict):
            return {key: without_timings(item) for key, item in value.items() if key not in TIMINGS}
        return value

    return {key: without_timings(value) for key, value in row.items() if key not in COLLECTION_FIELDS | TIMINGS and not key.startswith("_")}


# mini_swe_agent builds the prompt itself (its rows have empty input) and returns only instance_id of the row.
MATCH_FIELDS = {"mini_swe_agent": ["instance_id"]}


def by_input_row(inputs: list[dict], results: list[dict], fields: list[str] | None = None) -> list[dict]:
    """Orders `results` as `inputs`: each result is matched to the input row whose fields (or `fields`) it carries."""
    ordered = []
    for row in inputs:
        wanted = {key: value for key, value in row.items() if key != "agent_ref" and (fields is None or key in fields)}
        matches = [result for result in results if all(result.get(key) == value for key, value in wanted.items())]
        assert matches, f"no result for input row {json.dumps(wanted)[:300]}"
        ordered.append(matches[0])
        results = [result for result in results if result is not matches[0]]
    return ordered


# One event loop for the whole module, as a trainer process has: upstream keeps one aiohttp session per process,
# bound to the loop it was made in, so a fresh loop per test would leave it waiting on a closed one.
LOOP = asyncio.new_event_loop()


@pytest.fixture(scope="module", autouse=True)
def close_upstream_client():
    yield
    from nemo_gym import server_utils

    if server_utils._GLOBAL_AIOHTTP_CLIENT is not None:
        LOOP.run_until_complete(server_utils._GLOBAL_AIOHTTP_CLIENT.close())
        server_utils._GLOBAL_AIOHTTP_CLIENT = None


def judge_replay(env: str, recordings: Path, tmp_path: Path) -> list[str]:
    """A second replay_model, `judge_model`, answering the judge calls the recordings keep in `judge_evaluations`."""
    calls = [
        {"responses_create_params": call["responses_create_params"], "response": call["response"]}
        for row in read_jsonl(recordings)
        for call in row.get("judge_evaluations") or []
    ]
    path = tmp_path / "judge_calls.jsonl"
    path.write_text("".join(json.dumps(call) + "\n" for call in calls))
    return [
        "+judge_model.responses_api_models.replay_model.entrypoint=app.ts",
        f"+judge_model.responses_api_models.replay_model.rollouts_jsonl_fpath={path}",
        "+judge_model.responses_api_models.replay_model.strict=true",
        f"++{env}.resources_servers.{env}.judge_model_server.name=judge_model",
        # equivalence_llm_judge's rollouts were recorded with the swap check and the rescue on (upstream's class
        # defaults), which its 0.7.0 YAML turns off.
        *(
            [
                f"++{env}.resources_servers.{env}.{key}={value}"
                for key, value in (("check_twice_swap", "true"), ("extraction_length_threshold", "120"), ("check_full_generation_on_fail", "true"), ("reward_if_full_generation_succeeds", "0.5"))
            ]
            if env == "equivalence_llm_judge"
            else []
        ),
    ]


async def upstream_run_examples(rows: list[dict], head_port: int) -> list[dict]:
    """RolloutCollectionHelper.run_examples as NeMo RL's Gym environment calls it."""
    from nemo_gym.rollout_collection import RolloutCollectionHelper
    from nemo_gym.server_utils import BaseServerConfig

    helper = RolloutCollectionHelper()
    results = []
    for future in helper.run_examples(examples=rows, head_server_config=BaseServerConfig(host="127.0.0.1", port=head_port)):
        _row, result = await future
        results.append(result)
    return results


@pytest.mark.parametrize(("kind", "env", "config_name"), ENVIRONMENTS, ids=[env for _, env, _ in ENVIRONMENTS])
def test_upstream_collectors_score_like_ngym_collect(kind: str, env: str, config_name: str, tmp_path: Path) -> None:
    if env in SANDBOXED and not bubblewrap_usable():
        pytest.skip(f"{env} runs code in the bubblewrap sandbox, which cannot make namespaces here")
    folder = REPO / kind / env
    config = folder / "configs" / f"{config_name}.yaml"
    agent = agent_of(yaml.safe_load(config.read_text()))
    examples = folder / "data" / "example.jsonl"
    recordings = folder / "data" / "example_rollouts.jsonl"
    inputs = read_jsonl(examples)

    with ngym_run(
        f"+config_paths=[{config.relative_to(REPO)},responses_api_models/replay_model/configs/replay_model.yaml]",
        f"+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath={recordings.relative_to(REPO)}",
        "+policy_model.responses_api_models.replay_model.strict=true",
        *(judge_replay(env, recordings, tmp_path) if env in JUDGED else []),
    ) as gym:
        ours_path = tmp_path / "ngym.jsonl"
        collected = ngym_cli(
            "collect", f"+head_server.port={gym.head_port}", f"+agent_name={agent}",
            f"+input_jsonl_fpath={examples}", f"+output_jsonl_fpath={ours_path}",
        )
        assert collected.returncode == 0, collected.stderr + collected.stdout

        upstream_path = tmp_path / "upstream.jsonl"
        upstream_cli = subprocess.run(
            [
                str(UPSTREAM_BIN / "ng_collect_rollouts"), f"+agent_name={agent}", f"+input_jsonl_fpath={examples}",
                f"+output_jsonl_fpath={upstream_path}", "+head_server.host=127.0.0.1", f"+head_server.port={gym.head_port}",
            ],
            cwd=tmp_path, capture_output=True, text=True, timeout=600,
        )
        assert upstream_cli.returncode == 0, upstream_cli.stderr[-4000:] + upstream_cli.stdout[-2000:]

        rows = [dict(row, agent_ref={"type": "responses_api_agents", "name": agent}) for row in inputs]
        in_process = LOOP.run_until_complete(upstream_run_examples(rows, gym.head_port))

    fields = MATCH_FIELDS.get(env)
    ours = by_input_row(inputs, read_jsonl(ours_path), fields)
    theirs = by_input_row(inputs, read_jsonl(upstream_path), fields)
    helper = by_input_row(inputs, in_process, fields)
    recorded = by_input_row(inputs, read_jsonl(recordings), fields)
    for index, row in enumerate(ours):
        assert scored_fields(theirs[index]) == scored_fields(row), f"ng_collect_rollouts row {index}"
        assert scored_fields(helper[index]) == scored_fields(row), f"run_examples row {index}"
        assert row["reward"] == recorded[index]["reward"], f"row {index}: reward {row['reward']} != recorded {recorded[index]['reward']}"
        # The trajectory itself: same tool outputs in the same order on every path.
        outputs = lambda result: [item.get("output") for item in result["response"]["output"] if item.get("type") == "function_call_output"]
        assert outputs(theirs[index]) == outputs(row) == outputs(helper[index])

    # Its last step asked our servers for /aggregate_metrics (through the environment server and the agent).
    [aggregate] = json.loads((tmp_path / "upstream_aggregate_metrics.json").read_text())
    rewards = [row["reward"] for row in theirs]
    assert aggregate["agent_metrics"]["mean/reward"] == pytest.approx(sum(rewards) / len(rewards))
    assert len(aggregate["group_level_metrics"]) == len(inputs)
