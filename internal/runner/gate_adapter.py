# The gate adapter of miles-ci: one process per run. It imports the
# repository's gate functions (named in sys.argv[1], a JSON object of
# "module:function" strings), builds the store and the provenance once,
# then evaluates one passed file per request line on stdin, a JSON object
# {"file", "record", "write_baseline", "backend", "suite"}. It answers on
# file descriptor 3, one line per message: "ready", "off" (the store
# function returned None), "done", or "error <text>". What the gate itself
# prints goes to stdout and stderr, which are the run's.
import importlib
import json
import os
import sys


def main():
    answers = os.fdopen(3, "w", buffering=1)

    def answer(text):
        sys.stdout.flush()
        sys.stderr.flush()
        answers.write(" ".join(str(text).splitlines()) + "\n")

    def load(spec):
        module, _, name = spec.partition(":")
        return getattr(importlib.import_module(module), name)

    sys.path.insert(0, os.getcwd())
    try:
        names = json.loads(sys.argv[1])
        hook, registry = load(names["hook"]), load(names["registry"])
        store = load(names["store"])()
        if store is None:
            answer("off")
            return
        provenance = load(names["provenance"])()
    except BaseException as e:  # the gate never fails a run
        answer(f"error {type(e).__name__}: {e}")
        return
    answer("ready")
    for line in sys.stdin:
        try:
            req = json.loads(line)
            regs = [
                r
                for r in registry(req["file"])
                if getattr(r.backend, "name", str(r.backend)).lower() == req["backend"] and r.suite == req["suite"]
            ]
            if not regs:
                raise LookupError(f"{req['file']} registers no {req['backend']} test in suite {req['suite']}")
            hook(
                req["file"],
                req["record"],
                store=store,
                registry=regs[0],
                write_baseline=req["write_baseline"],
                provenance=provenance,
            )
        except Exception as e:
            answer(f"error {type(e).__name__}: {e}")
            continue
        answer("done")


main()
