from tests.ci.ci_register import register_cpu_ci

register_cpu_ci(30, "stage-a-cpu")


def test_upper():
    assert "a".upper() == "A"
