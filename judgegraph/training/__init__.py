"""Training the judge on its own runs: teacher runs, SFT with TRL, conversion to GGUF, rejection-sampling rounds
on self-play."""

from judgegraph.training._collect import VERIFIABLE, Collected, collect_teacher_runs, stored_runs, training_requests
from judgegraph.training._gguf import to_gguf, to_hf
from judgegraph.training._grpo import RulingReward, ruling_reward, ruling_score
from judgegraph.training._recipe import export_sft, recipe
from judgegraph.training._selfplay import SelfPlay, best_runs, cost, sampled_spec, self_play
from judgegraph.training._sft import SFTSettings, examples, replies, train_sft
from judgegraph.training._teacher import TEACHER_MODEL, Lesson, TeacherModel

__all__ = (
    "TEACHER_MODEL",
    "VERIFIABLE",
    "Collected",
    "Lesson",
    "RulingReward",
    "SFTSettings",
    "SelfPlay",
    "TeacherModel",
    "best_runs",
    "collect_teacher_runs",
    "cost",
    "examples",
    "export_sft",
    "recipe",
    "replies",
    "ruling_reward",
    "ruling_score",
    "sampled_spec",
    "self_play",
    "stored_runs",
    "to_gguf",
    "to_hf",
    "train_sft",
    "training_requests",
)
