"""The proposition checker (after MARCH): claim sets with known supported / contradicted / not-found labels."""

from __future__ import annotations

import pytest

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph.schema import Document, JudgeRequest, ModelTurn, ToolCall
from judgegraph.tools import (
    Claim,
    ClaimCheckInput,
    Passage,
    RunScope,
    ToolContext,
    ToolServices,
    call_tool,
    check_claim,
    split_claims,
)
from tests.conftest import ClientFor

EVIDENCE = [
    Passage(
        document="facts",
        page=0,
        text=(
            "The Eiffel Tower was completed in 1889. It is 330 metres tall. "
            "The river Seine is 777 km long. Paris has 20 arrondissements."
        ),
    ),
    Passage(
        document="rules",
        page=0,
        text=(
            "If the alarm is armed, then the vault door is locked. If the vault door is locked, staff cannot enter. "
            "The alarm is armed."
        ),
    ),
    Passage(document="image:original_image [500, 500, 1000, 1000]", page=0, text="Gate 12\nNo. 130 |"),
]

LABELLED = [
    ("The Eiffel Tower was completed in 1889", "supported", "numbers"),
    ("The Eiffel Tower was completed in 1901", "contradicted", "numbers"),
    ("The tower is 330 metres tall", "supported", "numbers"),
    ("The tower is 300 metres tall", "contradicted", "numbers"),
    ("The Seine is 777 km long", "supported", "numbers"),
    ("Paris has 18 arrondissements", "contradicted", "numbers"),
    ("12 times 12 is 144", "supported", "arithmetic"),
    ("7 + 5 = 13", "contradicted", "arithmetic"),
    ("The vault door is locked", "supported", "logic"),
    ("The vault door is not locked", "contradicted", "logic"),
    ("Staff cannot enter", "supported", "logic"),
    ("Gate 12 is the way in", "supported", "numbers"),  # labelled: "Gate 12" in the evidence
    ("Gate 14 is the way in", "contradicted", "numbers"),  # the evidence's only Gate is 12
    ("The card says No. 130", "supported", "numbers"),  # `No. 130` (one claim, not split at "No.")
    ("The card says No. 131", "contradicted", "numbers"),
    ("Room 7 is upstairs", "not_found", "none"),  # no Room in the evidence
    ("The Louvre opened in 1793", "not_found", "none"),
    ("Croissants are popular for breakfast", "not_found", "none"),
]


@pytest.mark.parametrize(("text", "verdict", "method"), LABELLED)
async def test_labelled_claims(text: str, verdict: str, method: str) -> None:
    found = await check_claim(ClaimCheckInput(claim=Claim(id=0, text=text), evidence=EVIDENCE))
    assert (found.verdict, found.method) == (verdict, method), found
    if verdict != "not_found" and method != "arithmetic":
        assert found.span and found.source


async def test_a_page_that_refers_back_is_about_its_document() -> None:
    """Two guides' later pages, neither naming its place: each sentence is about its own document (the id's
    words), so a claim about the museum is checked against the museum's page, never the library's beside it."""
    pages = [
        Passage(document="varn-library", page=2, text="The structure is 860 metres long and has 40 rooms."),
        Passage(document="varn-museum", page=2, text="The structure is 1200 metres long and has 95 rooms."),
    ]
    for text, verdict, source in [
        ("The Varn Museum is 1200 metres long.", "supported", "varn-museum p.2"),
        ("The Varn Museum is 860 metres long.", "contradicted", "varn-museum p.2"),
        ("The Varn Library has 40 rooms.", "supported", "varn-library p.2"),
    ]:
        found = await check_claim(ClaimCheckInput(claim=Claim(id=0, text=text), evidence=pages))
        assert (found.verdict, found.source) == (verdict, source), found
    # With only the library's page at hand, a claim about the museum is neither supported nor contradicted.
    for text in ("The Varn Museum is 860 metres long.", "The Varn Museum is 1200 metres long."):
        found = await check_claim(ClaimCheckInput(claim=Claim(id=0, text=text), evidence=pages[:1]))
        assert found.verdict == "not_found", found


def test_the_checker_cannot_see_the_response() -> None:
    assert set(ClaimCheckInput.model_fields) == {"claim", "evidence"}
    assert set(Claim.model_fields) == {"id", "text"}


