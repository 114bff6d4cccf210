/**
 * The swebench tests' task: an image built FROM the base image holding a git repository at /testbed whose check
 * script prints pytest-style result lines (`add` subtracts: test_add fails until fixed), and its row.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDockerfileImage } from '../../../src/sandbox/images/dockerfile-image.ts';
import { ImageEngine } from '../../../src/sandbox/images/image-engine.ts';

const IMAGE = 'localhost/ngym/swebench-server-test:latest';

/** `add` subtracts; the check prints one pytest summary line per test. */
const DOCKERFILE = (base: string) => `FROM ${base}
RUN mkdir /testbed && cd /testbed && git init -q \\
 && printf 'def add(a, b):\\n    return a - b\\n\\ndef double(a):\\n    return a * 2\\n' > calc.py \\
 && mkdir tests && printf '%s\\n' \\
   'cd /testbed' \\
   'python3 -c "import calc; assert calc.add(2, 3) == 5" && echo "PASSED tests/test_calc.py::test_add" || echo "FAILED tests/test_calc.py::test_add"' \\
   'python3 -c "import calc; assert calc.double(2) == 4" && echo "PASSED tests/test_calc.py::test_double" || echo "FAILED tests/test_calc.py::test_double"' > tests/test_calc.py \\
 && git add -A && git -c user.name=ngym -c user.email=ngym@localhost commit -qm base
WORKDIR /testbed
`;

export const GOLD = `diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -1,5 +1,5 @@
 def add(a, b):
-    return a - b
+    return a + b
 
 def double(a):
     return a * 2
`;

export const row = (overrides: Record<string, unknown> = {}) => ({
  instance_id: 'local__calc-1',
  repo: 'local/calc',
  base_commit: 'HEAD',
  patch: GOLD,
  test_patch: '',
  FAIL_TO_PASS: JSON.stringify(['tests/test_calc.py::test_add']),
  PASS_TO_PASS: JSON.stringify(['tests/test_calc.py::test_double']),
  image: IMAGE,
  test_cmd: 'bash tests/test_calc.py',
  log_parser: 'pytest',
  responses_create_params: { input: [{ role: 'user', content: 'add() subtracts' }] },
  ...overrides,
});

/** Builds the task image on the engine (cached by content: instant once built). */
export async function buildTestTaskImage(dockerHost: string, baseImage: string): Promise<void> {
  const context = mkdtempSync(join(tmpdir(), 'ngym-swebench-image-'));
  writeFileSync(join(context, 'Dockerfile'), DOCKERFILE(baseImage));
  const images = new ImageEngine(dockerHost);
  try {
    await buildDockerfileImage(images, { dockerfile: join(context, 'Dockerfile'), tag: IMAGE });
  } finally {
    await images.close();
    rmSync(context, { recursive: true, force: true });
  }
}
