"""The `verl` and `openrlhf` exports read by the trainers' own dataset code: verl's RLHFDataset and
MultiTurnSFTDataset, OpenRLHF's PromptDataset, each in the trainers' environment (`scripts/trainers-env.sh`, as
`make trainers` builds it), over the agentic judge's teacher runs (multi-turn, tool calls and their results)."""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fake_openai import FakeOpenAI
from judgegraph.backends import model_file
from judgegraph.output import export
from judgegraph.settings import Settings
from judgegraph.training import collect_teacher_runs, stored_runs
from tests.conftest import ROOT

pytestmark = [pytest.mark.trainers, pytest.mark.timeout(2400)]

TRAINERS_VENV = Path(os.environ.get("JUDGEGRAPH_TRAINERS_VENV", ROOT / ".venv-trainers"))


@pytest.fixture(scope="module")
def trainers_python() -> Path:
    subprocess.run(["bash", str(ROOT / "scripts" / "trainers-env.sh"), str(TRAINERS_VENV)], check=True, timeout=1800)
    return TRAINERS_VENV / "bin" / "python"


def _loaded(python: Path, verl: Path, openrlhf: Path, tokenizer: Path) -> dict[str, Any]:
    probe = Path(__file__).with_name("_load_with_trainers.py")
    done = subprocess.run(
        [str(python), str(probe), str(verl), str(openrlhf), str(tokenizer)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    return dict(json.loads(line.removeprefix("RESULT ")))


async def test_verl_and_openrlhf_read_the_exports_as_written(
    trainers_python: Path, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    from judgegraph.training import to_hf

    store = tmp_path / "runs.db"
    settings = Settings(model_url=fake_openai.url, store_path=store)  # the teacher's runs ask no model
    await collect_teacher_runs(["math", "instructions"], 1, settings, store)
    runs = stored_runs(store)
    verl_rows = export(runs, "verl", tmp_path / "verl.parquet")
    openrlhf_rows = export(runs, "openrlhf", tmp_path / "openrlhf.jsonl")
    assert verl_rows == 4 and openrlhf_rows == 2  # one conversation per candidate order; one prompt per run
    written = [json.loads(x) for x in (tmp_path / "openrlhf.jsonl").read_text().splitlines()]
    import pyarrow.parquet as pq

    rows = pq.read_table(tmp_path / "verl.parquet").to_pylist()
    tokenizer_dir = to_hf(model_file(None))

    loaded = _loaded(trainers_python, tmp_path / "verl.parquet", tmp_path / "openrlhf.jsonl", tokenizer_dir)

    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    # verl's RL dataset: every row kept (none over its prompt length), the opening and the reward fields as exported
    assert len(loaded["verl_rl"]) == len(rows)
    for got, row in zip(loaded["verl_rl"], rows, strict=True):
        assert [(m["role"], m["content"]) for m in got["raw_prompt"]] == [
            (m["role"], m["content"]) for m in row["prompt"]
        ]
        assert got["data_source"] == "judgegraph/agentic" and got["index"] == row["extra_info"]["index"]
        assert json.loads(got["reward_model"]["ground_truth"]) == json.loads(row["reward_model"]["ground_truth"])
    # verl's multi-turn SFT dataset: its per-turn tokenization matched the whole conversation's (it asserts that),
    # and exactly the assistant turns, the judge's own actions, are trained on
    assert len(loaded["verl_sft"]) == len(rows)
    for got, row in zip(loaded["verl_sft"], rows, strict=True):
        replies = [m["content"] for m in row["messages"] if m["role"] == "assistant"]
        assert len(replies) >= 2  # a tool call, then the verdict
        assert all(reply in got["trained"] for reply in replies)
        assert not any(m["content"] in got["trained"] for m in row["messages"] if m["role"] in ("user", "tool"))
        assert got["trained_tokens"] < got["tokens"]
    # OpenRLHF's prompt dataset: the opening through the model's chat template, the label as exported
    assert len(loaded["openrlhf"]) == len(written)
    for got, row in zip(loaded["openrlhf"], written, strict=True):
        expected = tokenizer.apply_chat_template(row["prompt"], tokenize=False, add_generation_prompt=True)
        assert got["prompt"] == expected and got["label"] == row["label"]
        assert json.loads(got["label"])["winner"] is not None


async def test_verls_own_batch_reward_manager_scores_through_compute_score_batch(
    trainers_python: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """verl's BatchRewardManager (its own code, its own environment) calls a reward function with the arguments
    recorded here; judgegraph's `compute_score_batch` answers them (grouping each prompt's rollouts); the manager
    takes those answers back: the rewards land in its tensor and the extra keys in its extra info."""
    from judgegraph.adapters import compute_score_batch_async
    from judgegraph.adapters import verl as verl_adapter

    probe = Path(__file__).with_name("_verl_batch_manager.py")
    recorded = tmp_path / "kwargs.json"
    record = [str(trainers_python), str(probe), "record", str(recorded)]
    await asyncio.to_thread(subprocess.run, record, check=True, timeout=600)
    kwargs = json.loads(recorded.read_text())
    assert set(kwargs) == {"data_sources", "solution_strs", "ground_truths", "extra_infos"}
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", fake_openai.url)
    monkeypatch.setenv("JUDGEGRAPH_STORE", str(tmp_path / "r.db"))
    monkeypatch.setattr(verl_adapter, "_JUDGES", {})
    answers = await compute_score_batch_async(**kwargs)
    for judge in verl_adapter._JUDGES.values():
        await judge.aclose()
    assert [a["group_size"] for a in answers] == [3] * 6 and len({a["trajectory_id"] for a in answers}) == 2
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps(answers))
    replay = [str(trainers_python), str(probe), "replay", str(scores)]
    done = await asyncio.to_thread(subprocess.run, replay, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    taken = json.loads(done.stdout.strip().splitlines()[-1])
    assert taken["rewards"] == [1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    assert taken["extra"]["valid"] == [True] * 6 and len(set(taken["extra"]["trajectory_id"])) == 2


@pytest.mark.parametrize(
    ("name", "reward_kwargs"),
    [("compute_score_async", {}), ("compute_score", {"group_size": 3, "group_window_s": 600})],
    ids=["async-default-window", "sync-complete-groups"],
)
async def test_verls_own_reward_loop_groups_each_prompts_rollouts(
    trainers_python: Path, fake_openai: FakeOpenAI, tmp_path: Path, name: str, reward_kwargs: dict[str, Any]
) -> None:
    """verl's reward loop (its loader, worker and per-rollout manager, in verl's environment with judgegraph
    installed) calls judgegraph's reward function once per rollout, all at once; the calls of each prompt's
    rollouts are judged as one group (by the default window; the sync form's calls, from verl's executor threads,
    by the group's size, with a window the test would time out on), each
    rollout gets its own reward in verl's tensor, and the store holds one run per prompt."""
    from judgegraph.store import TrajectoryStore

    store = tmp_path / "r.db"
    env = {**os.environ, "PYTHONPATH": "", "JUDGEGRAPH_MODEL_URL": fake_openai.url, "JUDGEGRAPH_STORE": str(store)}
    probe = [str(trainers_python), str(Path(__file__).with_name("_verl_reward_loop.py")), name]
    done = await asyncio.to_thread(
        subprocess.run, [*probe, json.dumps(reward_kwargs)], capture_output=True, text=True, timeout=600, env=env
    )
    assert done.returncode == 0, done.stderr[-4000:]
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    result = json.loads(line.removeprefix("RESULT "))
    assert result["scores"] == [1.0, 1.0, 0.0, 0.0, 1.0, 0.0] == result["tensor_rows"]
    assert [e["group_size"] for e in result["extra"]] == [3] * 6
    assert all(e["valid"] for e in result["extra"])
    by_prompt = {e["trajectory_id"] for e in result["extra"][0::2]}, {e["trajectory_id"] for e in result["extra"][1::2]}
    assert [len(ids) for ids in by_prompt] == [1, 1] and by_prompt[0] != by_prompt[1]
    runs = TrajectoryStore(store)
    try:
        stored = [runs.get(t) for ids in by_prompt for t in ids]
    finally:
        runs.close()
    assert [len(t.request.candidates) for t in stored] == [3, 3]


def test_verl_leaves_an_abstained_rollout_out_of_its_group_with_judgegraphs_estimator(trainers_python: Path) -> None:
    """verl's own `compute_advantage` with `algorithm.adv_estimator=judgegraph_grpo` (found through verl's plugin
    group: the probe never imports judgegraph): a group with one abstained rollout (its reward `nan`) gives its
    siblings exactly the advantages verl's GRPO gives the group without it; the abstained rollout gets none, and
    no token of it reaches the loss."""
    probe = Path(__file__).with_name("_verl_abstention.py")
    done = subprocess.run(
        [str(trainers_python), str(probe)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    ours, theirs, kept = found["ours"], found["theirs"], found["kept"]
    for k, i in enumerate(kept):
        assert ours[i] == pytest.approx(theirs[k])
    (abstained,) = set(range(len(ours))) - set(kept)
    assert not any(ours[abstained]) and not any(found["mask"][abstained])
    assert all(all(math.isfinite(x) for x in row) for row in found["rewards"])  # verl's metrics read numbers
