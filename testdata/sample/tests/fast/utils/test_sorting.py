"""Unit tests for the sorting helpers (CPU, collected implicitly into stage-a-cpu)."""

def test_sorted_is_stable():
    pairs = [(1, 'b'), (0, 'a'), (1, 'a')]
    assert sorted(pairs, key=lambda p: p[0]) == [(0, 'a'), (1, 'b'), (1, 'a')]
