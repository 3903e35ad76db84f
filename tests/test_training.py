"""Training the agentic judge on its own runs: teacher runs in the agent's format, splits, SFT, GGUF."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph.evals._harness import load_suite
from judgegraph.evals._splits import split_of
from judgegraph.graphs import action_schema
from judgegraph.schema import JudgeRequest, ModelTurn
from judgegraph.settings import Settings
from judgegraph.store import TrajectoryStore
from judgegraph.training import (
    TEACHER_MODEL,
    best_runs,
    collect_teacher_runs,
    examples,
    export_sft,
    replies,
    stored_runs,
    training_requests,
)
from judgegraph.training._selfplay import settled, to_sample
from tests.test_agentic import MATH


async def test_training_reads_only_training_ids() -> None:
    train = await training_requests(["math", "instructions"], 5)
    held_out = [r.id for s in ("math", "instructions") for r in await load_suite(s, limit=5, file=None, split="eval")]
    assert len(train) == 10 and all(split_of(r.id) == "train" for r in train)
    assert {r.id for r in train}.isdisjoint(held_out)


async def test_teacher_runs_are_agentic_trajectories_in_the_agents_own_format(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    store = tmp_path / "runs.db"
    settings = Settings(model_url=fake_openai.url, store_path=store)  # the teacher never asks a model
    collected = await collect_teacher_runs(["math", "instructions"], 2, settings, store)
    assert collected.requests == collected.teacher_runs == 4 and collected.correct == 4
    assert fake_openai.requests == []  # these sets are decided by evidence: no model was asked
    st = TrajectoryStore(store)
    runs = [st.get(r.id) for r in st.list_runs(judge="agentic")]
    assert len(runs) == 4
    for t in runs:
        assert t.versions.model == TEACHER_MODEL and t.correct and t.verdict is not None
        assert t.verdict.decided_by == "evidence"  # the agent's own calls gathered the deciding evidence
        turns = [e for e in t.events if isinstance(e, ModelTurn)]
        for turn in turns:  # every action is one the constrained schema allows
            schema = turn.request.params["response_format"]["schema"]
            jsonschema.validate(json.loads(turn.text or ""), schema)
        request = JudgeRequest.model_validate(t.request.model_dump())
        assert json.loads(turns[0].text or "")["action"] == "call"
        assert turns[0].request.params["response_format"]["schema"] == action_schema(
            list(t.versions.tools and [n for n in t.versions.tools if _plans(n, request)]), request
        )
    st.close()
    rows = export_sft(store, tmp_path / "sft.jsonl")
    assert rows == 8  # one conversation per candidate order
    conversations = [json.loads(line)["messages"] for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    learned = [json.loads(m[k]["content"]) for m in conversations for k in replies(m)]
    assert {c["action"] for c in learned} == {"call", "verdict"}
    # Tool results come back as other roles' messages (never a reply to learn), after the call that asked for them.
    assert all("Result of" not in m[k]["content"] for m in conversations for k in replies(m))
    assert all(any("Result of" in str(x["content"]) for x in m[: replies(m)[-1]]) for m in conversations)


def _plans(name: str, request: JudgeRequest) -> bool:
    from judgegraph.tools import tools

    return tools.get(name).of_use(request)


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    """The embedded model's own tokenizer and chat template (from its GGUF file)."""
    from transformers import AutoTokenizer

    from judgegraph.backends._embedded import embedded_model_path

    path = embedded_model_path()
    return AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)


CONVERSATION: dict[str, Any] = {
    "correct": True,
    "messages": [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "Result of t({}):\nr"},
        {"role": "assistant", "content": "a2"},
    ],
}


def _learned_text(example: dict[str, list[int]], tokenizer: Any) -> str:
    return str(
        tokenizer.decode([i for i, m in zip(example["input_ids"], example["completion_mask"], strict=True) if m])
    )


