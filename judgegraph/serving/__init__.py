"""Serving judges to pipelines: the HTTP reward server, worker processes for batches on one machine, and Ray
actors for batches across machines (Ray itself is imported only when a `RayJudge` starts)."""

from judgegraph.errors import RemoteRunError
from judgegraph.serving._processes import ProcessJudge
from judgegraph.serving._ray import RayJudge
from judgegraph.serving._server import JudgeResponse, RewardRequest, RewardResponse, ServerConfig, create_app

__all__ = (
    "JudgeResponse",
    "ProcessJudge",
    "RayJudge",
    "RemoteRunError",
    "RewardRequest",
    "RewardResponse",
    "ServerConfig",
    "create_app",
)
