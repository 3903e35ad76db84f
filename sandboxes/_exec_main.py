"""The in-container half of a Docker run: untar the files into a fresh /work/run.XXXXXX, run the command under its
limits (CPU seconds, file size, wall clock), then kill whatever the run left and wipe the scratch space.

Not imported by judgegraph: its source, after `_wipe_main.py`'s, runs as `python3 -I -S -c SOURCE CPU_S FSIZE_BYTES
WALL_S COMMAND...` through `docker exec`, as the sandbox user. It makes itself undumpable first: it holds the run's
stdout, which carries the run's report, and a process of the same uid could otherwise open it through
/proc/<pid>/fd/1, take the report off the pipe and write a forged one (a `sh` and `timeout` did this job before,
and a detached daemon of the candidate's won that race in half the runs). The harness and the driver it runs make
themselves undumpable too before any candidate code starts. Exit status: the command's, 128 + N for a signal N, 124
past the wall clock, 125 when the run could not be prepared.
"""

import contextlib
import ctypes
import os
import resource
import signal
import sys

PR_SET_DUMPABLE = 4


def prepare():
    """A fresh run directory holding the files (a tar on stdin); returns the run's stdin descriptor."""
    import tempfile

    where = tempfile.mkdtemp(prefix="run.", dir="/work")
    os.chdir(where)
    pid = os.fork()
    if pid == 0:
        os.execvp("tar", ["tar", "-x", "-o", "-f", "-"])
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(125)
    name = ".judgegraph-stdin" if os.path.isfile(".judgegraph-stdin") else os.devnull
    return os.open(name, os.O_RDONLY)


def run(command, stdin, cpu_s, fsize, wall_s):
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            os.dup2(stdin, 0)
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            os.execvp(command[0], command)
        except OSError as e:
            os.write(2, f"cannot run {command[0]}: {e}\n".encode())
        os._exit(127)
    timed_out = []

    def expire(*_):
        timed_out.append(True)
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, wall_s)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    signal.setitimer(signal.ITIMER_REAL, 0)
    if timed_out:
        return 124
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def main():
    try:
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        sys.exit(125)  # without it the report channel is open to the run: refuse to run
    cpu_s, fsize, wall_s = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    stdin = prepare()
    rc = run(sys.argv[4:], stdin, cpu_s, fsize, wall_s)
    with contextlib.suppress(OSError):  # everything of this uid the run left behind, detached or not (not this one)
        os.kill(-1, signal.SIGKILL)
    os.chdir("/")
    wipe()
    sys.exit(rc)


main()
