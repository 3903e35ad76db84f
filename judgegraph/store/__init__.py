"""Where trajectories live: a schema-versioned SQLite store."""

from judgegraph.store._sqlite import SCHEMA_VERSION, RunCounts, RunFilter, RunSummary, TrajectoryStore

__all__ = ("SCHEMA_VERSION", "RunCounts", "RunFilter", "RunSummary", "TrajectoryStore")
