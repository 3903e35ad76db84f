"""Where judgegraph runs: read once at the entry point (flags, then `JUDGEGRAPH_*` environment), passed down."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator
from pydantic.fields import FieldInfo

from judgegraph.errors import ConfigError, field_problems

CASE_TIMEOUT_S = 3.0
"""Seconds one case may run: a test case, a statement example, an oracle's run on one input."""
GENERATED_CASE_TIMEOUT_S = 1.0
"""Seconds a candidate may run on one generated input (differential testing): such inputs are small and many,
and a candidate that takes a second on one is stopped there."""


def default_store_path() -> Path:
    """The trajectory store's default file, under the user data dir."""
    return Path(platformdirs.user_data_dir("judgegraph")) / "runs.db"


class MCPSource(BaseModel):
    """An MCP server whose tools a judge may use: a command judgegraph starts (stdio) or a URL (streamable HTTP).
    Its tools join the judge's as `<name>__<tool>`."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,30}$")
    """The prefix of its tools' names in judgegraph."""
    command: list[str] | None = Field(default=None, min_length=1)
    """The server's command line (stdio): started when a judge first calls one of its tools, ended with the judge."""
    url: str | None = None
    """The server's streamable HTTP endpoint (e.g. `http://127.0.0.1:8000/mcp`)."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment for a started server (beside the MCP SDK's safe defaults)."""
    tools: list[str] | None = None
    """Which of its tools to use (their names on the server); None: all it lists."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Per call."""

    @model_validator(mode="after")
    def _one_transport(self) -> MCPSource:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server {self.name!r}: give exactly one of `command` and `url`")
        return self


