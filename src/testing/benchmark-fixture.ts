/**
 * A root laid out like NeMo Gym's with small benchmarks on ngym's mcqa server (for `--search-dir`): `tiny`, whose
 * prepare.py writes its rows without any download, and benchmarks whose prepare scripts go wrong in each way a
 * user can meet (one raises, one writes another file, one writes nothing, one is missing).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A benchmark config in upstream's layout: its own copies of mcqa's servers (`_inherit_from`), one benchmark dataset. */
function benchmarkConfig(name: string, numRepeats: number): string {
  return `config_paths:
  - resources_servers/mcqa/configs/mcqa.yaml

${name}_mcqa_resources_server:
  _inherit_from: mcqa
  resources_servers:
    mcqa:
      grading_mode: lenient_answer_colon

${name}_mcqa_simple_agent:
  _inherit_from: mcqa_simple_agent
  responses_api_agents:
    simple_agent:
      resources_server:
        name: ${name}_mcqa_resources_server
      datasets:
      - name: ${name}
        type: benchmark
        jsonl_fpath: benchmarks/${name}/data/${name}_benchmark.jsonl
        prompt_config: benchmarks/${name}/prompts/default.yaml
        prepare_script: benchmarks/${name}/prepare.py
        num_repeats: ${numRepeats}

${name}_mcqa_environment_server:
  _inherit_from: mcqa_environment_server
  environment_servers:
    legacy_agent:
      agent_server:
        name: ${name}_mcqa_simple_agent
`;
}

const HEADER = 'import json\nfrom pathlib import Path\n\nOUTPUT_FPATH = Path(__file__).parent / "data" / "{name}_benchmark.jsonl"\n\n';

/** prepare.py bodies: `tiny` writes `count` questions whose answer is B for even ones, C for odd ones. */
const SCRIPTS: Record<string, string> = {
  tiny: `def prepare(count: int = 2) -> Path:
    OUTPUT_FPATH.parent.mkdir(parents=True, exist_ok=True)
    print(f"Writing {count} questions")
    with open(OUTPUT_FPATH, "w") as f:
        for index in range(count):
            options = [{"A": "red"}, {"B": "green"}, {"C": "blue"}, {"D": "black"}]
            problem = f"Question {index}: which colour?\\n" + "\\n".join(f"{k}: {v}" for o in options for k, v in o.items())
            f.write(json.dumps({"question": f"Question {index}", "problem": problem, "options": options, "expected_answer": "BC"[index % 2]}) + "\\n")
    return OUTPUT_FPATH
`,
  failing: `def prepare() -> Path:
    print("Loading the dataset from the Hub...")
    raise ConnectionError("the Hub cannot be reached")
`,
  elsewhere: `def prepare() -> Path:
    other = OUTPUT_FPATH.with_name("other.jsonl")
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text("{}\\n")
    return other
`,
  nodata: `def prepare():
    print("nothing to do")
`,
};

const TINY_PROMPT = "user: |-\n  Answer with a line 'Answer: <letter>'.\n\n  {problem}\n";

export function writeBenchmarkFixture(): string {
  const root = mkdtempSync(join(tmpdir(), 'ngym-benchmarks-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  for (const name of [...Object.keys(SCRIPTS), 'missing']) {
    write(`benchmarks/${name}/config.yaml`, benchmarkConfig(name, name === 'tiny' ? 2 : 1));
    write(`benchmarks/${name}/prompts/default.yaml`, TINY_PROMPT);
    write(`benchmarks/${name}/__init__.py`, '');
    const script = SCRIPTS[name];
    if (script !== undefined) write(`benchmarks/${name}/prepare.py`, HEADER.replace('{name}', name) + script);
  }
  write('benchmarks/tiny/manifest.yaml', 'name: tiny\nversion: 0.1.0\nexperimental: true\nkind: benchmark\ndomain: knowledge\ndescription: Two colour questions on mcqa\nmodality: text\nlicensing: MIT\nlifecycle: active\n');
  write('benchmarks/tiny/prompts/terse.yaml', 'system: "Be terse."\nuser: "{question}? Answer: <letter>"\n');
  return root;
}
