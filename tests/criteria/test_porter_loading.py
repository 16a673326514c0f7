"""The Porter stemmer is loaded without nltk's package import, stems exactly as nltk does, and leaves nltk
importable as usual."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys
    from agentgauge.criteria import _tokenize
    from agentgauge.criteria._rouge import adk_rouge1

    _tokenize._load()
    score = adk_rouge1("The cats were running quickly", "the cat runs quickly")
    assert not [m for m in sys.modules if m == "nltk" or m.startswith("nltk.")], "nltk left in sys.modules"
    assert "numpy" not in sys.modules and "rouge_score.rouge_scorer" not in sys.modules
    words = ["running", "generously", "cats", "happiness", "relational", "conditional", "dying", "agreed", "sky"]
    ours = [_tokenize._stemmer.stem(w) for w in words]

    import nltk  # the real package imports afterwards, with its own copy of the module
    from nltk.stem import porter
    assert nltk.stem.porter is porter
    assert ours == [porter.PorterStemmer().stem(w) for w in words], ours
    print(score.fmeasure)
    """
)


def test_stemmer_loads_without_nltk_package_and_matches_it() -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert float(run.stdout) == 2 * 0.8 * 1.0 / 1.8  # the, cat, run, quickli of 5 and 4 tokens
