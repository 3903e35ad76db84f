"""The languages `run_code` builds and runs and the judge calls into, one module each: its fence tags, how a
program and a test program are built and run (and the completion record a test's `main` writes), how a function
or method is called the way LeetCode calls it, and how values travel. Importing this package imports every module
in it, and each registers its language (`judgegraph.tools.code.language`, the registry): a new language is one new
module here (and its sandbox-side runner in `tools/in_sandbox/`). What the compiled and interpreted languages
share is `_base.py` (`ProgramLanguage`: a program built, run and called through stdin and stdout) and
`_values.py` (how values travel): public names only, the protocol a language module uses."""

import importlib
import pkgutil

from judgegraph.tools.code.languages._base import ProgramLanguage

__all__ = ("ProgramLanguage",)

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")
