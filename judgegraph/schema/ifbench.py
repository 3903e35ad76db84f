"""IFBench's instruction types (AllenAI's out-of-distribution instruction-following benchmark), checked by the
official checker's code as `if_verifiable` ships it (Apache-2.0; the `ifbench` extra), strict and loose.

IFBench rows come in IFEval's shape (`instruction_id_list` + `kwargs`, read by `_shapes.py`); an id that is not
one of IFEval's 25 is an IFBench instruction. A few instructions are checked against the task's own prompt
(repeat the request, ...): the loader passes it along. The official code calls NLTK for some instructions
(sentence and word tokenizers, a part-of-speech tagger, a stop-word list); where NLTK's data is not installed
(it is downloaded, never packaged, and this project never downloads at run time) the check says it could not
be made and counts as not followed for every response alike, so it never decides between them."""

from __future__ import annotations

import contextlib
import functools
import io
import re
from typing import Any, Literal

from pydantic import field_validator

from judgegraph.schema._constraint_base import Check, _BenchmarkInstruction

INSTALL_HINT = "IFBench instructions need the `ifbench` extra: pip install 'judgegraph[ifbench]'"


@functools.cache
def ifbench_checkers() -> dict[str, Any]:
    """IFBench's instruction id -> the official checker class."""
    try:
        # Importing it tries to download NLTK data (and says so on stderr when offline): keep that quiet.
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            from if_verifiable.ifbench.instructions_registry import INSTRUCTION_DICT
    except ImportError as e:
        raise ValueError(f"{INSTALL_HINT} ({e})") from None
    return dict(INSTRUCTION_DICT)


class IFBenchInstruction(_BenchmarkInstruction):
    """One IFBench instruction (`instruction_id` with its `kwargs`), checked by the official checker's code."""

    kind: Literal["ifbench"] = "ifbench"
    prompt: str | None = None
    """The task's prompt, for the instructions that are checked against it."""

    @field_validator("instruction_id")
    @classmethod
    def _known(cls, value: str) -> str:
        known = ifbench_checkers()
        if value not in known:
            raise ValueError(f"unknown IFBench instruction {value!r} (known: {', '.join(sorted(known))})")
        return value

    def followed(self, text: str) -> bool:
        """As the official evaluation decides it (if_verifiable's `evaluate_instructions`, one instruction).

        Raises:
            LookupError: the instruction needs NLTK data that is not installed.
        """
        from if_verifiable.common import get_loose_transformations, strip_thinking

        text = strip_thinking(text)  # the official evaluation checks the response without a reasoning block
        checker = ifbench_checkers()[self.instruction_id](self.instruction_id)
        checker.build_description(**self.kwargs)
        if "prompt" in (checker.get_instruction_args() or {}):
            checker.build_description(prompt=self.prompt or "")
        readings = get_loose_transformations(text) if self.loose else [text]
        return any(r.strip() and checker.check_following(r) for r in readings)

    def check(self, text: str) -> Check:
        try:
            ok = self.followed(text)
        except LookupError as e:  # NLTK's missing-resource error
            found = re.search(r"Resource\W*(\w+)", str(e))
            needs = found.group(1) if found else "a resource"
            return self._result(False, f"{self.instruction_id}: cannot be checked here (NLTK data {needs!r} missing)")
        except Exception as e:  # third-party code given the user's kwargs: whatever it raises is a bad argument
            return self._result(False, f"{self.instruction_id}: its kwargs cannot be checked ({e!r})")
        mode = "loose" if self.loose else "strict"
        return self._result(ok, f"{self.instruction_id} ({mode}): {'followed' if ok else 'not followed'}")
