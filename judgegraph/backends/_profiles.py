"""Backend profiles: what each kind of OpenAI-compatible server accepts, as data read by one request builder."""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import BaseModel, ConfigDict

from judgegraph.registry import Registry

log = logging.getLogger(__name__)

StructuredOutput = Literal["json_schema", "json_object_schema", "json_object"]


class BackendProfile(BaseModel):
    """The request shapes one kind of server accepts."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    name: str
    """Registered name, recorded in every model turn."""
    structured_output: StructuredOutput
    """How to ask for schema-constrained JSON: OpenAI `json_schema`, llama.cpp's `json_object` + `schema`,
    or plain `json_object` (schema in the prompt only)."""
    tool_choice_required: bool
    """Whether `tool_choice="required"` is accepted (llama.cpp asserts on it)."""
    parallel_tool_calls: bool
    """Whether several tool calls per turn are supported."""
    token_ids_extra: dict[str, object] = {}
    """Extra body fields that make the server return prompt and completion token ids."""
    logprobs: bool = True
    """Whether the server returns per-token logprobs when asked."""
    images: bool = True
    """Whether `image_url` content parts are accepted."""
    native_tools: bool = True
    """Whether the server parses the model's tool calls (`tools=`); if not, agentic judges ask for a JSON
    action instead (llama.cpp's default chat format ignores `tools`)."""
    strict_tools: bool = False
    """Whether function specs may carry `strict: true` (the server decodes a call's arguments under its schema).
    Off by default: OpenAI's strict mode also demands every property be required."""
    owned_by: tuple[str, ...] = ()
    """`/v1/models`' `owned_by` values that identify this kind of server (how a profile is detected)."""

    def response_format(self, name: str, schema: dict[str, object]) -> dict[str, object]:
        """The `response_format` that constrains output to `schema`."""
        if self.structured_output == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
        if self.structured_output == "json_object_schema":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_object"}

    def tool_choice(self, choice: str | dict[str, object] | None) -> str | dict[str, object] | None:
        """`choice` adapted to what the server accepts."""
        if choice == "required" and not self.tool_choice_required:
            log.warning("backend %s does not support tool_choice='required'; sending 'auto'", self.name)
            return "auto"
        return choice


backend_profiles: Registry[BackendProfile] = Registry("backend profile")

backend_profiles.register(
    "vllm",
    BackendProfile(
        name="vllm",
        structured_output="json_schema",
        tool_choice_required=True,
        parallel_tool_calls=True,
        token_ids_extra={"return_token_ids": True},
        strict_tools=True,
        owned_by=("vllm",),
    ),
)
backend_profiles.register(
    "llama_cpp",
    BackendProfile(
        name="llama_cpp",
        structured_output="json_object_schema",
        tool_choice_required=False,
        parallel_tool_calls=False,
        images=False,
        native_tools=False,
        owned_by=("llama_cpp", "llamacpp", "me"),
    ),
)
backend_profiles.register(
    "generic",
    BackendProfile(
        name="generic",
        structured_output="json_schema",
        tool_choice_required=True,
        parallel_tool_calls=True,
    ),
)


def detect_profile(owned_by: str | None) -> BackendProfile:
    """The registered profile whose `owned_by` names this server (vLLM says `vllm`), else `generic`."""
    found = (backend_profiles.get(n) for n in backend_profiles)
    return next((p for p in found if owned_by is not None and owned_by in p.owned_by), backend_profiles.get("generic"))
