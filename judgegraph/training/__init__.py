"""Training the judge on its own runs: teacher and self-play collection, SFT with TRL, conversion to GGUF."""

from judgegraph.training._collect import VERIFIABLE, Collected, collect_teacher_runs, training_requests
from judgegraph.training._teacher import TEACHER_MODEL, Lesson, TeacherModel

__all__ = (
    "TEACHER_MODEL",
    "VERIFIABLE",
    "Collected",
    "Lesson",
    "TeacherModel",
    "collect_teacher_runs",
    "training_requests",
)
