from __future__ import annotations

import pytest

from benchmarks.fake_openai import FakeOpenAI, Reply
from judgegraph.backends import ModelClient, Sampling, backend_profiles, free_port
from judgegraph.errors import BackendUnavailableError
from tests.conftest import ClientFor

SCHEMA = {"type": "object", "properties": {"winner": {"type": "string"}}, "required": ["winner"]}


async def _client(client_for: ClientFor, server: FakeOpenAI, **options: object) -> ModelClient:
    return await client_for(server.url, backoff_s=0.01, **options)


async def test_connect_detects_model_and_profile(client_for: ClientFor) -> None:
    server = FakeOpenAI(owned_by="vllm", model="qwen").start()
    try:
        client = await _client(client_for, server)
        assert client.model == "qwen" and client.profile.name == "vllm"
    finally:
        server.stop()


async def test_endpoint_down_is_a_clear_error() -> None:
    client = ModelClient(f"http://127.0.0.1:{free_port()}/v1")
    with pytest.raises(BackendUnavailableError, match="does not answer"):
        await client.connect()


async def test_tool_calls_are_parsed_and_malformed_ones_kept_raw(
    fake_openai: FakeOpenAI, client_for: ClientFor
) -> None:
    fake_openai.script = [
        Reply(
            tool_calls=[("match_reference", '{"candidate": 1}'), ("match_reference", '{"candidate": ')],
            finish_reason="tool_calls",
        )
    ]
    client = await _client(client_for, fake_openai)
    tools = [{"type": "function", "function": {"name": "match_reference", "parameters": {}}}]
    turn = await client.chat([{"role": "user", "content": "go"}], tools=tools, tool_choice="auto")
    assert turn.error is None
    assert [(c.name, c.arguments, c.source) for c in turn.tool_calls] == [
        ("match_reference", {"candidate": 1}, "model")
    ]
    assert len(turn.raw_tool_calls) == 2 and turn.raw_tool_calls[1]["function"]["arguments"] == '{"candidate": '
    assert turn.usage.prompt_tokens == 11 and turn.finish_reason == "tool_calls"
    assert fake_openai.requests[0]["tools"] == tools
    assert turn.request.tools == tools and turn.request.messages == [{"role": "user", "content": "go"}]


async def test_transient_errors_are_retried_and_counted(fake_openai: FakeOpenAI, client_for: ClientFor) -> None:
    fake_openai.script = [Reply(status=500), Reply(status=503), Reply(content="fine")]
    client = await _client(client_for, fake_openai, max_retries=2)
    turn = await client.chat([{"role": "user", "content": "hi"}])
    assert turn.error is None and turn.text == "fine" and turn.attempts == 3


async def test_persistent_errors_end_in_a_failed_turn_not_an_exception(
    fake_openai: FakeOpenAI, client_for: ClientFor
) -> None:
    fake_openai.script = [Reply(status=500)] * 3
    client = await _client(client_for, fake_openai, max_retries=2)
    turn = await client.chat([{"role": "user", "content": "hi"}])
    assert turn.error is not None and "500" in turn.error and turn.attempts == 3


async def test_bad_request_is_not_retried(fake_openai: FakeOpenAI, client_for: ClientFor) -> None:
    fake_openai.script = [Reply(status=400)]
    client = await _client(client_for, fake_openai, max_retries=2)
    turn = await client.chat([{"role": "user", "content": "hi"}])
    assert turn.error is not None and "400" in turn.error and turn.attempts == 1


async def test_timeouts_are_retried_then_reported(fake_openai: FakeOpenAI, client_for: ClientFor) -> None:
    fake_openai.script = [Reply(content="late", delay_s=1.0), Reply(content="late", delay_s=1.0)]
    client = await _client(client_for, fake_openai, max_retries=1, timeout_s=0.2)
    turn = await client.chat([{"role": "user", "content": "hi"}])
    assert turn.error is not None and "Timeout" in turn.error and turn.attempts == 2


async def test_garbage_body_is_a_failed_turn(fake_openai: FakeOpenAI, client_for: ClientFor) -> None:
    fake_openai.script = [Reply(raw_body="this is not json")]
    client = await _client(client_for, fake_openai, max_retries=0)
    turn = await client.chat([{"role": "user", "content": "hi"}])
    assert turn.error is not None


async def test_llama_cpp_profile_shapes_requests(fake_openai: FakeOpenAI, client_for: ClientFor) -> None:
    client = await _client(client_for, fake_openai, profile=backend_profiles.get("llama_cpp"))
    tools = [{"type": "function", "function": {"name": "t", "parameters": {}}}]
    await client.chat([{"role": "user", "content": "x"}], json_schema=SCHEMA, tools=tools, tool_choice="required")
    sent = fake_openai.requests[-1]
    assert sent["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert sent["tool_choice"] == "auto"  # llama.cpp asserts on "required"
    assert "return_token_ids" not in sent


async def test_vllm_profile_asks_for_json_schema_and_token_ids(fake_openai: FakeOpenAI, client_for: ClientFor) -> None:
    fake_openai.default = Reply(content='{"winner": "A"}', token_ids=True, logprobs=True)
    client = await _client(client_for, fake_openai, profile=backend_profiles.get("vllm"))
    turn = await client.chat(
        [{"role": "user", "content": "x"}], json_schema=SCHEMA, tool_choice="required", sampling=Sampling(logprobs=True)
    )
    sent = fake_openai.requests[-1]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"] == SCHEMA
    assert sent["return_token_ids"] is True and sent["logprobs"] is True
    assert sent["temperature"] == 0.0 and sent["seed"] == 0
    assert turn.prompt_token_ids == [1, 2, 3] and turn.completion_token_ids == [4, 5]
    assert turn.logprobs is not None and turn.logprobs[0]["token"] == "x"
    assert turn.backend == "vllm" and turn.model == "fake-model"


def test_tool_calls_written_as_fenced_json_in_the_text_are_parsed() -> None:
    """Qwen2.5 under its own template (llama.cpp's server does not parse calls) writes calls into `content`."""
    from judgegraph.backends._client import calls_in_text

    text = 'I will check.\n```json\n{"name": "run_code", "arguments": {"candidate": 1}}\n```'
    calls = calls_in_text(text, {"run_code"})
    assert calls == [
        {"id": "text_call_0", "type": "function", "function": {"name": "run_code", "arguments": '{"candidate": 1}'}}
    ]
    tagged = '<tool_call>\n{"name": "match_reference", "arguments": {"candidate": 0}}\n</tool_call>'
    assert calls_in_text(tagged, {"match_reference"})[0]["function"]["name"] == "match_reference"
    assert calls_in_text('{"name": "rm_rf", "arguments": {}}', {"run_code"}) == []  # not offered: stays text
    assert calls_in_text('{"winner": "A"}', {"run_code"}) == [] and calls_in_text("no json", {"run_code"}) == []


async def test_a_reply_with_a_call_in_its_text_becomes_a_tool_call(fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [Reply(content='```json\n{"name": "run_code", "arguments": {"candidate": 0}}\n```')]
    client = ModelClient(fake_openai.url)
    await client.connect()
    spec = {"type": "function", "function": {"name": "run_code", "parameters": {"type": "object"}}}
    turn = await client.chat([{"role": "user", "content": "check"}], tools=[spec], tool_choice="auto")
    await client.close()
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("run_code", {"candidate": 0})]
    assert turn.raw_tool_calls and turn.text is not None and "run_code" in turn.text  # the text is kept whole
