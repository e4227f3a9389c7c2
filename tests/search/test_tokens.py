"""search/tokens.py: the one-pass split of text without spaceless scripts gives the terms the
run-by-run split gives (the rules search.js shares), on any text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from piexport.search.tokens import MAX_WORD, fold, folded_terms, run_terms, runs

WORDY = st.text(
    alphabet=st.sampled_from("ab_Z9 .-é\u0301ﬁİ\u00df東京タワー한국ไทย\n\t" + "x" * 5), max_size=200
)


def run_by_run(folded: str) -> list[str]:
    out: list[str] = []
    for run, spaceless in runs(folded):
        out.extend(run_terms(run, spaceless))
    return out


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(WORDY, st.text(max_size=200)))
def test_terms_are_the_same_either_way(text: str) -> None:
    folded = fold(text)
    assert folded_terms(folded) == run_by_run(folded)


def test_long_words_are_left_out_on_both_paths() -> None:
    long = "a" * (MAX_WORD + 1)
    assert folded_terms(f"short {long} word") == ["short", "word"]
    assert folded_terms(f"東京 {long}") == ["東京"]
