"""Model backends: one OpenAI-compatible client, backend profiles, the embedded CPU server, the vLLM launcher."""

from judgegraph.backends._client import ChatModel, ChatOptions, ModelClient, Sampling
from judgegraph.backends._embedded import MODEL_ALIAS, EmbeddedServer, embedded_model_path, free_port
from judgegraph.backends._endpoint import ModelEndpoint
from judgegraph.backends._pool import ModelPool
from judgegraph.backends._profiles import BackendProfile, backend_profiles, detect_profile
from judgegraph.backends._recorded import RecordedModel
from judgegraph.backends._vllm import VllmLaunch, tool_parser_for, vllm_command

__all__ = (
    "MODEL_ALIAS",
    "BackendProfile",
    "ChatModel",
    "ChatOptions",
    "EmbeddedServer",
    "ModelClient",
    "ModelEndpoint",
    "ModelPool",
    "RecordedModel",
    "Sampling",
    "VllmLaunch",
    "backend_profiles",
    "detect_profile",
    "embedded_model_path",
    "free_port",
    "tool_parser_for",
    "vllm_command",
)
