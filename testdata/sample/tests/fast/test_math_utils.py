"""Unit tests for the math helpers (CPU, collected implicitly into stage-a-cpu)."""

def test_add():
    assert 1 + 1 == 2


def test_mul():
    assert 3 * 4 == 12
