"""Unit tests for the rewards helpers (CPU, collected implicitly into stage-a-cpu)."""

def normalize(xs):
    total = sum(xs)
    return [x / total for x in xs]


def test_normalize_sums_to_one():
    assert abs(sum(normalize([1, 2, 3])) - 1.0) < 1e-9
