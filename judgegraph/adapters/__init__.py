"""Adapters for RL trainers: a TRL reward function and verl's `compute_score` (per sample and per batch)."""

from judgegraph.adapters._common import group_request, group_scores
from judgegraph.adapters.trl import AsyncJudgeReward, JudgeReward
from judgegraph.adapters.verl import (
    VerlReward,
    compute_score,
    compute_score_async,
    compute_score_batch,
    compute_score_batch_async,
)

__all__ = (
    "AsyncJudgeReward",
    "JudgeReward",
    "VerlReward",
    "compute_score",
    "compute_score_async",
    "compute_score_batch",
    "compute_score_batch_async",
    "group_request",
    "group_scores",
)
