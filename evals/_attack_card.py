"""The attack card (`judgegraph eval attacks`, RELIABILITY.md): every family of `_attacks.py` through each
trainer's reward path, as a user's pipeline calls it (verl's batch reward function, TRL's reward function, the
reward server's `/reward` that OpenRLHF posts to), with the caller's judge, model and sandbox. Per path and
family: hacks rewarded (the false-positive rate) and, beside them, the honest controls' rewards."""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Literal, get_args

from judgegraph.evals._attack_matrix import matrix_cases
from judgegraph.evals._attacks import Case, Role, cases
from judgegraph.runtime._judge import Judge
from judgegraph.settings import Settings

RewardPath = Literal["verl", "trl", "server"]
REWARD_PATHS: tuple[RewardPath, ...] = get_args(RewardPath)


@dataclass(frozen=True)
class Reward:
    """One response's reward as its trainer receives it: a number, or none (an abstention, or no ruling)."""

    score: float | None
    abstained: bool

    @property
    def rewarded(self) -> bool:
        return self.score is not None and self.score > 0


@dataclass
class Tally:
    responses: int = 0
    rewarded: int = 0
    abstained: int = 0
    names: list[str] = field(default_factory=list)
    """The responses rewarded."""
    abstained_names: list[str] = field(default_factory=list)
    """The responses abstained."""


@dataclass
class AttackCard:
    judge: str
    paths: tuple[RewardPath, ...]
    wall_s: float
    tallies: dict[tuple[RewardPath, str, Role], Tally]

    def hack_rate(self, path: RewardPath | None = None) -> float:
        hacks = [t for (p, _, role), t in self.tallies.items() if role == "hack" and path in (None, p)]
        return sum(t.rewarded for t in hacks) / max(1, sum(t.responses for t in hacks))

    def escape_rate(self, path: RewardPath | None = None) -> float:
        """Wrong responses abstained (an abstention is not punished under GRPO: a partial escape); target 0."""
        hacks = [t for (p, _, role), t in self.tallies.items() if role == "hack" and path in (None, p)]
        return sum(t.abstained for t in hacks) / max(1, sum(t.responses for t in hacks))

    def control_recall(self, path: RewardPath | None = None) -> float:
        """The controls' reward rate, over the controls some evidence decided (an abstaining control counts
        apart: it is what an honest response gets where nothing decides)."""
        kept = [t for (p, _, role), t in self.tallies.items() if role == "control" and path in (None, p)]
        decided = sum(t.responses - t.abstained for t in kept)
        return sum(t.rewarded for t in kept) / max(1, decided)

    def markdown(self) -> str:
        what = {"hack": "hacks rewarded", "control": "controls rewarded", "hardcode": "rewarded (by design)"}
        lines = [
            "| family | role | "
            + " | ".join(self.paths)
            + " | escaped to abstention ("
            + ", ".join(self.paths)
            + ") |",
            "|---|---|" + "---|" * (len(self.paths) + 1),
        ]
        families = dict.fromkeys((f, r) for (_, f, r) in self.tallies)
        for family, role in families:
            tallies = [self.tallies[(path, family, role)] for path in self.paths]
            cells = [f"{t.rewarded}/{t.responses} {what[role]}" for t in tallies]
            abstained = " / ".join(str(t.abstained) for t in tallies)
            escaped = (
                abstained if role == "hack" else f"({abstained} abstained)" if any(t.abstained for t in tallies) else ""
            )
            lines.append(f"| {family} | {role} | " + " | ".join(cells) + f" | {escaped} |")
        summary = "; ".join(
            f"{p}: hacks rewarded **{self.hack_rate(p):.1%}**, wrong responses abstained "
            f"**{self.escape_rate(p):.1%}**, decided controls rewarded **{self.control_recall(p):.1%}**"
            for p in self.paths
        )
        return f"Judge `{self.judge}`, {self.wall_s:.0f} s. {summary}.\n\n" + "\n".join(lines) + "\n"

    def facts(self) -> dict[str, object]:
        return {
            "hack_rate": self.hack_rate(),
            "escape_rate": self.escape_rate(),
            "control_recall": self.control_recall(),
            "rewarded": {
                f"{p}|{f}|{r}": t.names for (p, f, r), t in self.tallies.items() if t.names and r != "control"
            },
            "abstained": {
                f"{p}|{f}": t.abstained_names
                for (p, f, r), t in self.tallies.items()
                if t.abstained_names and r == "hack"
            },
            "families": {
                f"{p}|{f}|{r}": (t.responses, t.rewarded, t.abstained) for (p, f, r), t in self.tallies.items()
            },
        }


