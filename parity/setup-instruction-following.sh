#!/usr/bin/env bash
# LOCAL-ONLY setup for the instruction_following parity run (docs/parity.md). Upstream NeMo Gym 0.7.0's
# instruction_following server imports `verifiable_instructions`, a package published only on GitHub, which needs
# nltk and NLTK's Punkt tokenizer data; CI can reach none of them, so this step is run by hand. It
#   1. pip-installs verifiable_instructions from a local git mirror of github.com/abukharin-nv/verifiable-instructions
#      (NGYM_VERIFIABLE_INSTRUCTIONS_MIRROR, default /work/.mirror/abukharin-nv+verifiable-instructions/repo) into
#      the parity venv (.venv, made by `npm run setup:python`), with its PyPI dependencies (nltk, langdetect,
#      absl-py, immutabledict);
#   2. places NLTK's `punkt_tab` English tables (the data 0.7.0's server would download at start, and what nltk >= 3.9
#      loads for `tokenizers/punkt/english.pickle`) under NLTK_DATA (default ~/nltk_data), OUTSIDE the repository,
#      taken from, in this order: NGYM_PUNKT_TAB_DIR (a folder holding english/{ortho_context,collocations}.tab and
#      english/{abbrev_types,sent_starters}.txt); NGYM_PUNKT_PICKLE (NLTK's legacy tokenizers/punkt/PY3/english.pickle,
#      converted by parity/punkt-pickle-to-tab.py: the same model; its ortho_context.tab comes out byte for byte
#      as NLTK ships it); else nltk's own downloader (needs network access to raw.githubusercontent.com).
# Nothing is written into the repository. Re-running is harmless.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${NGYM_PYTHON_VENV:-$root/.venv}
mirror=${NGYM_VERIFIABLE_INSTRUCTIONS_MIRROR:-/work/.mirror/abukharin-nv+verifiable-instructions/repo}
nltk_data=${NLTK_DATA:-$HOME/nltk_data}
say() { echo "setup-instruction-following: $*"; }
fail() { echo "setup-instruction-following: $*" >&2; exit 1; }

[ -x "$venv/bin/python" ] && [ -d "$venv/lib/python3.11/site-packages/nemo_gym" ] \
  || fail "no upstream venv at $venv: run \`npm run setup:python\` first"
git -C "$mirror" rev-parse --verify -q HEAD >/dev/null 2>&1 \
  || fail "no git mirror of verifiable-instructions at $mirror (set NGYM_VERIFIABLE_INSTRUCTIONS_MIRROR to a clone of https://github.com/abukharin-nv/verifiable-instructions)"

pip=("$venv/bin/python" -m pip --disable-pip-version-check)
say "[1/2] verifiable_instructions $(git -C "$mirror" rev-parse --short HEAD) from $mirror, with nltk, langdetect, absl-py, immutabledict from PyPI, into $venv"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
git -C "$mirror" archive HEAD | tar -x -C "$tree"
"${pip[@]}" install -q "nltk>=3.8,<4" "langdetect>=1.0.9,<2" "absl-py>=1.0.0,<3" "immutabledict>=2.0.0,<5"
"${pip[@]}" install -q --force-reinstall --no-deps "$tree"

target="$nltk_data/tokenizers/punkt_tab/english"
say "[2/2] NLTK punkt_tab (English) under $nltk_data"
if [ -f "$target/ortho_context.tab" ]; then
  say "already present: $target"
elif [ -n "${NGYM_PUNKT_TAB_DIR:-}" ]; then
  [ -f "$NGYM_PUNKT_TAB_DIR/english/ortho_context.tab" ] || fail "$NGYM_PUNKT_TAB_DIR has no english/ortho_context.tab"
  mkdir -p "$target" && cp "$NGYM_PUNKT_TAB_DIR"/english/* "$target/"
elif [ -n "${NGYM_PUNKT_PICKLE:-}" ]; then
  [ -f "$NGYM_PUNKT_PICKLE" ] || fail "NGYM_PUNKT_PICKLE=$NGYM_PUNKT_PICKLE is not a file"
  mkdir -p "$target" && chmod 700 "$target"
  (cd "$venv" && "$venv/bin/python" "$root/parity/punkt-pickle-to-tab.py" "$NGYM_PUNKT_PICKLE" "$target")
else
  "$venv/bin/python" -c "import nltk, sys; sys.exit(0 if nltk.download('punkt_tab', download_dir=sys.argv[1], quiet=True) else 1)" "$nltk_data" \
    || fail "could not download NLTK punkt_tab; set NGYM_PUNKT_TAB_DIR to a folder holding NLTK's punkt_tab english/ folder, or NGYM_PUNKT_PICKLE to NLTK's legacy tokenizers/punkt/PY3/english.pickle"
fi

cd "$venv"  # nltk >= 3.9 refuses imports from inside the working directory's tree when the venv lives there
NLTK_DATA="$nltk_data" "$venv/bin/python" - <<'PY' || fail "verifiable_instructions does not import or count sentences; see the error above"
from verifiable_instructions import instructions_util
assert instructions_util.count_sentences("One sentence. Two sentences. Dr. Smith came.") == 3
print("setup-instruction-following: ok: verifiable_instructions imports and nltk counts sentences")
PY
[ "$nltk_data" = "$HOME/nltk_data" ] || say "NLTK data is outside nltk's default path: export NLTK_DATA=$nltk_data before \`npm run parity\`"
