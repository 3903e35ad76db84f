"""The shapes datasets already come in, read as judge requests without glue code.

What pandas and Hugging Face `datasets` write for a missing column (`null`), preference pairs (`chosen` /
`rejected`, as text or as TRL's conversational messages), a `response` or `completion` (or a list of sampled
ones: each judged pointwise), `question` / `problem` for the prompt, `answer` / `solution` / `ground_truth`
for the reference (a full worked solution is fine: its `#### n` or `\\boxed{}` answer is what counts),
HumanEval's `test`, `entry_point` and `task_id` (and HumanEvalPack's and MultiPL-E's, with a `language`),
stdin/stdout cases as competitive-programming sets give them (APPS' and TACO's `input_output`, CodeContests'
`public_tests` / `private_tests` / `generated_tests`, LiveCodeBench's `public_test_cases`), IFEval's
`instruction_id_list` + `kwargs` (constraints of kind `ifeval`, or `ifbench` for IFBench's ids), documents as
plain strings. A row in
judgegraph's own shape passes through unchanged; what is still wrong gets the usual validation error."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from judgegraph.schema._ifeval_ids import IFEVAL_IDS

PROMPT_KEYS = ("question", "problem", "question_content", "description")
"""Other names of the prompt (GSM8K, MATH, APPS; LiveCodeBench, CodeContests), used when `prompt` is absent."""
REFERENCE_KEYS = ("answer", "solution", "ground_truth")
"""Other names of the reference answer (GSM8K, MATH, verl), used when `reference` is absent."""
ID_KEYS = ("task_id", "question_id", "problem_id", "key", "idx", "uid")
"""Other names of the id (HumanEval, MT-bench, APPS, IFEval, ...), used when `id` is absent."""


def _message_text(messages: list[Any]) -> str:
    """A conversation as one text: a single message's content, else `role: content` lines."""
    said = [m for m in messages if isinstance(m, dict)]
    if len(said) == 1:
        return str(said[0].get("content") or "")
    return "\n\n".join(f"{m.get('role', 'user')}: {m.get('content') or ''}" for m in said)


def _reply(value: Any) -> Any:
    """A response given as TRL's conversational messages: the last assistant message's content."""
    if isinstance(value, list) and value and all(isinstance(m, dict) and "role" in m for m in value):
        replies = [m for m in value if m.get("role") == "assistant"]
        return str((replies or value)[-1].get("content") or "")
    return value


def _prompt_from_pair(value: Any) -> str | None:
    """TRL's implicit-prompt preference rows carry the prompt inside `chosen`: the turns before the reply."""
    if isinstance(value, list) and len(value) > 1 and all(isinstance(m, dict) and "role" in m for m in value):
        last = max(k for k, m in enumerate(value) if m.get("role") == "assistant")
        return _message_text(value[:last]) if last > 0 else None
    return None


def _as_json(value: Any) -> Any:
    """A column that holds JSON as text (APPS, LiveCodeBench) or already parsed."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return None
    return value


def _text(value: Any) -> str:
    """One stdin or stdout: APPS sometimes gives a case's lines as a list."""
    return "\n".join(map(str, value)) if isinstance(value, list) else str(value)


def io_tests(row: dict[str, Any]) -> list[dict[str, Any]] | None:
    """stdin/stdout cases in the competitive-programming shapes (taken out of `row`), or None when it has none.
    APPS' call-based problems (`fn_name`) are not stdin/stdout: left as they are."""
    cases: list[dict[str, Any]] = []
    apps = _as_json(row.get("input_output"))
    if isinstance(apps, dict) and isinstance(apps.get("inputs"), list) and not apps.get("fn_name"):
        row.pop("input_output")
        cases += [
            {"input": _text(i), "output": _text(o)}
            for i, o in zip(apps["inputs"], apps.get("outputs") or [], strict=False)
        ]
    for key in ("public_tests", "private_tests", "generated_tests"):  # CodeContests: {input: [...], output: [...]}
        group = row.get(key)
        if isinstance(group, dict) and isinstance(group.get("input"), list):
            row.pop(key)
            cases += [
                {"input": i, "output": o} for i, o in zip(group["input"], group.get("output") or [], strict=False)
            ]
    listed = _as_json(row.get("public_test_cases"))  # LiveCodeBench: [{input, output, testtype}]
    if isinstance(listed, list):
        row.pop("public_test_cases")
        cases += [
            {"input": c.get("input", ""), "output": c.get("output", "")}
            for c in listed
            if isinstance(c, dict) and c.get("testtype", "stdin") == "stdin"
        ]
    return cases or None