def test_rule_proposer_splits_statements() -> None:
    claims = split_claims("The tower is 330 metres tall. Is it pretty? It was built in 1889; it stands in Paris!\nOk.")
    assert [c.text for c in claims] == ["The tower is 330 metres tall", "It was built in 1889", "it stands in Paris"]
    assert split_claims(":") == [] and split_claims("...") == []
    # Not after a title or an abbreviation; "No." ends a sentence unless a number follows it.
    said = split_claims("Dr. Lee saw card No. 130 today, e.g. at noon. No. It was gone by 1990.")
    assert [c.text for c in said] == ["Dr. Lee saw card No. 130 today, e.g. at noon", "It was gone by 1990"]


def _request(candidates: list[str]) -> JudgeRequest:
    doc = Document(id="facts", text=EVIDENCE[0].text)
    return JudgeRequest(id="p", prompt="Tell me about Paris.", candidates=candidates, documents=[doc])


async def test_tool_counts_claims_and_feeds_the_criterion() -> None:
    request = _request(
        ["The Eiffel Tower was completed in 1889. It is 330 metres tall.", "The Eiffel Tower was completed in 1901."]
    )
    ctx = ToolContext(request=request, services=ToolServices(), scope=RunScope(request))
    good = await call_tool(ToolCall(name="check_propositions", arguments={"candidate": 0}), ctx)
    bad = await call_tool(ToolCall(name="check_propositions", arguments={"candidate": 1}), ctx)
    assert good.data is not None and (good.data["supported"], good.data["contradicted"]) == (2, 0)
    assert bad.data is not None and bad.data["contradicted"] == 1 and "contradicted (numbers)" in bad.text
    from judgegraph.tools import tools

    criterion = tools.get("check_propositions").criterion
    assert criterion is not None
    assert criterion(good).passed is True and criterion(bad).passed is False  # type: ignore[union-attr]


async def test_model_proposer_and_model_checker_are_recorded(fake_openai: FakeOpenAI, client_for: ClientFor) -> None:
    fake_openai.script = [
        Reply(content='{"claims": ["Paris has a famous opera house.", "Paris has 20 arrondissements."]}'),
        Reply(content='{"verdict": "not_found", "span": ""}'),  # the opera claim: no deterministic check decides
    ]
    client = await client_for(fake_openai.url)
    turns: list[ModelTurn] = []
    request = _request(["Paris is great: it has an opera and 20 districts.", "x"])
    ctx = ToolContext(
        request=request, services=ToolServices(), scope=RunScope(request), model=client, on_model_turn=turns.append
    )
    r = await call_tool(
        ToolCall(name="check_propositions", arguments={"candidate": 0, "proposer": "model", "use_model": True}), ctx
    )
    assert r.ok and r.data is not None and r.data["proposer"] == "model"
    methods = [c["method"] for c in r.data["claims"]]
    assert methods == ["none", "numbers"] or methods == ["model", "numbers"]
    assert len(turns) == 2 and "Paris is great" in turns[0].request.messages[1]["content"]
    checker_prompt = turns[1].request.messages[1]["content"]
    assert "opera house" in checker_prompt and "Paris is great" not in checker_prompt  # claim and evidence only


async def test_model_proposer_falls_back_to_rules_on_garbage(fake_openai: FakeOpenAI, client_for: ClientFor) -> None:
    fake_openai.script = [Reply(content="I cannot do that")]
    client = await client_for(fake_openai.url)
    request = _request(["The Eiffel Tower was completed in 1889.", "x"])
    ctx = ToolContext(request=request, services=ToolServices(), scope=RunScope(request), model=client)
    r = await call_tool(ToolCall(name="check_propositions", arguments={"candidate": 0, "proposer": "model"}), ctx)
    assert r.data is not None and r.data["proposer"] == "rules" and r.data["supported"] == 1


async def test_requests_without_evidence_are_a_readable_failure() -> None:
    request = JudgeRequest(id="p", prompt="q", candidates=["a", "b"])
    r = await call_tool(ToolCall(name="check_propositions", arguments={"candidate": 0}), ToolContext(request=request))
    assert not r.ok and "no documents or images" in (r.error or "")
