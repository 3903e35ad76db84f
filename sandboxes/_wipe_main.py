"""Wiping a sandbox's scratch space between runs: the source both in-sandbox programs start with (the process
backend's zygote, `_zygote_main.py`, and Docker's runner, `_exec_main.py`). Not imported by judgegraph."""

import os
import shutil

WIPE = ("/work", "/tmp", "/dev/shm")


def wipe():
    """Remove everything under the scratch folders (the folders themselves stay: they are mounts)."""
    for top in WIPE:
        try:
            names = os.listdir(top)
        except OSError:
            continue
        for name in names:
            path = os.path.join(top, name)
            try:
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.unlink(path)
            except OSError:
                pass