@pytest.mark.llm
def test_sft_learns_each_reply_of_a_conversation_once_and_nothing_else(tokenizer: Any) -> None:
    found, left_out = examples([CONVERSATION, {**CONVERSATION, "correct": False}], tokenizer)
    assert len(found) == 1 and left_out == 0  # one sequence holds both replies; the wrong run is not learned
    (example,) = found
    # Exactly what the model saw at its last turn, then its reply: the template's rendering, token for token.
    assert example["input_ids"] == tokenizer.apply_chat_template(CONVERSATION["messages"], tokenize=True)["input_ids"]
    assert _learned_text(example, tokenizer) == "a1<|im_end|>\na2<|im_end|>\n"  # each reply and its end, no more
    assert len(examples([{**CONVERSATION, "correct": False}], tokenizer, only_correct=False)[0]) == 1

    # Too long: cut after the last reply that fits, never inside one; a conversation whose first reply does not fit
    # is left out whole.
    first = next(i for i, m in enumerate(example["completion_mask"]) if m)
    end_of_first = next(i for i in range(first, len(example["completion_mask"])) if not example["completion_mask"][i])
    (cut,), left_out = examples([CONVERSATION], tokenizer, max_length=len(example["input_ids"]) - 1)
    assert left_out == 1 and cut["input_ids"] == example["input_ids"][:end_of_first]
    assert _learned_text(cut, tokenizer) == "a1<|im_end|>\n"
    assert examples([CONVERSATION], tokenizer, max_length=end_of_first - 1) == ([], 2)


