"""The evidence-first and skill graphs' options, and the run context their nodes read them from."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from judgegraph.graphs._context import JudgeContext
from judgegraph.graphs._protocol import GraphOptions


class EvidenceOptions(GraphOptions):
    """The evidence-first and skill graphs' own knobs."""

    deliberate: Literal["undecided", "always"] = "undecided"
    """Ask the model only where no deterministic evidence decides, or always (evidence still wins)."""
    tournament: Literal["knockout", "round_robin", "none"] = "knockout"
    """Best-of-N: pairwise knockout, round-robin win rate, or one scoring call over all candidates. Candidates
    that fail a deterministic check are out before the tournament; one that alone passes them all wins outright."""
    commit_first: bool = False
    """Where the model rules, it first writes its own answer to the task without seeing any response (the
    `own_answer` prompt); responses that commit to a final answer are then scored by whether theirs is equivalent
    to it, not by the model's reading of them (published: false acceptance 1.2% against 71.9%). A response that
    commits to no final answer, or a task the model gives no answer to, is read as without it. The
    `commit_first` judge turns it on."""


EvidenceContext = JudgeContext[EvidenceOptions]
Ctx = Runtime[EvidenceContext]