class Settings(BaseModel):
    """Run-time settings (not part of a judge's identity)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    model_url: str | None = None
    """OpenAI-compatible base URL (e.g. `http://127.0.0.1:8000/v1`); None starts the embedded CPU model.
    Several comma-separated URLs (one vLLM per GPU) are load-balanced with failover."""
    model_name: str | None = None
    """The served model to use; None takes the endpoint's first."""
    backend: str | None = None
    """The model backend (`judgegraph.backends.model_backends`: `openai`, `embedded`, a plugin's), or a backend
    profile (`vllm`, `llama_cpp`, `generic`) for the server at `model_url`; None: `openai` (profile detected)
    with a `model_url`, else `embedded`."""
    api_key: str = "EMPTY"
    timeout_s: float = Field(default=120.0, gt=0)
    """Per-request timeout."""
    budget_s: float | None = Field(default=None, gt=0)
    """Wall-clock budget per judgment: past it the run stops and its verdict is invalid, saying so (an RL step
    never waits on one stuck judgment). None: bounded only by the judge's step, call and retry budgets."""
    max_retries: int = Field(default=2, ge=0)
    """Retries of a model request on transient errors."""
    embedded_model: str | Path | None = None
    """The embedded server's model instead of the bundled SmolLM2-135M-Instruct: a known model's name
    (`judgegraph model list`; `qwen2.5-coder-1.5b` once fetched) or a GGUF file (a trained judge, any model);
    a file is served under its name and content hash."""
    embedded_threads: int | None = None
    """Threads for the embedded model (default: the machine's cores but one, at most 4; see `default_threads`)."""
    store_path: Path = Field(default_factory=default_store_path)
    """The trajectory store (SQLite)."""
    sandbox: str = "auto"
    """Code sandbox backend: a registered one by name (`judgegraph sandbox doctor` lists them), or `auto`: the
    first that runs here (Docker when an engine answers and the image exists, else bubblewrap)."""
    sandbox_pool_size: int = Field(default=2, ge=1)
    """Sandboxes kept warm for concurrent code runs."""
    derived_samples: int = Field(default=5, ge=1, le=16)
    """Programs the model writes for evidence it derives (self-consistency's k): a derived reference answer
    (`derived_reference`) and a derived expected output (`oracle_check`). With 5 rather than 3, dual agreement
    rightly decided 16 math-noref pairs instead of 10, with the same 3 wrongly (EVALS.md)."""
    derived_repairs: int = Field(default=1, ge=0, le=3)
    """Times a derived reference's program that fails or prints nothing goes back to the model with what went
    wrong (self-debugging). One repair made 83% of the 1.5B model's math programs print an answer instead of 77%,
    at 36% more time a judgment on 2 cores (EVALS.md); 0 turns it off."""
    mcp_servers: tuple[MCPSource, ...] = ()
    """MCP servers whose tools every judge here may use (beside those its spec names); from
    `JUDGEGRAPH_MCP_SERVERS`, a JSON list of MCPSource objects."""
    undecided: Literal["abstain", "model", "zero"] = "abstain"
    """What a reward is where no evidence decides a response: `abstain` (the default: the reward is invalid, with
    its reason, unless the model is trusted), `model` (the model's score), `zero`. A response that commits to
    nothing is 0 by evidence whatever this says."""
    model_trusted: bool | None = None
    """Whether the judge's model is trusted to score what no evidence decides; None: trusted when it is a served
    model (`model_url`), never the embedded CPU model (SmolLM2-135M gives every response the same top score)."""
    checkpoints: Literal["off", "incomplete", "all"] = "off"
    """LangGraph checkpoints (SQLite, beside the store, thread id = trajectory id): none, only for runs that did
    not complete (pruned once a run completes, so the file stays small), or all."""

    def undecided_reward(self) -> Literal["abstain", "model", "zero"]:
        """What a reward is where no evidence decides (`undecided`, with `abstain` meaning the model's score where
        the model is trusted)."""
        trusted = self.model_trusted if self.model_trusted is not None else self.model_url is not None
        return "model" if self.undecided == "abstain" and trusted else self.undecided

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Settings from `JUDGEGRAPH_*` environment variables (`ENVIRONMENT` names each; an empty one is unset);
        non-None `overrides` win. A value that does not parse or is out of range is a `ConfigError` naming the
        variable."""
        from pydantic_settings.exceptions import SettingsError

        try:
            read = _environment_model()()
        except (ValidationError, SettingsError) as e:
            detail = field_problems(e) if isinstance(e, ValidationError) else str(e)
            raise ConfigError(f"bad setting in the environment: {detail}") from None
        values: dict[str, object] = {name: getattr(read, name) for name in read.model_fields_set}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)


ENVIRONMENT: dict[str, str] = {name: f"JUDGEGRAPH_{name.upper()}" for name in Settings.model_fields} | {
    "timeout_s": "JUDGEGRAPH_TIMEOUT",
    "budget_s": "JUDGEGRAPH_BUDGET",
    "sandbox_pool_size": "JUDGEGRAPH_SANDBOX_POOL",
    "store_path": "JUDGEGRAPH_STORE",
}
"""The environment variable of each setting (`JUDGEGRAPH_MCP_SERVERS` holds a JSON list of MCPSource objects)."""


def _or_unset(field: FieldInfo) -> Any:
    """A setting's type with its constraints, or None: not set by the environment."""
    kind: Any = Annotated[field.annotation, *field.metadata] if field.metadata else field.annotation
    return kind | None


@functools.cache
def _environment_model() -> type[BaseModel]:
    """`Settings`' fields, each read (typed and checked as the field is) from its variable by pydantic-settings;
    what no variable sets is left out (`model_fields_set`), so the settings' own defaults hold. Built on first
    use: importing pydantic-settings costs about 30 ms, which every `import judgegraph` would otherwise pay."""
    from pydantic_settings import BaseSettings, SettingsConfigDict

    class FromEnvironment(BaseSettings):
        model_config = SettingsConfigDict(env_ignore_empty=True, extra="ignore", frozen=True)

    fields: dict[str, Any] = {
        name: (_or_unset(field), Field(default=None, validation_alias=ENVIRONMENT[name]))
        for name, field in Settings.model_fields.items()
    }
    model: type[BaseModel] = create_model("SettingsFromEnvironment", __base__=FromEnvironment, **fields)
    return model
