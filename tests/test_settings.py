"""Settings from `JUDGEGRAPH_*` environment variables (pydantic-settings): every setting has its variable, typed
and checked as the setting is; an empty variable is unset; flags win; a bad value names its variable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from judgegraph.errors import ConfigError
from judgegraph.settings import ENVIRONMENT, MCPSource, Settings
from tests.conftest import ROOT


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ENVIRONMENT.values():
        monkeypatch.delenv(variable, raising=False)


def test_every_setting_is_read_from_its_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    given = {
        "JUDGEGRAPH_MODEL_URL": "http://127.0.0.1:8000/v1",
        "JUDGEGRAPH_MODEL_NAME": "qwen",
        "JUDGEGRAPH_BACKEND": "vllm",
        "JUDGEGRAPH_API_KEY": "k3y",
        "JUDGEGRAPH_TIMEOUT": "30",
        "JUDGEGRAPH_BUDGET": "12.5",
        "JUDGEGRAPH_MAX_RETRIES": "0",
        "JUDGEGRAPH_EMBEDDED_MODEL": "qwen2.5-coder-1.5b",
        "JUDGEGRAPH_EMBEDDED_THREADS": "1",
        "JUDGEGRAPH_STORE": str(tmp_path / "runs.db"),
        "JUDGEGRAPH_SANDBOX": "process",
        "JUDGEGRAPH_SANDBOX_POOL": "3",
        "JUDGEGRAPH_DERIVED_SAMPLES": "7",
        "JUDGEGRAPH_DERIVED_REPAIRS": "0",
        "JUDGEGRAPH_MCP_SERVERS": '[{"name": "docs", "url": "http://127.0.0.1:9/mcp"}]',
        "JUDGEGRAPH_UNDECIDED": "zero",
        "JUDGEGRAPH_MODEL_TRUSTED": "true",
        "JUDGEGRAPH_CHECKPOINTS": "incomplete",
    }
    assert set(given) == set(ENVIRONMENT.values())  # every setting has a variable, and these are all of them
    for variable, value in given.items():
        monkeypatch.setenv(variable, value)
    s = Settings.from_env()
    assert (s.model_url, s.model_name, s.backend, s.api_key) == ("http://127.0.0.1:8000/v1", "qwen", "vllm", "k3y")
    assert (s.timeout_s, s.budget_s, s.max_retries) == (30.0, 12.5, 0)
    assert (s.embedded_model, s.embedded_threads, s.store_path) == ("qwen2.5-coder-1.5b", 1, tmp_path / "runs.db")
    assert (s.sandbox, s.sandbox_pool_size, s.derived_samples, s.derived_repairs) == ("process", 3, 7, 0)
    assert s.mcp_servers == (MCPSource(name="docs", url="http://127.0.0.1:9/mcp"),)
    assert (s.undecided, s.model_trusted, s.checkpoints) == ("zero", True, "incomplete")


def test_empty_variables_are_unset_and_flags_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEGRAPH_MODEL_URL", "")
    monkeypatch.setenv("JUDGEGRAPH_API_KEY", "")
    monkeypatch.setenv("JUDGEGRAPH_TIMEOUT", "30")
    s = Settings.from_env(timeout_s=5.0, budget_s=None)
    assert s == Settings(timeout_s=5.0)  # the defaults, but the flag; a None flag leaves the setting alone
    monkeypatch.setenv("JUDGEGRAPH_MODEL_TRUSTED", "no")
    assert Settings.from_env().model_trusted is False


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("JUDGEGRAPH_TIMEOUT", "abc", "valid number"),
        ("JUDGEGRAPH_TIMEOUT", "-1", "greater than 0"),
        ("JUDGEGRAPH_DERIVED_SAMPLES", "99", "less than or equal to 16"),
        ("JUDGEGRAPH_UNDECIDED", "sometimes", "'abstain', 'model' or 'zero'"),
        ("JUDGEGRAPH_MODEL_TRUSTED", "maybe", "valid boolean"),
        ("JUDGEGRAPH_MCP_SERVERS", '[{"name": "docs"}]', "exactly one of `command` and `url`"),
    ],
)
def test_a_bad_value_names_its_variable(monkeypatch: pytest.MonkeyPatch, variable: str, value: str, says: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match="bad setting in the environment") as raised:
        Settings.from_env()
    assert variable in str(raised.value) and says in str(raised.value)


def test_the_cli_says_which_variable_is_bad_in_one_line() -> None:
    env = {"JUDGEGRAPH_TIMEOUT": "abc", "PATH": "/usr/bin:/bin", "HOME": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "judgegraph", "runs"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "JUDGEGRAPH_TIMEOUT" in done.stderr and len(done.stderr.strip().splitlines()) == 1
