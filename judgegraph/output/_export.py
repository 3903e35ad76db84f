"""Exporting trajectories as training data for the judge itself: a registry of formats, JSONL or Parquet."""

from __future__ import annotations

import atexit
import json
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

from judgegraph.graphs import shown_in
from judgegraph.registry import Registry
from judgegraph.schema._trajectory import ModelTurn, ToolCallEvent, Trajectory

Row = dict[str, Any]
Exporter = Callable[[list[Trajectory]], Iterable[Row]]
exporters: Registry[Exporter] = Registry("export format", plugins="judgegraph.exporters")


def _reply(turn: ModelTurn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
    if turn.raw_tool_calls:
        message["tool_calls"] = turn.raw_tool_calls
    return message


def _final_turns(t: Trajectory) -> list[ModelTurn]:
    """The turns that end a conversation: a turn whose messages no later turn continues."""
    turns = [x for x in t.model_turns() if x.error is None]
    finals = []
    for i, turn in enumerate(turns):
        history = turn.request.messages
        if not any(
            later.request.messages[: len(history)] == history and len(later.request.messages) > len(history)
            for later in turns[i + 1 :]
        ):
            finals.append(turn)
    return finals


def _meta(t: Trajectory) -> dict[str, Any]:
    return {
        "trajectory_id": t.id,
        "request_id": t.request.id,
        "judge": t.judge,
        "correct": t.correct,
        "reward": t.reward,
    }


@exporters.decorator("sft")
def sft(trajectories: list[Trajectory]) -> Iterable[Row]:
    """Multi-turn SFT in OpenAI messages (tool roles kept): one row per finished conversation."""
    for t in trajectories:
        for turn in _final_turns(t):
            yield {"messages": [*turn.request.messages, _reply(turn)], "tools": turn.request.tools, **_meta(t)}


_SHAREGPT_ROLE = {"system": "system", "user": "human", "assistant": "gpt", "tool": "tool"}


@exporters.decorator("sharegpt")
def sharegpt(trajectories: list[Trajectory]) -> Iterable[Row]:
    """The SFT rows in ShareGPT form (`conversations` of `from`/`value`)."""
    for row in sft(trajectories):
        conversations = []
        for m in row["messages"]:
            value = m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
            if m.get("tool_calls"):
                value = (value or "") + "\n" + json.dumps(m["tool_calls"])
            conversations.append({"from": _SHAREGPT_ROLE.get(m["role"], m["role"]), "value": value})
        yield {"conversations": conversations, "tools": json.dumps(row["tools"]), **{k: row[k] for k in _meta_keys()}}


def _meta_keys() -> tuple[str, ...]:
    return ("trajectory_id", "request_id", "judge", "correct", "reward")


@exporters.decorator("dpo")
def dpo(trajectories: list[Trajectory]) -> Iterable[Row]:
    """Preference pairs: for the same request, the reply of a correct run (chosen) and of an incorrect one."""
    by_request: dict[tuple[str, str], list[Trajectory]] = {}
    for t in trajectories:
        by_request.setdefault((t.judge, t.request.model_dump_json(exclude={"label", "metadata"})), []).append(t)
    for runs in by_request.values():
        good = [t for t in runs if t.correct and _final_turns(t)]
        bad = [t for t in runs if t.correct is False and _final_turns(t)]
        for chosen, rejected in zip(good, bad, strict=False):
            c, r = _final_turns(chosen)[0], _final_turns(rejected)[0]
            yield {
                "prompt": c.request.messages,
                "chosen": [_reply(c)],
                "rejected": [_reply(r)],
                "request_id": chosen.request.id,
                "chosen_id": chosen.id,
                "rejected_id": rejected.id,
            }


@exporters.decorator("rewards")
def rewards(trajectories: list[Trajectory]) -> Iterable[Row]:
    """Per-criterion reward vectors with the run's reward."""
    for t in trajectories:
        criteria = t.verdict.criteria if t.verdict else []
        yield {
            **_meta(t),
            "valid": bool(t.verdict and t.verdict.valid),
            "criteria": [
                {"name": c.name, "candidate": c.candidate, "score": c.score, "passed": c.passed, "source": c.source}
                for c in criteria
            ],
        }


@exporters.decorator("responses")
def responses(trajectories: list[Trajectory]) -> Iterable[Row]:
    """One row per judged response: its reward and the checks run on it. A group judgment (a pointwise request
    holding a prompt's k rollouts) gives k rows, the same rows k judgments of one rollout each would give."""
    for t in trajectories:
        v = t.verdict
        calls = {e.call.id: e.call for e in t.events if isinstance(e, ToolCallEvent)}
        results = t.tool_results()
        k = len(t.request.candidates)
        valid = bool(v and v.valid and len(v.scores) == k)
        for i, candidate in enumerate(t.request.candidates):
            criteria = [c for c in (v.criteria if v else []) if c.candidate == i]
            checks = [r for r in results if r.call_id in calls and calls[r.call_id].arguments.get("candidate") == i]
            passed = [c.name for c in criteria if c.passed]
            failed = [c.name for c in criteria if c.passed is False]
            yield {
                "trajectory_id": t.id,
                "request_id": t.request.id,
                "response_index": i,
                "group_size": k,
                "prompt": t.request.prompt,
                "response": candidate.content,
                "score": v.scores[i] if valid and v else None,
                "valid": valid,
                "decided_by": v.decided_by if v else None,
                "rationale": f"passed: {', '.join(passed) or 'none'}; failed: {', '.join(failed) or 'none'}",
                "criteria": [
                    {
                        "name": c.name,
                        "score": c.score,
                        "passed": c.passed,
                        "source": c.source,
                        "conclusive": c.conclusive,
                    }
                    for c in criteria
                ],
                "checks": [
                    {
                        "tool": r.name,
                        "ok": r.ok,
                        "data": {key: val for key, val in (r.data or {}).items() if key != "candidate"},
                    }
                    for r in checks
                ],
                "judge": t.judge,
            }


@exporters.decorator("openrlhf")
def openrlhf(trajectories: list[Trajectory]) -> Iterable[Row]:
    """Prompt/label rows for OpenRLHF (`--data.input_key prompt --data.label_key label`), with the reward seen."""
    for t in trajectories:
        for turn in _final_turns(t)[:1]:
            first = turn.request.messages[:2]
            yield {"prompt": first, "label": json.dumps(t.label.model_dump() if t.label else None), **_meta(t)}


@exporters.decorator("trl")
def trl(trajectories: list[Trajectory]) -> Iterable[Row]:
    """A GRPO dataset for TRL: one row per conversation opening (each candidate order), with the tools the judge
    had, the label (the request's candidate indices) and `shown`, the request index of each candidate in the
    order this prompt shows them (what a reward function needs to map a ruling on the prompt back to the label;
    `judgegraph.training.ruling_reward` does)."""
    for t in trajectories:
        openings: list[list[dict[str, Any]]] = []
        for turn in _final_turns(t):
            opening = turn.request.messages[:2]
            if opening in openings:
                continue
            openings.append(opening)
            first = next((m["content"] for m in opening if m.get("role") == "user"), "")
            yield {
                "prompt": opening,
                "tools": turn.request.tools,
                "label": json.dumps(t.label.model_dump() if t.label else None),
                "shown": shown_in(first, t.request) if isinstance(first, str) else None,
                "mode": t.request.mode,
                **_meta(t),
            }


# ---------------------------------------------------------------- verl (token ids and masks)


@cache
def _embedded_tokenizer() -> Any:
    """The embedded model's own tokenizer and chat template (from its GGUF), or None without llama-cpp."""
    try:
        import jinja2
        import llama_cpp

        from judgegraph.backends import embedded_model_path

        llm = llama_cpp.Llama(model_path=str(embedded_model_path()), vocab_only=True, verbose=False)
    except Exception:
        return None
    # Closed before the interpreter unloads llama.cpp: its finalizer, left to the exit, raises a TypeError there.
    atexit.register(llm.close)
    template = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(llm.metadata["tokenizer.chat_template"])
    return llm, template


def _text(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    return {**message, "content": content if isinstance(content, str) else json.dumps(content)}


def _retokenized(turn: ModelTurn) -> tuple[list[int], list[int], list[int]] | None:
    """prompt_ids, response_ids, response_mask by delta rendering with the model's own template."""
    found = _embedded_tokenizer()
    if found is None:
        return None
    llm, template = found
    messages = [_text(m) for m in [*turn.request.messages, _reply(turn)]]
    first = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages) - 1)

    def render(n: int, gen: bool) -> str:
        return str(template.render(messages=messages[:n], add_generation_prompt=gen))

    def tokens(text: str) -> list[int]:
        return list(llm.tokenize(text.encode(), add_bos=False, special=True))

    prompt = render(first, True)
    response_ids: list[int] = []
    mask: list[int] = []
    done = prompt
    for j in range(first, len(messages)):
        assistant = messages[j]["role"] == "assistant"
        upto = render(j + 1, not assistant and j + 1 < len(messages))
        if not upto.startswith(done):
            return None  # the template is not prefix-stable: no honest alignment
        piece = tokens(upto[len(done) :])
        response_ids += piece
        mask += [1 if assistant else 0] * len(piece)
        done = upto
    return tokens(prompt), response_ids, mask


