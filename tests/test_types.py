from __future__ import annotations

import json

import pytest
from pydantic import TypeAdapter, ValidationError

from judgegraph.schema import (
    SCHEMA_VERSION,
    ErrorEvent,
    Event,
    JudgeRequest,
    ModelRequest,
    ModelTurn,
    NodeEvent,
    ToolCall,
    ToolCallEvent,
    ToolResult,
    ToolResultEvent,
    Trajectory,
    Verdict,
    VerdictEvent,
)


def test_request_accepts_plain_strings_and_shorthands() -> None:
    r = JudgeRequest.model_validate(
        {"id": "x", "prompt": "p", "candidates": ["a", "b"], "tests": "assert f()", "rubric": "be kind", "label": 1}
    )
    assert [c.content for c in r.candidates] == ["a", "b"]
    assert r.tests == ["assert f()"]
    assert r.rubric[0].description == "be kind"
    assert r.label is not None and r.label.winner == 1
    assert r.schema_version == SCHEMA_VERSION
    assert r.has_evidence("tests") and not r.has_evidence("reference")


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"id": "", "prompt": "p", "candidates": ["a", "b"]}, "id"),  # absent, it is derived from the row
        ({"id": "x", "prompt": "p", "candidates": []}, "candidates"),
        ({"id": "x", "prompt": "p", "candidates": ["a"]}, "pairwise mode needs exactly 2"),
        ({"id": "x", "prompt": "p", "candidates": ["a", "b"], "label": {"winner": 2}}, "out of range"),
        ({"id": "x", "prompt": "p", "candidates": ["a", "b"], "mode": "nonsense"}, "mode"),
        ({"id": "x", "prompt": "p", "candidates": ["a", "b"], "surprise": 1}, "surprise"),
        (
            {"id": "x", "prompt": "p", "candidates": ["a", "b"], "documents": [{"id": "d"}]},
            "neither text, pages nor a path",
        ),
    ],
)
def test_request_rejects_inconsistent_input(payload: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        JudgeRequest.model_validate(payload)


def test_verdict_invariants() -> None:
    with pytest.raises(ValidationError, match="must say why"):
        Verdict(valid=False)
    with pytest.raises(ValidationError, match=r"\[0, 1\]"):
        Verdict(valid=True, scores=[1.5])
    v = Verdict.invalid("no JSON")
    assert v.scores == [] and v.winner is None and v.decided_by == "none"


def test_trajectory_round_trips_through_json_with_every_event_kind() -> None:
    request = JudgeRequest(id="r", prompt="p", candidates=["a", "b"], reference="1", label=0)
    call = ToolCall(name="match_reference", arguments={"candidate": 0})
    t = Trajectory(judge="evidence", request=request, label=request.label)
    t.events = [
        NodeEvent(phase="enter", node="intake"),
        ModelTurn(
            request=ModelRequest(messages=[{"role": "user", "content": "hi"}]), text="{}", completion_token_ids=[1]
        ),
        ToolCallEvent(call=call),
        ToolResultEvent(result=ToolResult(call_id=call.id, name=call.name, ok=True, text="ok", data={"a": 1})),
        VerdictEvent(verdict=Verdict(valid=True, winner=0, scores=[1.0, 0.0])),
        ErrorEvent(message="boom"),
    ]
    t.verdict = Verdict(valid=True, winner=0, scores=[1.0, 0.0])
    again = Trajectory.model_validate_json(t.model_dump_json())
    assert again == t
    assert [type(e) for e in again.events] == [type(e) for e in t.events]
    assert again.correct is True
    error = TypeAdapter(Event).validate_python({"event": "error", "message": "m"})
    assert isinstance(error, ErrorEvent) and error.message == "m"


def test_correct_is_none_without_label_and_false_for_invalid_verdict() -> None:
    request = JudgeRequest(id="r", prompt="p", candidates=["a", "b"])
    t = Trajectory(judge="j", request=request, verdict=Verdict(valid=True, winner=0, scores=[1, 0]))
    assert t.correct is None
    t.label = JudgeRequest(id="r", prompt="p", candidates=["a", "b"], label=0).label
    t.verdict = Verdict.invalid("x")
    assert t.correct is False


def test_reply_schemas_are_the_parsing_models_inlined() -> None:
    from pydantic import BaseModel, Field

    from judgegraph.graphs.rubric.graph import RUBRIC_SCHEMA, WrittenRubric
    from judgegraph.schema import reply_schema

    class Inner(BaseModel):
        """Docstring."""

        name: str = Field(max_length=5)
        title: str = ""

    class Outer(BaseModel):
        items: list[Inner] = Field(max_length=2)
        best: Inner | None = None

    schema = reply_schema(Outer)
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema and "title" not in schema
    assert schema["properties"]["items"]["items"]["properties"]["name"]["maxLength"] == 5
    assert set(schema["properties"]["items"]["items"]["properties"]) == {"name", "title"}  # a field named title
    assert "description" not in schema["properties"]["items"]["items"]
    # The rubric writer's limits are the ones its reply is parsed with: one place, so they cannot disagree.
    item = RUBRIC_SCHEMA["properties"]["criteria"]["items"]["properties"]
    assert item["name"]["maxLength"] == 60 and item["description"]["maxLength"] == 200
    with pytest.raises(ValidationError):
        WrittenRubric.model_validate({"criteria": [{"name": "x" * 61, "description": "", "weight": 1}]})
