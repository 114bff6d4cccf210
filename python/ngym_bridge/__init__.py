"""ngym_bridge: start ngym where NeMo RL or VeRL start NeMo Gym.

The trainers call `RunHelper().start(GlobalConfigDictParserConfig(...))` from `nemo_gym.cli` to launch
Gym's servers, then collect rollouts over HTTP with the Python `nemo_gym` package. This module provides
the same two names: `start` runs `ngym run` with the trainer's config and returns once every server
answers; `shutdown` stops them. Set NGYM_COMMAND if `ngym` is not on PATH, e.g.
NGYM_COMMAND="node /opt/ngym/bin/ngym.js". Install with `pip install <ngym checkout>/python`; in the trainer,
`from ngym_bridge import GlobalConfigDictParserConfig, RunHelper` replaces the import from `nemo_gym.cli`.
"""
import json
import os
import shlex
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional


@dataclass
class GlobalConfigDictParserConfig:
    """The fields of `nemo_gym.cli.GlobalConfigDictParserConfig` the trainers set."""

    dotenv_path: Optional[Path] = None
    initial_global_config_dict: Any = None
    skip_load_from_cli: bool = False


def _plain(value: Any) -> Any:
    """An OmegaConf DictConfig as plain dicts and lists, interpolations left for ngym to resolve."""
    try:
        from omegaconf import OmegaConf

        if OmegaConf.is_config(value):
            return OmegaConf.to_container(value, resolve=False)
    except ImportError:
        pass
    return value


__all__ = ["GlobalConfigDictParserConfig", "RunHelper"]


class RunHelper:
    """`ngym run` with the trainer's config, as `nemo_gym.cli.RunHelper` runs upstream's servers."""

    def start(self, global_config_dict_parser_config: GlobalConfigDictParserConfig, timeout_s: float = 600.0) -> None:
        parser_config = global_config_dict_parser_config
        config = dict(_plain(parser_config.initial_global_config_dict) or {})
        dotenv = parser_config.dotenv_path
        if dotenv is not None and Path(dotenv).is_file():
            import yaml

            config = {**(yaml.safe_load(Path(dotenv).read_text()) or {}), **config}
        # Config files the trainer names relative to its working directory; the others are ngym's own.
        config["config_paths"] = [
            str(Path(path).absolute()) if Path(path).exists() else path for path in config.get("config_paths", [])
        ]
        # NeMo RL's collector (the Python nemo_gym package) sends no auth token and Gym listens on 0.0.0.0 for
        # the Ray cluster: serve without one (ngym warns). Keep the cluster network private (docs/security.md).
        config.setdefault("allow_unauthenticated", True)
        # The trainer's config becomes env.yaml in a fresh directory: it wins over every config file,
        # and no other env.yaml is read. JSON is valid YAML.
        self._directory = tempfile.TemporaryDirectory(prefix="ngym-run-")
        (Path(self._directory.name) / "env.yaml").write_text(json.dumps(config))

        command = shlex.split(os.environ.get("NGYM_COMMAND", "ngym")) + ["run"]
        self._process = subprocess.Popen(
            command, cwd=self._directory.name, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
        )
        ready = threading.Event()
        tail: list = []
        started: list = []

        def forward_output() -> None:
            for line in self._process.stdout:
                print(f"[ngym] {line}", end="", flush=True)
                tail.append(line)
                del tail[:-40]
                if "servers ready" in line:
                    started.append(True)
                    ready.set()
            # End of output: the process is exiting (its exit status may not be there yet).
            ready.set()

        threading.Thread(target=forward_output, daemon=True).start()
        if not ready.wait(timeout_s) or not started or self._process.poll() is not None:
            self.shutdown()
            raise RuntimeError("ngym run did not become ready:\n" + "".join(tail))

    def shutdown(self) -> None:
        process = getattr(self, "_process", None)
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        directory = getattr(self, "_directory", None)
        if directory is not None:
            directory.cleanup()