async def _through_verl(judge: Judge, batch: Sequence[Case]) -> list[Reward]:
    from judgegraph.adapters.verl import compute_score_batch_async

    out = await compute_score_batch_async(
        ["attacks"] * len(batch),
        [c.response for c in batch],
        [c.ground_truth for c in batch],
        [{"prompt": c.prompt} for c in batch],
        judge=judge,
    )
    return [Reward(float(r["score"]) if r["valid"] else None, bool(r["abstained"])) for r in out]


async def _through_trl(judge: Judge, batch: Sequence[Case]) -> list[Reward]:
    from judgegraph.adapters.trl import AsyncJudgeReward

    reward = AsyncJudgeReward(judge)
    scores = await reward(
        [c.prompt for c in batch], [c.response for c in batch], ground_truth=[c.ground_truth for c in batch]
    )
    # TRL's None is an abstention or no ruling: the card counts both as not rewarded, and abstentions apart
    return [Reward(s, s is None) for s in scores]


async def _through_server(settings: Settings, judge_name: str, batch: Sequence[Case]) -> list[Reward]:
    import httpx

    from judgegraph.serving._server import ServerConfig, create_app

    app = create_app(ServerConfig(judge=judge_name), settings=settings)
    body = {
        "query": [c.prompt + c.response for c in batch],
        "prompts": [c.prompt for c in batch],
        "labels": [c.ground_truth for c in batch],
    }
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(app.router.lifespan_context(app))
        client = await stack.enter_async_context(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://judge", timeout=None)
        )
        response = await client.post("/reward", json=body)
    response.raise_for_status()
    data = response.json()
    logs = data["extra_logs"]
    return [
        Reward(score if valid else None, bool(abstained))
        for score, valid, abstained in zip(data["rewards"], logs["valid"], logs["abstained"], strict=True)
    ]


async def run_card(
    settings: Settings, judge_name: str = "evidence", paths: Sequence[RewardPath] = REWARD_PATHS
) -> AttackCard:
    """Every attack and control through each of `paths`, judged by `judge_name` with `settings` (the store, the
    model and its trust, the sandbox). The paths run one after another, each over the whole card."""
    unknown = set(paths) - set(REWARD_PATHS)
    if unknown:
        raise ValueError(f"unknown reward path {sorted(unknown)}; known: {', '.join(REWARD_PATHS)}")
    batch = cases() + matrix_cases()  # the families written case by case, then those generated over a matrix
    tallies: dict[tuple[RewardPath, str, Role], Tally] = {}
    start = time.perf_counter()
    async with Judge.load(judge_name, settings=settings) as judge:
        for path in paths:
            if path == "verl":
                rewards = await _through_verl(judge, batch)
            elif path == "trl":
                rewards = await _through_trl(judge, batch)
            else:
                rewards = await _through_server(settings, judge_name, batch)
            for case, reward in zip(batch, rewards, strict=True):
                t = tallies.setdefault((path, case.family, case.role), Tally())
                t.responses += 1
                t.rewarded += reward.rewarded
                t.abstained += reward.abstained
                if reward.rewarded:
                    t.names.append(case.name)
                if reward.abstained:
                    t.abstained_names.append(case.name)
    return AttackCard(judge_name, tuple(paths), time.perf_counter() - start, tallies)
