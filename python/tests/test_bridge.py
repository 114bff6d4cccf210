"""ngym_bridge (python/), as NeMo RL's NemoGym environment uses `nemo_gym.cli`: `RunHelper.start` with the
trainer's config dict, rollouts through upstream 0.7.0's `RolloutCollectionHelper.run_examples` against the head
server, `shutdown`. The model is replay_model over the environment's recorded example rollouts.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest

from conftest import NGYM, REPO, read_jsonl
from ngym_bridge import GlobalConfigDictParserConfig, RunHelper

ENV = REPO / "resources_servers" / "example_multi_step"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(autouse=True)
def ngym_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NGYM_COMMAND", " ".join(NGYM))


def json_key(row: dict) -> str:
    return json.dumps(row["responses_create_params"]["input"], sort_keys=True)


def nemo_rl_config(port: int) -> dict:
    """The initial global config dict NeMo RL builds (its policy_base_url is a list of vLLM servers)."""
    return {
        "config_paths": [
            str(ENV / "configs" / "example_multi_step.yaml"),
            "responses_api_models/replay_model/configs/replay_model.yaml",
        ],
        "policy_model": {"responses_api_models": {"replay_model": {"rollouts_jsonl_fpath": str(ENV / "data" / "example_rollouts.jsonl"), "strict": True}}},
        "policy_model_name": "policy",
        "policy_api_key": "dummy_key",
        "policy_base_url": ["http://127.0.0.1:1/v1"],
        "global_aiohttp_connector_limit_per_host": 16384,
        "global_aiohttp_connector_limit": 65536,
        "head_server": {"host": "127.0.0.1", "port": port},
    }


def test_nemo_rl_sequence_collects_the_recorded_rewards(tmp_path: Path) -> None:
    from nemo_gym.rollout_collection import RolloutCollectionHelper
    from nemo_gym.server_utils import BaseServerConfig

    port = free_port()
    helper = RunHelper()
    helper.start(
        global_config_dict_parser_config=GlobalConfigDictParserConfig(
            dotenv_path=tmp_path / "absent_env.yaml", initial_global_config_dict=nemo_rl_config(port), skip_load_from_cli=True
        )
    )
    try:
        rows = [dict(row, agent_ref={"type": "responses_api_agents", "name": "example_multi_step_simple_agent"}, _rowidx=index) for index, row in enumerate(read_jsonl(ENV / "data" / "example.jsonl"))]

        async def collect() -> list[dict]:
            results = []
            for future in RolloutCollectionHelper().run_examples(examples=rows, head_server_config=BaseServerConfig(host="127.0.0.1", port=port)):
                _row, result = await future
                results.append(result)
            from nemo_gym import server_utils

            await server_utils._GLOBAL_AIOHTTP_CLIENT.close()
            server_utils._GLOBAL_AIOHTTP_CLIENT = None
            return results

        results = asyncio.run(collect())
    finally:
        helper.shutdown()

    recorded = read_jsonl(ENV / "data" / "example_rollouts.jsonl")
    rewards = {json_key(row): row["reward"] for row in recorded}
    assert len(results) == 5
    assert sorted(result["_rowidx"] for result in results) == [0, 1, 2, 3, 4]
    for result in results:
        assert result["reward"] == rewards[json_key(result)]
    # shutdown stopped every server: the head server no longer answers.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_start_fails_with_ngyms_own_error_when_the_config_is_wrong(tmp_path: Path) -> None:
    config = nemo_rl_config(free_port())
    config["config_paths"] = ["resources_servers/no_such_environment/configs/nothing.yaml"]
    helper = RunHelper()
    with pytest.raises(RuntimeError, match=r"did not become ready[\s\S]*no_such_environment"):
        helper.start(global_config_dict_parser_config=GlobalConfigDictParserConfig(initial_global_config_dict=config, skip_load_from_cli=True))
    helper.shutdown()
