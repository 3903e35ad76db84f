"""The candidate's side of a Python test run: load solution.py, then answer the harness's calls.

Not imported by judgegraph: the codec's source (`in_sandbox/python_codec.py`: encode, decode, send, recv) followed by
this one runs in the sandbox as `python3 -I candidate_server.py CALLS_FD REPLIES_FD`, a fresh process the
harness started, holding nothing of the harness's memory (no report marker, no tests). Whatever the
candidate's code does here, it can only answer calls: the assertions run in the harness, on plain data.
"""

import contextlib
import os
import sys
import types


def describe(error):
    try:
        return [type(error).__name__, str(error)[:2000]]
    except BaseException:  # an exception whose str() raises
        return [type(error).__name__, ""]


calls_in, replies_out = int(sys.argv[1]), int(sys.argv[2])
# The code loads as a module named `solution`, as graders import an answer (LeetCode's, LiveCodeBench's; HumanEval
# execs it in a namespace that is not `__main__` either): its `if __name__ == "__main__":` demo, which may read
# stdin or loop, does not run. Registered, so a dataclass or a pickle finds its module.
module = types.ModuleType("solution")
module.__file__ = "solution.py"
sys.modules["solution"] = module
namespace = module.__dict__
preset = {}
try:
    if os.path.exists("prelude.py"):  # what the statement's judge defines before the code (LeetCode's imports)
        with open("prelude.py") as f:
            exec(compile(f.read(), "prelude.py", "exec"), namespace)
        preset = dict(namespace)
    with open("solution.py") as f:
        source = f.read()
    exec(compile(source, "solution.py", "exec"), namespace)
except BaseException as e:  # whatever the code raised is its load error
    send(replies_out, {"load_error": ": ".join(describe(e))})
    sys.exit(0)

functions, values = [], {}
for name, value in list(namespace.items()):
    if name.startswith("__") or (name in preset and preset[name] is value):  # the prelude's, not the code's
        continue
    if callable(value):
        functions.append(name)
        continue
    with contextlib.suppress(TypeError, ValueError):  # modules and objects stay here: tests cannot use them
        values[name] = encode(value)
send(replies_out, {"functions": functions, "values": values})

while True:
    call = recv(calls_in)
    if call is None:
        sys.exit(0)
    try:
        args, kwargs = decode(call["args"]), decode(call["kwargs"])
        owner, _, method = call["function"].rpartition(".")
        # `Class.method`: a method of a fresh instance (LeetCode's `Solution().name(...)`)
        target = getattr(namespace[owner](), method) if owner else namespace[method]
        reply = {"ok": encode(target(*args, **kwargs))}
        if call.get("after"):  # the arguments as the call left them: in-place answers ("modify nums")
            reply["after"] = encode(args)
    except BaseException as e:  # the call's exception goes back to the test
        reply = {"error": describe(e)}
    send(replies_out, reply)
