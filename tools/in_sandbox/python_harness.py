"""The test harness of a Python run: the tests run here, the candidate's code in another process.

Not imported by judgegraph: the codec's source (`python_codec.py`) followed by this one runs in the sandbox as
`python3 -I harness.py`. It reads the tests and the report marker from `.judgegraph-tests.json` and deletes the
file, makes itself undumpable (so the same uid cannot read its memory or descriptors through /proc or ptrace),
then starts the candidate's process (`candidate_server.py`, exec'd: it inherits none of this memory). Each
function the candidate defines is a proxy here; a test's call crosses as plain data and the result comes back
as plain data, so the candidate can neither see the marker and forge the report nor hand the test an object
that compares equal to anything. The candidate's output goes to a file (its tail is printed before the report);
the last marker line on stdout is the report.
"""

import builtins
import contextlib
import ctypes
import io
import json
import os
import signal
import subprocess
import sys

SPEC_FILE = ".judgegraph-tests.json"
OUTPUT_FILE = ".candidate-output"
"""The candidate's stdout and stderr: a file, so a flood meets the run's file-size limit at once."""
OUTPUT_TAIL = 64 * 1024
PR_SET_DUMPABLE = 4


class CaseTimeout(BaseException):
    pass


class CandidateGone(Exception):
    """The candidate's process died or broke the protocol during a call."""


def alarm(signum, frame):
    raise CaseTimeout()


def as_exception(kind, message):
    """The candidate's exception, as the same builtin type where there is one (tests may expect it)."""
    cls = getattr(builtins, kind, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return cls(message)
        except Exception:
            pass
    return RuntimeError(kind + ": " + message)


class Candidate:
    """The candidate's process, its functions callable from here."""

    def __init__(self, output):
        self.output = output
        self.process = None
        self.load_error = None
        self.functions, self.values = [], {}

    def start(self):
        calls_r, calls_w = os.pipe()
        replies_r, replies_w = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-u", "candidate_server.py", str(calls_r), str(replies_w)],
            pass_fds=(calls_r, replies_w),
            stdin=subprocess.DEVNULL,
            stdout=self.output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # one group: stopping it reaches what the candidate started
        )
        os.close(calls_r)
        os.close(replies_w)
        self.calls, self.replies = calls_w, replies_r
        hello = self.receive()
        if hello is None:
            self.load_error = f"the candidate's process exited while loading (status {self.process.wait()})"
        elif type(hello) is not dict:
            self.stop()
            self.load_error = "the candidate's process broke the protocol while loading"
        elif "load_error" in hello:
            self.load_error = str(hello["load_error"])
        else:
            self.functions = [str(name) for name in hello.get("functions", [])]
            self.values = {}
            for name, data in dict(hello.get("values", {})).items():
                with contextlib.suppress(ValueError, TypeError, RecursionError):
                    self.values[str(name)] = decode(data)

    def receive(self):
        try:
            return recv(self.replies)
        except (ValueError, RecursionError, OSError):
            return None

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def call(self, function, args, kwargs, after=False):
        """The call's value (with `after`: the value and the arguments as the call left them)."""
        try:
            message = {"function": function, "args": encode(list(args)), "kwargs": encode(dict(kwargs))}
            if after:
                message["after"] = True
        except (TypeError, ValueError) as e:
            raise TypeError(f"an argument cannot be sent to the candidate: {e}") from None
        try:
            send(self.calls, message)
        except OSError:
            raise CandidateGone("the candidate's process is gone") from None
        reply = self.receive()
        if type(reply) is not dict:
            self.stop()
            raise CandidateGone("the candidate's process died or broke the protocol during the call")
        if "error" in reply and type(reply["error"]) is list and len(reply["error"]) == 2:
            raise as_exception(str(reply["error"][0]), str(reply["error"][1]))
        try:
            if after:
                return decode(reply.get("ok")), decode(reply.get("after"))
            return decode(reply.get("ok"))
        except (ValueError, TypeError, RecursionError):
            raise CandidateGone("the candidate sent back malformed data") from None

    def proxy(self, name):
        def call(*args, **kwargs):
            return self.call(name, args, kwargs)

        call.__name__ = name
        return call

    def stop(self):
        if self.process is None:
            return
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for fd in (self.calls, self.replies):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.process = None


