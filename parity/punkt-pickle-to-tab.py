"""Writes NLTK's legacy Punkt model (`tokenizers/punkt/PY3/english.pickle`) as the `punkt_tab` files nltk >= 3.9
reads for the same path (`nltk.data.load("...punkt/english.pickle")` is redirected to `punkt_tab/english`).
Used by setup-instruction-following.sh when punkt_tab cannot be downloaded. The pickle is read with an unpickler
that only lets the few classes a Punkt model holds through, so no other code can run while loading it.

usage: python punkt-pickle-to-tab.py <english.pickle> <out dir>
"""

import collections
import pickle
import sys

from nltk.tokenize import punkt

ALLOWED = {
    ("nltk.tokenize.punkt", "PunktSentenceTokenizer"): punkt.PunktSentenceTokenizer,
    ("nltk.tokenize.punkt", "PunktParameters"): punkt.PunktParameters,
    ("nltk.tokenize.punkt", "PunktLanguageVars"): punkt.PunktLanguageVars,
    ("nltk.tokenize.punkt", "PunktToken"): punkt.PunktToken,
    ("collections", "defaultdict"): collections.defaultdict,
    ("builtins", "int"): int,
    ("builtins", "set"): set,
}


class PunktUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) not in ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a Punkt model")
        return ALLOWED[(module, name)]


def main(source: str, out: str) -> None:
    with open(source, "rb") as file:
        tokenizer = PunktUnpickler(file).load()
    params = tokenizer._params
    punkt.save_punkt_params(params, dir=out)
    print(f"{out}: {len(params.abbrev_types)} abbreviations, {len(params.collocations)} collocations, "
          f"{len(params.sent_starters)} sentence starters, {len(params.ortho_context)} orthographic contexts")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
