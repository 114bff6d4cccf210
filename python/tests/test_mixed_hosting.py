"""Mixed hosting: `ngym run` starts upstream NeMo Gym 0.7.0's Python servers from the installed wheel next to
ngym's own, from ordinary config entries (`entrypoint: app.py`, `python_executable`, `python_server_roots`).

(b) ngym's simple_agent drives upstream's Python resources servers; (a) upstream's Python simple_agent drives
an ngym resources server and ngym's replay_model. In both, `ngym collect` over the environment's example rows
must give the rewards of the all-TypeScript setup (the recordings, which ngym's own servers reproduce).
"""

from __future__ import annotations

import re
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from conftest import REPO, agent_of, ngym_cli, ngym_run, read_jsonl

SITE_PACKAGES = Path(next(path for path in sys.path if path.endswith("site-packages")))
# prefer_upstream: upstream's app.py runs even where ngym has a TypeScript server of the same name.
PYTHON_KEYS = {"python_executable": sys.executable, "python_server_roots": [str(SITE_PACKAGES)], "prefer_upstream": True}


def mixed_config(env: str, config_name: str, python_type: str, tmp_path: Path) -> tuple[Path, str]:
    """The environment's own config with the servers of `python_type` switched to upstream's app.py."""
    config = yaml.safe_load((REPO / "resources_servers" / env / "configs" / f"{config_name}.yaml").read_text())
    agent = agent_of(config)
    for entry in config.values():
        if isinstance(entry, dict) and python_type in entry:
            for inner in entry[python_type].values():
                inner["entrypoint"] = "app.py"
    path = tmp_path / f"{env}_mixed.yaml"
    path.write_text(yaml.safe_dump({**PYTHON_KEYS, **config}))
    return path, agent


# The route each kind of server answers once per rollout.
ROLLOUT_ROUTE = {"resources_servers": "/verify", "responses_api_agents": "/run"}


def python_server_answers(output: list[str], route: str) -> float:
    """How many requests to `route` the run's Python server answered with 200, by its Prometheus `GET /metrics`."""
    url = next(re.search(r"http://[\d.]+:\d+", line).group(0) for line in output if " Python /" in line)
    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as response:
        families = text_string_to_metric_families(response.read().decode())
    return sum(
        sample.value
        for family in families
        for sample in family.samples
        if sample.name == "http_server_request_duration_seconds_count"
        and sample.labels == {"http_request_method": "POST", "http_route": route, "http_response_status_code": "200"}
    )


CASES = [
    ("example_single_tool_call", "example_single_tool_call", "resources_servers"),
    ("reasoning_gym", "reasoning_gym", "resources_servers"),
    ("mcqa", "mcqa", "resources_servers"),
    ("example_single_tool_call", "example_single_tool_call", "responses_api_agents"),
    ("example_multi_step", "example_multi_step", "responses_api_agents"),
]


@pytest.mark.parametrize(("env", "config_name", "python_type"), CASES, ids=[f"{env}-python-{kind}" for env, _, kind in CASES])
def test_mixed_hosting_scores_like_all_typescript(env: str, config_name: str, python_type: str, tmp_path: Path) -> None:
    config, agent = mixed_config(env, config_name, python_type, tmp_path)
    folder = REPO / "resources_servers" / env
    recordings = folder / "data" / "example_rollouts.jsonl"
    with ngym_run(
        f"+config_paths=[{config},responses_api_models/replay_model/configs/replay_model.yaml]",
        f"+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath={recordings.relative_to(REPO)}",
    ) as gym:
        # The table ngym run prints: the switched servers run upstream's code.
        assert any(python_type in line and "app.py" not in line for line in gym.output)
        output = tmp_path / "rollouts.jsonl"
        collected = ngym_cli(
            "collect", f"+head_server.port={gym.head_port}", f"+agent_name={agent}",
            f"+input_jsonl_fpath={folder / 'data' / 'example.jsonl'}", f"+output_jsonl_fpath={output}",
        )
        assert collected.returncode == 0, collected.stderr + collected.stdout + "".join(gym.output[-30:])
        # ngym run serves Prometheus metrics for upstream's server too: one request a rollout.
        assert python_server_answers(gym.output, ROLLOUT_ROUTE[python_type]) == 5
    # Upstream's Python servers echo the request as pydantic parsed it (`type`, `phase: null` added): a task is its user text.
    key = lambda row: str([item.get("content") for item in row["responses_create_params"]["input"] if item.get("role") == "user"])
    expected = {key(row): row["reward"] for row in read_jsonl(recordings)}
    results = read_jsonl(output)
    assert len(results) == 5
    for result in results:
        assert result["reward"] == expected[key(result)], key(result)[:200]


def test_a_python_server_that_dies_at_start_is_named_with_its_log(tmp_path: Path) -> None:
    config, _agent = mixed_config("example_single_tool_call", "example_single_tool_call", "resources_servers", tmp_path)
    broken = yaml.safe_load(config.read_text())
    broken["python_executable"] = str(tmp_path / "no-such-python")
    config.write_text(yaml.safe_dump(broken))
    with pytest.raises(RuntimeError, match=r"example_single_tool_call[\s\S]*no-such-python"):
        with ngym_run(f"+config_paths=[{config},responses_api_models/replay_model/configs/replay_model.yaml]", "+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=x.jsonl"):
            pass
