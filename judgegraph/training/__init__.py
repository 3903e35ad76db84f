"""Training the judge on its own runs: teacher and self-play collection, SFT with TRL, conversion to GGUF."""

from judgegraph.training._collect import VERIFIABLE, Collected, collect_teacher_runs, training_requests
from judgegraph.training._gguf import to_gguf
from judgegraph.training._recipe import export_sft, recipe
from judgegraph.training._sft import SFTSettings, examples, train_sft
from judgegraph.training._teacher import TEACHER_MODEL, Lesson, TeacherModel

__all__ = (
    "TEACHER_MODEL",
    "VERIFIABLE",
    "Collected",
    "Lesson",
    "SFTSettings",
    "TeacherModel",
    "collect_teacher_runs",
    "examples",
    "export_sft",
    "recipe",
    "to_gguf",
    "train_sft",
    "training_requests",
)