def without_nulls(data: Any, model: type[BaseModel]) -> Any:
    """`data` without its `null`s, but for required fields (still missing, then): `null` means absent, as
    pandas and `datasets` write a column or struct field that only other rows have (one table, one schema)."""
    if not isinstance(data, dict):
        return data
    fields = model.model_fields
    return {k: v for k, v in data.items() if v is not None or (k in fields and fields[k].is_required())}


def dataset_row(data: dict[str, Any], fields: set[str]) -> dict[str, Any]:
    """`data` (its nulls already dropped) in judgegraph's own request shape, whose fields are `fields`.

    A row in a dataset's shape keeps its other columns in `metadata`; a row in judgegraph's own shape must
    not have any (a misspelt field is an error, not silently ignored)."""
    row = dict(data)
    foreign = set(row) - fields
    if "prompt" not in row:
        for key in PROMPT_KEYS:
            if isinstance(row.get(key), str):
                row["prompt"] = row.pop(key)
                break
        else:
            found = _prompt_from_pair(row.get("chosen"))
            if found is not None:
                row["prompt"] = found
    elif isinstance(row["prompt"], list):
        row["prompt"] = _message_text(row["prompt"])
    if "candidates" not in row:
        if "chosen" in row and "rejected" in row:
            row["candidates"] = [_reply(row.pop("chosen")), _reply(row.pop("rejected"))]
            row.setdefault("label", {"winner": 0})
        else:
            for key in ("response", "completion", "responses"):
                if key in row:
                    value = _reply(row.pop(key))
                    # Several sampled responses (a list of texts) are each scored, like one.
                    row["candidates"] = value if isinstance(value, list) else [value]
                    row.setdefault("mode", "pointwise")
                    break
    if "reference" not in row:
        for key in REFERENCE_KEYS:
            if isinstance(row.get(key), str | int | float) and not isinstance(row.get(key), bool):
                row["reference"] = str(row.pop(key))
                break
    if "constraints" not in row and isinstance(row.get("instruction_id_list"), list):  # IFEval, IFBench's shape
        ids, kwargs = row.pop("instruction_id_list"), row.pop("kwargs", None) or []
        row["constraints"] = [
            {"kind": "ifeval", "instruction_id": i, "kwargs": kwargs[k] if k < len(kwargs) else {}}
            if i in IFEVAL_IDS
            # Any other id is IFBench's (an unknown one is refused there, by name); some check the prompt.
            else {
                "kind": "ifbench",
                "instruction_id": i,
                "kwargs": kwargs[k] if k < len(kwargs) else {},
                "prompt": row.get("prompt"),
            }
            for k, i in enumerate(ids)
        ]
    if "tests" not in row and isinstance(row.get("test"), str):
        row["tests"] = [row.pop("test")]
    if "tests" not in row:
        cases = io_tests(row)
        if cases is not None:
            row["tests"] = cases
    if "entry_point" in row:
        row["metadata"] = {**(row.get("metadata") or {}), "entry_point": row.pop("entry_point")}
    if isinstance(row.get("documents"), list):
        row["documents"] = [
            {"id": f"doc{k + 1}", "text": d} if isinstance(d, str) else d for k, d in enumerate(row["documents"])
        ]
    if "id" not in row:
        for key in ID_KEYS:
            if isinstance(row.get(key), str | int) and str(row[key]):
                row["id"] = str(row.pop(key))
                break
        else:  # stable across runs, so replays, splits and stores agree on it
            blob = json.dumps(row, sort_keys=True, default=str).encode()
            row["id"] = "row-" + hashlib.sha256(blob).hexdigest()[:16]
    mapped = foreign - set(row)
    if mapped:  # a dataset's shape: its remaining columns are the user's, carried in metadata
        rest = {k: row.pop(k) for k in set(row) - fields}
        if rest:
            row["metadata"] = {**(row.get("metadata") or {}), **rest}
    return row