def namespace_for(candidate, setup, entry):
    """The tests' namespace: every name they use is their own binding or the real builtin; the candidate
    contributes only names that neither binds (the function under test, and what else the tests call of its).
    A candidate that defines `abs`, `set` or `sorted` would otherwise replace what the tests compare with, and
    every assertion would compare two of its constants; the function under test keeps its name even where that
    is a builtin's (the statement asked for it)."""
    ns = {"__name__": "__main__"}
    for name, value in candidate.values.items():
        if not hasattr(builtins, name):
            ns[name] = value
    for name in candidate.functions:
        if name == entry or not hasattr(builtins, name):
            ns[name] = candidate.proxy(name)
    exec(compile(setup, "tests (setup)", "exec"), ns)
    if entry and entry in candidate.functions:
        ns["candidate"] = ns[entry]
    return ns


def candidate_output():
    """The tail of what the candidate printed (its head cut, if it printed more)."""
    try:
        with open(OUTPUT_FILE, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - OUTPUT_TAIL))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


MAX_VALUE_CHARS = 100_000
"""An observed value's encoding beyond this is reported as too large, not compared."""


def observe(candidate, spec):
    """Calls, not tests: each call's value (and its arguments as it left them), encoded, for the judge to
    compare outside the sandbox (statement examples, differential testing)."""
    results = []
    signal.signal(signal.SIGALRM, alarm)
    stop_after, timeouts = spec.get("stop_after_timeouts"), 0  # as the stdin driver's
    for call in spec["calls"]:
        if stop_after is not None and timeouts >= stop_after:
            results.append(["not_run", f"not run: {timeouts} calls before it took longer than the time limit"])
            continue
        if not candidate.alive():
            candidate.stop()
            candidate.start()
            if candidate.load_error is not None:
                results.append(["error", "the candidate could not be loaded again: " + candidate.load_error])
                continue
        owner, _, name = call["function"].rpartition(".")
        if (owner or name) not in candidate.functions:
            if (owner or name) in spec.get("declared", ()):  # the judge read its definition: the code removed it
                results.append(["error", f"the code's {owner or name} is gone when called (defined, then removed)"])
            else:
                results.append(["error", "the code defines no " + (owner or name)])
            continue
        signal.setitimer(signal.ITIMER_REAL, spec["case_timeout"])
        try:
            value, after = candidate.call(call["function"], decode(call["args"]), decode(call["kwargs"]), after=True)
            text = json.dumps([encode(value), encode(after)])
            if len(text) > MAX_VALUE_CHARS:
                results.append(["error", "the value is too large to compare"])
            else:
                results.append(["passed", text])
        except CaseTimeout:
            candidate.stop()
            results.append(["timeout", f"took longer than {spec['case_timeout']:g}s"])
            timeouts += 1
        except BaseException as e:
            results.append(["error", type(e).__name__ + ": " + str(e)[:500]])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return results


def main():
    with open(SPEC_FILE) as f:
        spec = json.load(f)
    os.unlink(SPEC_FILE)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    out = sys.stdout
    results, load_error = [], None
    output = open(OUTPUT_FILE, "wb")  # noqa: SIM115 - the candidate's processes write to it until the end
    candidate = Candidate(output)
    candidate.start()
    load_error = candidate.load_error
    ns = None
    if load_error is None:
        try:
            ns = namespace_for(candidate, spec["setup"], spec["entry"])
        except BaseException as e:
            load_error = type(e).__name__ + ": " + str(e)
    if load_error is None and spec.get("calls") is not None:
        results = observe(candidate, spec)
    elif load_error is None:
        sys.stdout = io.StringIO()
        signal.signal(signal.SIGALRM, alarm)
        for i, case in enumerate(spec["cases"]):
            if not candidate.alive():  # a call killed it, or a case timed out: a fresh one for the next case
                candidate.stop()
                candidate.start()
                if candidate.load_error is not None:
                    results.append(["error", "the candidate could not be loaded again: " + candidate.load_error])
                    continue
            signal.setitimer(signal.ITIMER_REAL, spec["case_timeout"])
            try:
                exec(compile(case, f"test {i}", "exec"), ns)
                results.append(["passed", ""])
            except CaseTimeout:
                candidate.stop()
                results.append(["timeout", f"took longer than {spec['case_timeout']:g}s"])
            except AssertionError as e:
                results.append(["failed", str(e)])
            except BaseException as e:
                results.append(["error", type(e).__name__ + ": " + str(e)])
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    candidate.stop()
    output.close()
    sys.stdout = out
    out.write(candidate_output())
    out.write("\n" + spec["nonce"] + json.dumps({"load_error": load_error, "results": results}) + "\n")
    out.flush()


main()
