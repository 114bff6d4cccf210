#!/usr/bin/env bash
# Makes the git-ignored virtual environment that the Python interop, parity and comparison suites run in:
# upstream NeMo Gym 0.7.0 from PyPI with its dependencies pinned for Python 3.11, pytest, and ngym's bridge
# package. `npm run setup:python` runs it; a re-run with nothing changed returns at once.
#
#   NGYM_PYTHON       interpreter to build the venv from (default: python3; 3.11 or newer)
#   NGYM_PYTHON_VENV  where the venv goes (default: <project>/.venv)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
venv=${NGYM_PYTHON_VENV:-$root/.venv}
python=${NGYM_PYTHON:-python3}
nemo_gym_version=0.7.0

command -v "$python" >/dev/null || { echo "setup:python: $python not found; install Python 3.11 or newer" >&2; exit 1; }
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
  || { echo "setup:python: $("$python" --version 2>&1) is too old; Python 3.11 or newer is needed" >&2; exit 1; }

# The stamp covers everything that decides the venv's contents, so any change rebuilds what changed.
stamp_of() {
  { "$python" --version 2>&1; echo "nemo-gym==$nemo_gym_version"; cat "$here/requirements.txt" "$here/setup.sh";
    if [ -f "$here/pyproject.toml" ]; then
      find "$here/pyproject.toml" "$here/ngym_bridge" -type f -not -path '*/__pycache__/*' | sort | xargs cat; fi; } \
    | sha256sum | cut -d' ' -f1
}
stamp=$(stamp_of)
if [ -f "$venv/.ngym-setup-stamp" ] && [ "$(cat "$venv/.ngym-setup-stamp")" = "$stamp" ]; then
  echo "setup:python: $venv is up to date"
  exit 0
fi

started=$(date +%s)
echo "setup:python: building $venv with $("$python" --version 2>&1)"
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check)
echo "setup:python: [1/3] pinned dependencies (python/requirements.txt)"
"${pip[@]}" install -q -r "$here/requirements.txt"
echo "setup:python: [2/3] nemo-gym==$nemo_gym_version (no deps; its wheel declares Python >= 3.13)"
"${pip[@]}" install -q --no-deps --ignore-requires-python "nemo-gym==$nemo_gym_version"
if [ -f "$here/pyproject.toml" ]; then
  echo "setup:python: [3/3] ngym bridge package (python/)"
  "${pip[@]}" install -q --no-deps -e "$here"
else
  echo "setup:python: [3/3] no bridge package yet"
fi
echo "$stamp" >"$venv/.ngym-setup-stamp"
echo "setup:python: done in $(($(date +%s) - started)) s: $venv"
