"""Unit tests for the strings helpers (CPU, collected implicitly into stage-a-cpu)."""

def test_upper():
    assert 'miles'.upper() == 'MILES'


def test_split():
    assert 'a b c'.split() == ['a', 'b', 'c']
