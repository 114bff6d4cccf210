#!/usr/bin/env bash
# Runs every test suite of the project one after another and ends with the line "N passed, N failed" over all
# of them. The README's test command (`npm run test:all`) and CI's .ci/run both call it.
set -uo pipefail
cd "$(dirname "$0")/.."
# On a Node older than package.json's engines, stop at once and say how to get one (scripts/check-node.mjs).
node scripts/check-node.mjs || { echo "0 passed, 1 failed"; exit 1; }
out=${NGYM_TEST_OUT:-.ci/out}
rm -rf "$out"
mkdir -p "$out"
status=0
# Every process the suites start inherits this tag; the last check finds any still alive by it.
export NGYM_SUITE_RUN="$$-$(date +%s)"

# suite KIND NAME COMMAND...: runs one suite. KIND says how its counts are read: vitest (JSON report),
# pytest (JUnit XML), check (a command that passes or fails as one test).
suite() {
  local kind=$1 name=$2
  shift 2
  local report="$PWD/$out/$name.$kind" rc
  echo "=== suite $name: $*"
  case $kind in
    vitest) NGYM_TEST_REPORT="$report" "$@" ;;
    pytest) "$@" --junitxml="$report" ;;
    check) "$@" ;;
    *) echo "unknown suite kind $kind" >&2; return 2 ;;
  esac
  rc=$?
  printf '%s\t%s\t%s\t%s\n' "$kind" "$name" "$rc" "$report" >>"$out/suites.tsv"
  [ "$rc" = 0 ] || status=1
}

# The Python side (upstream NeMo Gym 0.7.0 in .venv) first: the npm suites' upstream-parity tests use it too.
# A re-run with nothing changed returns at once.
python_ready=0
if npm run --silent setup:python; then python_ready=1; else echo "setup:python failed: the Python suites cannot run"; fi

suite vitest npm-test npm test

# Then two streams side by side, each mostly one core: the Python suites (upstream's own code against ngym's
# servers, then the catalog sample), and the package suite and static checks. (`ngym test-all` over the repository
# would run every server folder's tests a second time; what it alone checks, each folder's data, is a test of
# npm test: src/cli/commands/test-all-repository.test.ts.) Nothing of one is shared with
# the other (port 0, their own temporary folders; a checkout runs ngym from src/, not the dist/ `npm pack` rebuilds).
# The Python stream's output is printed after it ends, not interleaved.
python_log="$out/python-stream.log"
(
  if [ "$python_ready" = 1 ]; then
    # pytest has no per-test time limit here: a test that waits forever fails the suite at 45 min instead of
    # holding CI to its end.
    suite pytest python-interop timeout --kill-after=30 2700 "${NGYM_PYTHON_VENV:-.venv}/bin/python" -m pytest -c python/pytest.ini --rootdir=python python/tests -q
    # Upstream 0.7.0 servers under `ngym run`, each equal to its own recording under strict replay, every field
    # compared: Python on the base, Python with its own venv (uv), a Gymnasium environment, and TypeScript
    # (docs/environments/catalog.md). grl_sokoban and example_multi_step left it with strict comparison: their recordings'
    # requests carry parameters their task rows do not (temperature 0.7 and max_output_tokens 8192; user "").
    suite check catalog-sample npm run catalog -- citation_if assaybench example_multi_turn_gymnasium calendar --check --out "$out/catalog"
  else
    suite check python-interop false
  fi
) >"$python_log" 2>&1 &
python_stream=$!
suite vitest package npm run test:package
suite check knip npm run knip
suite check dependencies npm run depcruise
wait "$python_stream"
cat "$python_log"

# The container engine .ci/run started (npm run setup:containers) ends here, so that the last check finds none of it.
if [ -n "${NGYM_ENGINE_STOP_BEFORE_LEFTOVERS:-}" ]; then bash scripts/container-engine.sh stop; fi

# Last: no process a suite started outlives it (server children, ngym commands, Python servers, sandboxes,
# the container engine and its boxes).
suite check leftovers node --import tsx scripts/leftover-processes.mjs --since-pid $$

node .ci/summarize.mjs "$out/suites.tsv"
# The Python stream ran in a subshell: its suites' exit codes are read from the list, not from $status.
if awk -F'\t' '$3 != 0 { bad = 1 } END { exit bad ? 0 : 1 }' "$out/suites.tsv"; then status=1; fi
exit $status
