"""Model backends: one OpenAI-compatible client, backend profiles, the embedded CPU server, the vLLM launcher."""

from judgegraph.backends._child import ChildServer, free_port
from judgegraph.backends._client import ChatModel, ChatOptions, ModelClient, Sampling
from judgegraph.backends._embedded import MODEL_ALIAS, EmbeddedServer, embedded_model_path
from judgegraph.backends._endpoint import ModelEndpoint
from judgegraph.backends._models import LocalModel, fetch_model, local_models, model_file
from judgegraph.backends._pool import ModelPool
from judgegraph.backends._profiles import BackendProfile, backend_profiles, detect_profile
from judgegraph.backends._recorded import RecordedModel
from judgegraph.backends._registry import ModelBackend, OpenedModel, model_backend, model_backends, openai_compatible
from judgegraph.backends._vllm import VllmLaunch, VllmServer, chat_template_for, tool_parser_for, vllm_command

__all__ = (
    "MODEL_ALIAS",
    "BackendProfile",
    "ChatModel",
    "ChatOptions",
    "ChildServer",
    "EmbeddedServer",
    "LocalModel",
    "ModelBackend",
    "ModelClient",
    "ModelEndpoint",
    "ModelPool",
    "OpenedModel",
    "RecordedModel",
    "Sampling",
    "VllmLaunch",
    "VllmServer",
    "backend_profiles",
    "chat_template_for",
    "detect_profile",
    "embedded_model_path",
    "fetch_model",
    "free_port",
    "local_models",
    "model_backend",
    "model_backends",
    "model_file",
    "openai_compatible",
    "tool_parser_for",
    "vllm_command",
)