def _from_backend(turns: list[ModelTurn]) -> tuple[list[int], list[int], list[int]] | None:
    """prompt_ids, response_ids, response_mask from the token ids the backend returned (vLLM): the model's own
    completion tokens (mask 1), and between them the tokens the server added before the next turn (mask 0: tool
    results and the chat template's markers), as verl's agent loop builds a rollout.

    The server renders each next prompt from messages, so a reply comes back re-rendered (a tool call's arguments
    with other whitespace, say) and may tokenize differently from what the model generated; what the model saw
    next is whatever follows that reply's end-of-turn token (the last token it generated)."""
    if not turns or any(t.prompt_token_ids is None or t.completion_token_ids is None for t in turns):
        return None
    prompt = list(turns[0].prompt_token_ids or [])
    response: list[int] = []
    mask: list[int] = []
    before = prompt
    for k, t in enumerate(turns):
        ids = list(t.prompt_token_ids or [])
        if k > 0:
            if ids[: len(before)] != before:
                return None  # the conversation's start was rewritten: no honest alignment
            previous, rest = turns[k - 1].completion_token_ids or [], ids[len(before) :]
            if not previous or previous[-1] not in rest:
                return None  # the previous reply did not end its turn (cut at max_tokens)
            observation = rest[rest.index(previous[-1]) + 1 :]
            response += observation
            mask += [0] * len(observation)
        completion = list(t.completion_token_ids or [])
        response += completion
        mask += [1] * len(completion)
        before = ids
    return prompt, response, mask


