"""Unit tests for the config helpers (CPU, collected implicitly into stage-a-cpu)."""

import json


def test_roundtrip():
    data = {'lr': 1e-5, 'steps': 10}
    assert json.loads(json.dumps(data)) == data
