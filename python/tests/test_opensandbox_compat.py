"""The `opensandbox` SDK (PyPI, 1.1.1) and upstream NeMo Gym 0.7.0's own OpenSandboxProvider against ngym's
OpenSandbox-compatible server (`ngym sandbox opensandbox-server`, backed by ngym's docker provider).

Both drive the server exactly as they would drive a real OpenSandbox: lifecycle under /v1/sandboxes and execd
through the server proxy. Needs the container engine (DOCKER_HOST) with ngym's base image; skips with the reason
otherwise. The server is stopped at the end, and no box it made may be left on the engine.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from conftest import NGYM, REPO, output_lines

BASE_IMAGE = os.environ.get("NGYM_TEST_SANDBOX_IMAGE", "localhost/ngym/base:bookworm")
API_KEY = "ngym-test-key"


def _skip_reason() -> str | None:
    if not os.environ.get("DOCKER_HOST"):
        return "no container engine: DOCKER_HOST is not set (scripts/container-engine.sh start)"
    docker = shutil.which("docker")
    if docker is None:
        return "no docker CLI to check the engine with"
    probe = subprocess.run([docker, "image", "inspect", BASE_IMAGE], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        return f"the engine at {os.environ['DOCKER_HOST']} has no {BASE_IMAGE} (ngym sandbox image build --base): {probe.stderr.strip()[:200]}"
    try:
        import opensandbox  # noqa: F401
    except ImportError:
        return "the opensandbox SDK is not installed (npm run setup:python)"
    return None


SKIP = _skip_reason()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=SKIP or "")


def _boxes_of_server(marker: str) -> list[str]:
    listed = subprocess.run(
        ["docker", "ps", "-a", "--filter", f"label=ngym.metadata.test-run={marker}", "--format", "{{.Names}}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return [name for name in listed.stdout.split() if name]


@pytest.fixture(scope="module")
def server():
    """`ngym sandbox opensandbox-server --port 0` with an API key, until the module's tests are done."""
    process = subprocess.Popen(
        [*NGYM, "sandbox", "opensandbox-server", "--port", "0", "--api-key", API_KEY],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = output_lines(process)
    output: list[str] = []
    domain = None
    while domain is None:
        line = lines.get(timeout=120)
        if line is None:
            raise RuntimeError(f"the server exited (code {process.wait()}):\n" + "".join(output))
        output.append(line)
        match = re.search(r"\(domain (\S+)\)", line)
        if match:
            domain = match.group(1)
    marker = f"pytest-{os.getpid()}"
    try:
        yield {"domain": domain, "marker": marker}
    finally:
        process.terminate()
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        left = _boxes_of_server(marker)
        if left:
            subprocess.run(["docker", "rm", "-f", *left], capture_output=True, timeout=60)
        assert code == 0, "".join(output)
        assert left == [], f"boxes left on the engine after the server stopped: {left}"


def test_opensandbox_sdk_against_ngym_server(server, tmp_path: Path):
    from opensandbox import Sandbox
    from opensandbox.config import ConnectionConfig
    from opensandbox.models.execd import RunCommandOpts

    async def scenario() -> None:
        config = ConnectionConfig(
            domain=server["domain"],
            protocol="http",
            api_key=API_KEY,
            headers={"OPEN-SANDBOX-API-KEY": API_KEY},
            use_server_proxy=True,
            request_timeout=timedelta(seconds=120),
        )
        box = await Sandbox.create(
            BASE_IMAGE,
            connection_config=config,
            env={"GREETING": "hello"},
            metadata={"test-run": server["marker"]},
            timeout=timedelta(minutes=10),
            ready_timeout=timedelta(seconds=120),
        )
        try:
            execution = await box.commands.run("echo $GREETING; echo oops >&2; exit 3")
            assert [message.text for message in execution.logs.stdout] == ["hello"]
            assert [message.text for message in execution.logs.stderr] == ["oops"]
            assert execution.exit_code == 3

            ok = await box.commands.run("pwd", opts=RunCommandOpts(working_directory="/tmp", envs={"X": "1"}))
            assert ok.exit_code == 0 and [message.text for message in ok.logs.stdout] == ["/tmp"]

            timed_out = await box.commands.run("sleep 30", opts=RunCommandOpts(timeout=timedelta(seconds=1)))
            assert timed_out.exit_code is None and timed_out.error is not None and "timed out" in timed_out.error.value

            await box.files.write_file("/tmp/in/a.txt", "from the sdk")
            assert await box.files.read_bytes("/tmp/in/a.txt") == b"from the sdk"

            background = await box.commands.run("echo later; exit 4", opts=RunCommandOpts(background=True))
            for _ in range(200):
                status = await box.commands.get_command_status(background.id)
                if not status.running:
                    break
                await asyncio.sleep(0.05)
            assert status.exit_code == 4
            assert (await box.commands.get_background_command_logs(background.id)).content == "later\n"

            endpoint = await box.get_endpoint(8000)
            assert endpoint.endpoint.endswith(f"/sandboxes/{box.id}/proxy/8000")
            assert str((await box.get_info()).status.state) == "Running"
        finally:
            await box.kill()
            await box.close()

    asyncio.run(scenario())


def test_upstream_opensandbox_provider_against_ngym_server(server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # The shipped transport (aiohttp) is Gym's global client, which reads the config a server of `ngym run` /
    # `ng_run` is given in NEMO_GYM_CONFIG_DICT; an empty one here.
    monkeypatch.setenv("NEMO_GYM_CONFIG_DICT", "{}")
    from nemo_gym import global_config, server_utils
    from nemo_gym.sandbox.providers.base import SandboxSpec
    from nemo_gym.sandbox.providers.opensandbox.provider import OpenSandboxProvider

    async def scenario(background_exec: bool) -> None:
        # The shipped configs/opensandbox.yaml's keys, pointed at ngym's server, polls shortened for the test.
        provider = OpenSandboxProvider(
            connection={"domain": f"http://{server['domain']}", "api_key": API_KEY, "request_timeout_s": 60, "use_server_proxy": True},
            create={"timeout_s": 120, "retries": 0},
            probe={"timeout_s": 30},
            operations={"background_exec": background_exec, "background_poll_initial_s": 0.05, "background_poll_interval_s": 0.2},
            attribution={"enabled": False},
        )
        handle = await provider.create(
            SandboxSpec(image=BASE_IMAGE, env={"GREETING": "hello"}, ttl_s=600, metadata={"test-run": server["marker"]})
        )
        try:
            result = await provider.exec(handle, "echo $GREETING; echo oops >&2; exit 3")
            assert result.return_code == 3 and result.error_type is None
            if background_exec:
                # The logs endpoint is one combined stream (upstream's documented behaviour).
                assert result.stdout == "hello\noops\n"
            else:
                assert (result.stdout, result.stderr) == ("hello", "oops\nCommandExecError: 3")

            timed_out = await provider.exec(handle, "sleep 30", timeout_s=1)
            assert timed_out.return_code == 125 and timed_out.error_type == "sandbox"
            assert "timed out" in (timed_out.stderr or "")

            source = tmp_path / f"up-{background_exec}.txt"
            source.write_text("from upstream")
            await provider.upload_file(handle, source, "/tmp/up/a.txt")
            target = tmp_path / f"down-{background_exec}" / "a.txt"
            await provider.download_file(handle, "/tmp/up/a.txt", target)
            assert target.read_text() == "from upstream"

            endpoint = await provider.endpoint(handle, 8000)
            assert endpoint.endpoint == f"http://{server['domain']}/v1/sandboxes/{handle.sandbox_id}/proxy/8000"
            assert endpoint.headers["OPEN-SANDBOX-API-KEY"] == API_KEY
            assert str(await provider.status(handle)) in {"running", "SandboxStatus.RUNNING"}
        finally:
            await provider.close(handle)
            await provider.aclose()

    async def both() -> None:
        # Foreground (SSE per command) and the shipped config's background_exec (status and logs polls), in one
        # event loop: Gym's global aiohttp client belongs to the loop that first used it.
        try:
            await scenario(False)
            await scenario(True)
        finally:
            # That client, and the empty config Gym cached, must not outlive this test: a later module's loop
            # (test_upstream_collector's) would otherwise wait forever on a client of this closed loop.
            if server_utils._GLOBAL_AIOHTTP_CLIENT is not None:
                await server_utils._GLOBAL_AIOHTTP_CLIENT.close()
                server_utils._GLOBAL_AIOHTTP_CLIENT = None

    cached_config = global_config._GLOBAL_CONFIG_DICT
    try:
        asyncio.run(both())
    finally:
        global_config._GLOBAL_CONFIG_DICT = cached_config