@exporters.decorator("verl")
def verl(trajectories: list[Trajectory]) -> Iterable[Row]:
    """verl rows, one per finished conversation, readable by verl's own datasets as they are: `prompt` (the
    opening: `RLHFDataset`'s prompt key) with `data_source`, `reward_model` and `extra_info`; `messages` and `tools`
    (the whole conversation: `MultiTurnSFTDataset`); and the agent loop's rollout: prompt_ids, response_ids,
    response_mask (1 = model tokens, 0 = tool output and template tokens), reward.

    Token ids come from the backend where it returned them, else from the model's own tokenizer and template
    (`tokenization` says which); `unavailable` rows carry the messages only.
    """
    for t in trajectories:
        for k, final in enumerate(_final_turns(t)):
            chain = [
                x
                for x in t.model_turns()
                if x.error is None and final.request.messages[: len(x.request.messages)] == x.request.messages
            ]
            ids = _from_backend(chain)
            how = "backend"
            if ids is None:
                ids = _retokenized(final) if t.versions.backend == "llama_cpp" else None
                how = f"retokenized:{t.versions.model}" if ids is not None else "unavailable"
            prompt_ids, response_ids, mask = ids if ids is not None else (None, None, None)
            label = json.dumps(t.label.model_dump() if t.label else None)
            yield {
                "prompt": final.request.messages[:2],
                "messages": [*final.request.messages, _reply(final)],
                "tools": final.request.tools,
                "response": _reply(final),
                "prompt_ids": prompt_ids,
                "response_ids": response_ids,
                "response_mask": mask,
                "reward_score": t.reward,
                "num_turns": len(chain),
                "tokenization": how,
                "data_source": f"judgegraph/{t.judge}",
                "reward_model": {"style": "rule", "ground_truth": label},
                "extra_info": {"index": k, "trajectory_id": t.id, "request_id": t.request.id},
                **_meta(t),
                "multi_modal_data": {"images": _image_refs(final)},
            }


def _image_refs(turn: ModelTurn) -> list[str]:
    """The images the model was shown in this conversation, as artifact references (content hashes)."""
    refs = []
    for m in turn.request.messages:
        if isinstance(m.get("content"), list):
            refs += [
                p["image_url"]["url"] for p in m["content"] if isinstance(p, dict) and p.get("type") == "image_url"
            ]
    return refs


# ---------------------------------------------------------------- writing


def write_rows(rows: list[Row], path: Path) -> int:
    """JSONL, or Parquet when `path` ends in .parquet.

    Parquet keeps nested columns (messages, tools, reward_model...) as Arrow lists and structs, as Hugging Face
    `datasets` writes them and as verl's and TRL's loaders read them; a key that some rows lack reads back as
    null in those rows. A column Arrow cannot type (values of mixed kinds, e.g. text and image parts as one
    message's content) is written as JSON text instead.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = {k: _arrow_column([r.get(k) for r in rows]) for k in dict.fromkeys(k for r in rows for k in r)}
        pq.write_table(pa.table(columns), path)
    else:
        with path.open("w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    return len(rows)


def _arrow_column(values: list[Any]) -> Any:
    import pyarrow as pa

    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return pa.array([None if v is None else json.dumps(v) for v in values], type=pa.string())


def export(trajectories: list[Trajectory], fmt: str, path: Path) -> int:
    """Write `trajectories` in format `fmt` to `path`; returns the number of rows."""
    return write_rows(list(exporters.get(fmt)(trajectories)), path)
