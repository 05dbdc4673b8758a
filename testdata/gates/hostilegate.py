"""A metric-history gate that misbehaves, for miles-ci's tests.

The store, provenance and registry functions behave; the hook does the acts
listed in $HOSTILE_GATE (comma-separated, in order) after writing the
adapter's pid to $HOSTILE_GATE_DIR/adapter.pid:

  closefd  close the adapter's answer descriptor (3)
  daemon   start a helper in a new session that keeps the adapter's stdout,
           stderr and answer pipe
  fork     fork a child that keeps stdout and stderr (not the answers), and
           let the adapter die with status 3
  block    write $HOSTILE_GATE_DIR/blocked and sleep for an hour

A helper's pid goes to $HOSTILE_GATE_DIR/helper.pid and its command line
holds $HOSTILE_GATE_DIR, for a test to find it in /proc. The registry
registers every file in the CUDA suite $HOSTILE_GATE_SUITE.
"""

import enum
import os
import subprocess
import sys
import time


class Backend(enum.Enum):
    CUDA = enum.auto()


class Registration:
    def __init__(self, filename, suite):
        self.filename, self.backend, self.suite = filename, Backend.CUDA, suite


def build_store():
    return {}


def provenance():
    return {}


def registry(filename):
    return [Registration(filename, os.environ["HOSTILE_GATE_SUITE"])]


def _note(name, value=""):
    with open(os.path.join(os.environ["HOSTILE_GATE_DIR"], name), "w") as f:
        f.write(str(value))


def hook(filename, record, *, store, registry, write_baseline, provenance):
    mark = os.environ["HOSTILE_GATE_DIR"]
    _note("adapter.pid", os.getpid())
    helper = [sys.executable, "-c", "import time; time.sleep(3600)", mark]
    for act in os.environ["HOSTILE_GATE"].split(","):
        if act == "closefd":
            os.close(3)
        elif act == "daemon":
            _note("helper.pid", subprocess.Popen(helper, start_new_session=True, pass_fds=(3,)).pid)
        elif act == "fork":
            pid = os.fork()
            if pid == 0:
                os.close(3)
                os.execv(sys.executable, helper)
            _note("helper.pid", pid)
            os._exit(3)
        elif act == "block":
            _note("blocked")
            time.sleep(3600)
        else:
            raise ValueError(f"unknown act {act!r}")