@pytest.mark.llm
def test_sft_learns_each_reply_as_seen_where_the_template_rewrites_earlier_turns(tokenizer: Any) -> None:
    """A template that shows earlier replies differently (as reasoning models' templates drop earlier thinking)
    gets one sequence per reply, each exactly as the model saw it."""
    import copy

    rewriting = copy.deepcopy(tokenizer)
    rewriting.chat_template = (
        "{% for m in messages %}<|im_start|>{{ m.role }}\n"
        "{% if m.role == 'assistant' and not loop.last %}[earlier]{% else %}{{ m.content }}{% endif %}<|im_end|>\n"
        "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    found, left_out = examples([CONVERSATION], rewriting)
    assert left_out == 0 and [_learned_text(e, rewriting) for e in found] == ["a1<|im_end|>\n", "a2<|im_end|>\n"]
    assert "[earlier]" in rewriting.decode(found[1]["input_ids"])  # the second reply's prompt, as the model saw it


@pytest.mark.llm
@pytest.mark.timeout(600)
async def test_sft_lowers_the_loss_on_an_exported_turn(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """Four SFT steps on one exported assistant turn: its loss falls, the run folder has what it promises."""
    from judgegraph.backends._embedded import embedded_model_path
    from judgegraph.training import SFTSettings, train_sft

    store = tmp_path / "runs.db"
    await collect_teacher_runs(["math"], 1, Settings(model_url=fake_openai.url, store_path=store), store)
    assert export_sft(store, tmp_path / "all.jsonl") == 2
    row = json.loads((tmp_path / "all.jsonl").read_text().splitlines()[0])
    first = next(k for k, m in enumerate(row["messages"]) if m["role"] == "assistant")
    (tmp_path / "one.jsonl").write_text(json.dumps({**row, "messages": row["messages"][: first + 1]}) + "\n")
    settings = SFTSettings(max_steps=4, learning_rate=1e-4, save_steps=2)
    summary = await asyncio.to_thread(
        train_sft, tmp_path / "one.jsonl", embedded_model_path(), tmp_path / "sft", settings
    )
    assert summary["examples"] == summary["replies"] == 1 and summary["steps"] == 4
    assert summary["last_loss"] < summary["first_loss"]
    for name in ("config.json", "metrics.jsonl", "training.png", "summary.json", "model/config.json"):
        assert (tmp_path / "sft" / name).exists(), name
    assert not (tmp_path / "sft" / "checkpoints").exists()  # only an unfinished run needs them (1.6 GB each)


@pytest.mark.llm
@pytest.mark.timeout(1500)
async def test_the_recipe_at_a_tiny_size_runs_every_stage_and_resumes(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """collect -> SFT -> GGUF -> self-play (2 samples) -> keep the best -> SFT -> GGUF, two steps each -> before
    and after on one evaluation pair; the final file judges; run again, every stage is found done."""
    from judgegraph import Judge
    from judgegraph.backends._embedded import MODEL_ALIAS
    from judgegraph.training import SFTSettings, recipe

    run = tmp_path / "train"
    sft = SFTSettings(max_steps=2, save_steps=2)
    settings = Settings(model_url=fake_openai.url)  # the teacher's evidence judge never asks it
    report = tmp_path / "EVALS.md"
    other = (
        "Measured by hand.\n<!-- judgegraph eval all: begin -->\nthe comparison\n<!-- judgegraph eval all: end -->\n"
    )
    report.write_text(other)
    options: dict[str, Any] = {"sets": ["math"], "per_set": 1, "sft": sft, "samples": 2, "evaluate": 1}
    summary = await asyncio.to_thread(recipe, run, settings=settings, report=report, **options)
    assert summary["collected"]["requests"] == 1 and summary["sft"]["steps"] == 2
    played = summary["rs1"]["self_play"]
    assert played["requests"] == 1
    assert summary["rs1"]["kept"] + summary["rs1"]["teacher"] == 1  # the request's best right run, whoever's
    assert summary["rs1"]["sft"]["steps"] == 2 and summary["from"] == "rs1.gguf"
    runs = stored_runs(run / "rs1.db")
    first = min(runs, key=lambda r: r.started_at)
    assert len(runs) == played["runs"] == (1 if settled(first) else 2)  # a second sample only if the first missed
    assert all(r.versions.model.startswith("sft@sha256:") and r.reward is not None for r in runs)
    assert len({r.versions.judge for r in runs}) == len(runs)  # each sample its own seed, its own replayable spec
    assert {turn.request.params["temperature"] for r in runs for turn in r.model_turns()} == {0.8}
    assert played["correct"] == sum(bool(r.correct) for r in runs)
    assert len(best_runs(runs)) == played["solved"] == summary["rs1"]["kept"]
    async with Judge.load("agentic", store=False, embedded_model=run / "judge.gguf") as judge:
        t = await judge.arun(MATH)
    assert t.verdict is not None and t.verdict.valid
    assert t.versions.model.startswith("judge@sha256:")  # the checkpoint's own hash, in every run it judges
    # The evaluation stage: before (the bundled model), after (the trained file), and the trained model without
    # tools, on the evaluation split only; each row a report, the table in the run folder and in the report.
    evaluation = summary["evaluation"]
    assert evaluation["per_set"] == 1 and set(evaluation["accuracy"]) == {"base", "trained", "llm-trained"}
    assert all(set(by_set) == {"math", "all"} for by_set in evaluation["accuracy"].values())
    judged = [t for judge in ("agentic", "llm") for t in stored_runs(run / "eval" / "runs.db", judge)]
    assert {(t.judge, t.versions.model.split("@")[0]) for t in judged} == {
        ("agentic", MODEL_ALIAS),
        ("agentic", "judge"),
        ("llm", "judge"),
    }
    assert {split_of(t.request.id) for t in judged} == {"eval"} and len({t.request.id for t in judged}) == 1
    table = (run / "eval.md").read_text()
    assert "| math | 1 |" in table and "| all | 1 |" in table and (run / "eval.png").exists()
    written = report.read_text()
    assert written.startswith("<!-- judgegraph train run: begin -->\n## The agentic judge before and after training")
    assert written.endswith(other) and (tmp_path / "docs" / "evals" / "evals-trained.png").exists()
    again = await asyncio.to_thread(recipe, run, settings=settings, report=report, **options)
    assert again == summary  # every stage's output was there: nothing ran again
    assert len(stored_runs(run / "rs1.db")) == len(runs)
    assert sum(len(stored_runs(run / "eval" / "runs.db", judge)) for judge in ("agentic", "llm")) == len(judged)
    assert report.read_text() == written  # the section rewritten in place, the rest kept


def test_planned_calls_are_stated_as_the_narrowed_schemas_ask() -> None:
    """The teacher states a plan's call the way a constrained student could: the alternative that takes it,
    required arguments the plan left to their defaults filled in, strings cut to the schema's length."""
    from judgegraph.tools import tools
    from judgegraph.training._teacher import fitted as fit

    request = JudgeRequest.model_validate(
        {
            "id": "d",
            "prompt": "Where? " * 80,
            "candidates": ["a", "b"],
            "documents": [{"id": "doc", "text": "t"}],
            "images": ["data:image/png;base64,iVBORw0KGgo="],
        }
    )
    for name in ("retrieve", "zoom_image"):
        schema = tools.get(name).argument_schema(request, described=False)
        plan = tools.get(name).plan
        assert plan is not None
        (call,) = plan(request)
        fitted = fit(dict(call.arguments), schema)
        jsonschema.validate(fitted, schema)
        if name == "retrieve":
            assert fitted == {"query": request.prompt[:200], "k": 3}
        else:
            assert fitted == {"image": "original_image", "ocr": True, "bbox_2d": [0, 0, 1000, 1000]}


async def test_rejection_sampling_keeps_the_cheapest_right_run_per_request(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    from judgegraph.schema import Label, ToolResultEvent
    from judgegraph.training import cost

    store = tmp_path / "runs.db"
    await collect_teacher_runs(["math"], 2, Settings(model_url=fake_openai.url, store_path=store), store)
    first, second = sorted(stored_runs(store), key=lambda t: t.request.id)
    assert first.correct and second.correct
    extra = next(e for e in first.events if isinstance(e, ToolResultEvent)).model_copy(update={"seq": 10_000})
    costly = first.model_copy(update={"id": "costly", "events": [*first.events, extra]})
    assert cost(costly)[1] == cost(first)[1] + 1
    winner = first.verdict.winner if first.verdict else None
    wrong = second.model_copy(update={"id": "wrong", "label": Label(winner=1 - (winner or 0))})
    assert wrong.correct is False
    kept = best_runs([costly, first, second, wrong])
    assert [t.id for t in kept] == [first.id, second.id]  # one per request, in request order
    assert best_runs([wrong]) == [] and best_runs([costly]) == [costly]
    # Sampling again: only the requests no run settled (right, by its evidence).
    assert settled(first) and not settled(wrong)
    assert to_sample([first.request, second.request], [first, wrong]) == [second.request]


def test_the_ruling_reward_reads_a_ruling_in_the_order_shown() -> None:
    from judgegraph.runtime import RewardConfig
    from judgegraph.schema import Label
    from judgegraph.training import ruling_score

    config = RewardConfig(invalid=-1.0)
    label = Label(winner=1)
    # Shown swapped (B first): "A" is request candidate 1, the label's winner.
    assert ruling_score('{"winner": "A", "rationale": "r"}', label, [1, 0], "pairwise", config) == 1.0
    assert ruling_score('{"action": "verdict", "winner": "B"}', label, [1, 0], "pairwise", config) == 0.0
    assert ruling_score('{"winner": "A"}', label, [0, 1], "pairwise", config) == 0.0
    assert ruling_score("no ruling here", label, [0, 1], "pairwise", config) == -1.0
    call = '{"action": "call", "tool": "run_code", "arguments": {"candidate": 0}}'
    assert ruling_score(call, label, [0, 1], "pairwise", config) is None  # the episode goes on: no reward yet
    scores = Label(scores=[0.9, 0.1])
    assert ruling_score('{"scores": {"A": 2, "B": 9}}', scores, [1, 0], "pointwise", config) == 1.0


async def test_exploring_a_region_teaches_where_the_evidence_is(tmp_path: Path) -> None:
    """Self-play's exploration: each conversation of a run opens with one of the quarters zoom_image proposes,
    then makes the planned checks (all recorded as model turns of backend `explore`), then the student rules
    (here the teacher, whose verdict is a tie: it knows nothing). Only the run that read the quarter with the
    card has the evidence decide, so that is the run rejection sampling keeps."""
    from judgegraph import Judge
    from judgegraph.agents import judges
    from judgegraph.evals._sets import CORNER, _photo_card, _png
    from judgegraph.training._explore import EXPLORE_BACKEND, ExploringModel, proposals
    from judgegraph.training._selfplay import to_explore, weighted
    from judgegraph.training._teacher import Lesson, TeacherModel

    request = JudgeRequest(
        id="card",
        prompt="What number is written on the card in the corner of the photo?",
        candidates=["The card says No. 19.", "The card says No. 130."],
        images=[_png(_photo_card("cat", 130))],
        label={"winner": 1},
    )
    tool_names = list(judges.get("agentic").tools)
    calls = proposals(request, tool_names)
    assert [c.arguments["bbox_2d"] for c in calls][-1] == CORNER and len(calls) == 4
    store = tmp_path / "runs.db"
    runs = []
    for call in calls:
        student = TeacherModel([Lesson(request, None)], tool_names)
        explorer = ExploringModel(student, {request.id: (request, call)}, tool_names)
        async with Judge.load("agentic", settings=Settings(), store=store, client=explorer) as judge:
            runs.append(await judge.arun(request))
    for t, call in zip(runs, calls, strict=True):
        played = [json.loads(m.text or "") for m in t.model_turns() if m.backend == EXPLORE_BACKEND]
        # Each order's conversation opens with the explored call, in place of the plan's reading of the whole
        # image, then plays the rest of the teacher's plan: each candidate's claims checked (the request's first
        # candidate first, wherever the order shows it).
        tools_played = [a["tool"] for a in played]
        assert tools_played == ["zoom_image", "check_propositions", "check_propositions"] * 2
        assert [a["arguments"]["bbox_2d"] for a in played[::3]] == [call.arguments["bbox_2d"]] * 2
        assert [a["arguments"]["candidate"] for a in played if a["tool"] == "check_propositions"] == [0, 1, 1, 0]
        ruled = [json.loads(m.text or "") for m in t.model_turns() if m.backend != EXPLORE_BACKEND]
        # Then the student's turn: this one (the teacher) still reads the whole image, as its plan says, then rules.
        assert [a.get("tool", a["action"]) for a in ruled] == ["zoom_image", "verdict"] * 2
    decided = [t for t in runs if t.verdict is not None and t.verdict.decided_by == "evidence"]
    assert [t.id for t in decided] == [runs[-1].id] and runs[-1].correct
    assert best_runs(runs) == [runs[-1]]
    # For SFT the find counts once more for each plain run of its request that the evidence did not settle.
    async with Judge.load(
        "agentic", settings=Settings(), store=store, client=TeacherModel([Lesson(request, None)], tool_names)
    ) as judge:
        plain = await judge.arun(request)
    assert not plain.correct  # the teacher's plan reads the whole image: the card's number is not in its text
    assert weighted(best_runs([*runs, plain]), [*runs, plain]) == [runs[-1]] * 2
    assert weighted([plain], [plain]) == [plain]  # a run the model made itself counts once
    # The next round explores only where no run is right by its evidence yet.
    again = to_explore([request], runs[:-1], tool_names)
    assert [c.arguments for c in again[request.id]] == [c.arguments for c in calls]
    assert to_explore([request], runs, tool_names) == {}


async def test_exploring_a_page_teaches_which_document_to_read(tmp_path: Path) -> None:
    """retrieve proposes each page of the guide the question names; the exploring run that read the page with
    the fact is decided by the evidence, rightly, so that run is what rejection sampling keeps: the call is
    stated as the narrowed schema's alternative for that document, which a constrained student can say."""
    from judgegraph import Judge
    from judgegraph.agents import judges
    from judgegraph.evals._sets import build_set
    from judgegraph.tools import tools
    from judgegraph.training._explore import EXPLORE_BACKEND, ExploringModel, proposals
    from judgegraph.training._teacher import Lesson, TeacherModel
    from judgegraph.training._teacher import fitted as fit

    request = (await build_set("library", 2))[1]
    assert request.prompt.startswith("How long is the ")  # the length is on page 2 of its guide
    tool_names = list(judges.get("agentic").tools)
    calls = proposals(request, tool_names)
    named = calls[0].arguments["document"]
    assert [(c.arguments["document"], c.arguments["page"]) for c in calls] == [(named, p) for p in range(4)]
    assert named.replace("-", " ") in request.prompt.lower()
    runs = []
    schema = tools.get("retrieve").argument_schema(request, described=False)
    for call in calls:
        jsonschema.validate(fit(dict(call.arguments), schema), schema)
    for call in calls[1:3]:  # a page without the fact, and the page with it
        student = TeacherModel([Lesson(request, None)], tool_names)
        explorer = ExploringModel(student, {request.id: (request, call)}, tool_names)
        async with Judge.load("agentic", settings=Settings(), store=tmp_path / "runs.db", client=explorer) as judge:
            runs.append(await judge.arun(request))
    for t, call in zip(runs, calls[1:3], strict=True):
        played = [json.loads(m.text or "") for m in t.model_turns() if m.backend == EXPLORE_BACKEND]
        # The page read stands in for the plan's retrieval by the task: one read, then each candidate's checks.
        assert [a["tool"] for a in played] == ["retrieve", "check_propositions", "check_propositions"] * 2
        assert [a["arguments"] for a in played[::3]] == [{"document": named, "page": call.arguments["page"]}] * 2
        # The task lists the documents the page read can name, with their pages.
        task = t.model_turns()[0].request.messages[1]["content"]
        assert f"{named} (4 pages)" in task and task.count(" (4 pages)") == len(request.documents)
    fact = runs[1]
    assert fact.verdict is not None and fact.verdict.decided_by == "evidence" and fact.correct
    assert best_runs(runs) == [fact]


async def test_the_teacher_makes_the_checks_the_evidence_judge_made_where_no_test_was_given(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """A code pair that carries only its statement, whose examples both candidates pass: the evidence judge tests
    them differentially and asks an oracle (reference programs by the model). The teacher plays those same calls,
    follow-ups included, in the agent's format; the oracle's programs come from the model the evidence judge
    asked (the teacher's fallback), and the agent's own checks decide the pair."""
    from judgegraph import Judge
    from judgegraph.agents import judges
    from judgegraph.training._teacher import Lesson, TeacherModel
    from tests._code_evidence import below_zero_oracle_pair

    request, fake_openai.responder = below_zero_oracle_pair()
    pair = JudgeRequest.model_validate(request)
    store = tmp_path / "runs.db"
    settings = Settings(model_url=fake_openai.url, store_path=store, sandbox="process")
    async with Judge.load("evidence", settings=settings, store=store) as evidence:
        lesson = Lesson.of(await evidence.arun(pair))
        made = ["run_examples", "run_examples", "differential_test", "oracle_check", "oracle_check"]
        assert lesson.calls is not None and [c.name for c in lesson.calls] == made
        teacher = TeacherModel([lesson], list(judges.get("agentic").tools), fallback=evidence.model)
        async with Judge.load("agentic", settings=settings, store=store, client=teacher) as agentic:
            t = await agentic.arun(pair)
    played = [json.loads(m.text or "") for m in t.model_turns() if m.model == TEACHER_MODEL]
    assert [a.get("tool", a["action"]) for a in played] == [*made, "verdict"] * 2
    oracle = [r for r in t.tool_results() if r.name == "oracle_check"]
    assert oracle and all(r.ok and r.data and r.data["decisive"] for r in oracle)
    assert t.correct and t.verdict is not None and t.verdict.decided_by == "evidence"
