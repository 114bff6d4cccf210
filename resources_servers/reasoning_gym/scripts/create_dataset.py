"""Writes a reasoning_gym dataset with the reasoning-gym library itself, as NeMo Gym's
`resources_servers/reasoning_gym/scripts/create_dataset.py` does, with the same flags and row format, so the
training guides' command lines work as written:

    python resources_servers/reasoning_gym/scripts/create_dataset.py --task mini_sudoku --size 2000 --seed 42 --output data/train.jsonl

One task: rows 0..size-1 of `reasoning_gym.create_dataset(task, size=, seed=, **config)`. Several tasks: the
library's "composite" dataset with equal weights and per-task configs keyed by task name. Each row is
`json.dumps({"responses_create_params": ..., **entry, "agent_ref": ...})`, so the file holds the library's own
bytes. `ngym reasoning-gym create-dataset` runs this script for tasks ngym has not ported to TypeScript.

Categories come from the library's own package layout (reasoning_gym.<category>.<task>).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def library_tasks() -> dict[str, list[str]]:
    """Task names by category, from the library's registry (the composite meta-task excluded)."""
    from reasoning_gym.factory import DATASETS

    categories: dict[str, list[str]] = {}
    for name, (dataset_cls, _config_cls) in sorted(DATASETS.items()):
        if name == "composite":
            continue
        category = dataset_cls.__module__.split(".")[1]
        categories.setdefault(category, []).append(name)
    return categories


def nemo_gym_row(entry: dict, agent_name: str) -> dict:
    return {
        "responses_create_params": {"input": [{"role": "user", "content": entry["question"]}]},
        **entry,
        "agent_ref": {"type": "responses_api_agents", "name": agent_name},
    }


def build_dataset(task_names: list[str], size: int, seed: int, config: dict):
    import reasoning_gym
    from reasoning_gym.composite import DatasetSpec

    known = {name for names in library_tasks().values() for name in names}
    unknown = [name for name in task_names if name not in known]
    if unknown:
        raise SystemExit(f"Unknown reasoning_gym task(s): {', '.join(unknown)}. Tasks: {', '.join(sorted(known))}.")
    if len(task_names) == 1:
        return reasoning_gym.create_dataset(task_names[0], **{**config, "size": size, "seed": seed})
    strays = [key for key in config if key not in task_names]
    if strays:
        raise SystemExit(f"With several tasks --config is keyed by task name; {', '.join(strays)} is not one of them.")
    specs = [DatasetSpec(name=name, weight=1.0, config=config.get(name, {})) for name in task_names]
    return reasoning_gym.create_dataset("composite", size=size, seed=seed, datasets=specs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Create a reasoning_gym dataset (NeMo Gym rows) with the reasoning-gym library.")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--task", help="one task, e.g. mini_sudoku")
    which.add_argument("--tasks", help="comma-separated tasks, mixed with equal weight")
    which.add_argument("--category", help="every task of a library category (logic, arithmetic, games, ...)")
    which.add_argument("--all-tasks", action="store_true", help="every task of the library")
    which.add_argument("--list-tasks", action="store_true", help="print the library's tasks by category as JSON and exit")
    parser.add_argument("--size", type=int, default=500)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--config", default="{}", help="task config as a JSON object (keyed by task name with several tasks)")
    parser.add_argument("--agent-name", default="reasoning_gym_simple_agent", help="agent_ref name of every row")
    parser.add_argument("--output")
    args = parser.parse_args(argv)
    if args.list_tasks:
        print(json.dumps(library_tasks()))
        return 0
    if not args.output:
        parser.error("the following arguments are required: --output")

    try:
        config = json.loads(args.config)
    except json.JSONDecodeError as error:
        parser.error(f"--config is not valid JSON: {error}")
    if not isinstance(config, dict):
        parser.error("--config must be a JSON object")
    if args.size < 0:
        parser.error("--size must be non-negative")

    categories = library_tasks()
    if args.task:
        task_names = [args.task]
    elif args.tasks:
        task_names = [name.strip() for name in args.tasks.split(",") if name.strip()]
    elif args.category:
        if args.category not in categories:
            parser.error(f"unknown category {args.category!r}; categories: {', '.join(categories)}")
        task_names = categories[args.category]
    else:
        task_names = [name for names in categories.values() for name in names]

    dataset = build_dataset(task_names, args.size, args.seed, config)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    counts: dict[str, int] = {}
    skipped = 0
    try:
        with open(partial, "w") as file:
            for index in range(args.size):
                try:
                    entry = dataset[index]
                except Exception as error:  # upstream's script skips an item the library fails to make
                    skipped += 1
                    print(f"warning: item {index} could not be generated: {error!r}; skipped", file=sys.stderr)
                    continue
                file.write(json.dumps(nemo_gym_row(entry, args.agent_name)) + "\n")
                task = entry["metadata"].get("source_dataset", "?")
                counts[task] = counts.get(task, 0) + 1
        if args.size > 0 and not counts:
            raise SystemExit("No entries generated.")
        os.replace(partial, output)
    finally:
        if partial.exists():
            partial.unlink()
    distribution = ", ".join(f"{task}: {count}" for task, count in sorted(counts.items()))
    print(f"Wrote {sum(counts.values())} rows (seed {args.seed}; {distribution}) to {output.resolve()}"
          + (f"; {skipped} item(s) skipped" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
