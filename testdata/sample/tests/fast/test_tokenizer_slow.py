"""A slower CPU test that declares its own estimate."""
from tests.ci.ci_register import register_cpu_ci

register_cpu_ci(est_time=30, suite="stage-a-cpu")


def test_many_tokens():
    words = ["tok%d" % i for i in range(10000)]
    assert len(set(words)) == 10000
