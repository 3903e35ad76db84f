"""What a run gave against what an example expects, compared as judges compare: values as data (a tuple is the
list the statement's JSON shows, `true` is not `1`, floats to the precision printed or the tolerance stated),
outputs line by line with trailing space ignored, a case-insensitive answer where the statement says so."""

from __future__ import annotations

import math
import re
from typing import Literal

from judgegraph.tools.code.literals import UNREADABLE

Outcome = Literal["passed", "failed", "unsure"]


def _places_printed(text: str) -> int | None:
    m = re.fullmatch(r"\s*-?\d*\.(\d+)\s*", text)
    return len(m.group(1)) if m else None


def _floats_close(expected: float, got: float, tolerance: float | None, printed: str) -> Outcome:
    if not (math.isfinite(expected) and math.isfinite(got)):
        return "passed" if expected == got or (math.isnan(expected) and math.isnan(got)) else "failed"
    if math.isclose(expected, got, rel_tol=1e-9, abs_tol=1e-12):
        return "passed"
    allowed = tolerance
    if allowed is None and (d := _places_printed(printed)) is not None:
        allowed = 0.5 * 10.0**-d  # the precision the statement printed it to
    if allowed is not None:
        return "passed" if abs(expected - got) <= allowed * max(1.0, abs(expected)) + 1e-12 else "failed"
    return "unsure"


def compare_values(expected: object, got: object, tolerance: float | None = None) -> Outcome:
    """A returned value against the statement's: equal as data (a tuple equals the list a statement shows, as
    the statement's JSON would), reals within the tolerance the statement gives or the precision it prints."""
    if expected is UNREADABLE:
        return "unsure"
    if isinstance(expected, bool) or isinstance(got, bool):
        return "passed" if type(expected) is type(got) and expected == got else "failed"
    if isinstance(expected, float) or isinstance(got, float):
        if isinstance(expected, int | float) and isinstance(got, int | float):
            return _floats_close(float(expected), float(got), tolerance, repr(expected))
        return "failed"
    if isinstance(expected, list | tuple) and isinstance(got, list | tuple):
        if len(expected) != len(got):
            return "failed"
        outcomes = [compare_values(a, b, tolerance) for a, b in zip(expected, got, strict=True)]
        return "failed" if "failed" in outcomes else "unsure" if "unsure" in outcomes else "passed"
    if isinstance(expected, dict) and isinstance(got, dict):
        if set(expected) != set(got):
            return "failed"
        outcomes = [compare_values(expected[k], got[k], tolerance) for k in expected]
        return "failed" if "failed" in outcomes else "unsure" if "unsure" in outcomes else "passed"
    if isinstance(expected, set | frozenset) and isinstance(got, set | frozenset | list | tuple):
        return "passed" if set(expected) == set(got) else "failed"
    return "passed" if type(expected) is type(got) and expected == got else "failed"


def _lines(text: str) -> list[str]:
    out = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return out


def _real_for_integer(integer: str, printed: str) -> bool:
    """Whether `printed` is a real (a point or an exponent) equal to `integer`."""
    if not re.fullmatch(r"[-+]?(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?[eE][-+]?\d+)", printed):
        return False
    return float(printed) == int(integer)


def compare_outputs(expected: str, got: str, tolerance: float | None = None, any_case: bool = False) -> Outcome:
    """Printed output against the statement's, as contest judges compare: line by line, trailing spaces and
    blank lines ignored; reals token by token within the statement's tolerance; letters in any case where the
    statement accepts that. A difference in reals only, with no tolerance given, is `unsure`."""
    if any_case:
        expected, got = expected.lower(), got.lower()
    if _lines(expected) == _lines(got):
        return "passed"
    want, have = expected.split(), got.split()
    if want == have:
        return "passed"  # only whitespace differs (most judges' default checker ignores it)
    if len(want) != len(have):
        return "failed"
    outcomes = []
    for a, b in zip(want, have, strict=True):
        if a == b:
            continue
        if tolerance is None and re.fullmatch(r"[-+]?\d+", a):
            if _real_for_integer(a, b):
                outcomes.append("unsure")  # `0.0000000` for `0`: judges comparing reals accept it, exact ones not
                continue
            return "failed"  # an integer is compared exactly
        try:
            x, y = float(a), float(b)
        except ValueError:
            return "failed"
        outcomes.append(_floats_close(x, y, tolerance, a))
    return "failed" if "failed" in outcomes else "unsure" if "unsure" in outcomes else "passed"
