from __future__ import annotations

import pytest

from agentgauge.judges import JudgeConfigError, JudgeEndpoint
from agentgauge.judges._endpoint import NO_KEY_PLACEHOLDER


@pytest.mark.parametrize(
    ("provider", "env", "key", "url"),
    [
        ("openai", {"OPENAI_API_KEY": "k-openai"}, "k-openai", None),
        ("openai", {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://proxy/v1"}, "k", "http://proxy/v1"),
        ("deepseek", {"DEEPSEEK_API_KEY": "k-ds", "OPENAI_API_KEY": "other"}, "k-ds", "https://api.deepseek.com/v1"),
        (
            "gemini",
            {"GOOGLE_API_KEY": "k-google"},
            "k-google",
            "https://generativelanguage.googleapis.com/v1beta/openai/",
        ),
        (
            "gemini",
            {"GEMINI_API_KEY": "k-gem", "GOOGLE_API_KEY": "k-google"},
            "k-gem",
            "https://generativelanguage.googleapis.com/v1beta/openai/",
        ),
        ("anthropic", {"ANTHROPIC_API_KEY": "k-ant"}, "k-ant", "https://api.anthropic.com/v1/"),
        ("ollama", {}, NO_KEY_PLACEHOLDER, "http://127.0.0.1:11434/v1"),
        ("vllm", {"OPENAI_BASE_URL": "http://gpu:8000/v1"}, NO_KEY_PLACEHOLDER, "http://gpu:8000/v1"),
    ],
)
def test_key_and_url_from_provider_defaults(provider: str, env: dict[str, str], key: str, url: str | None) -> None:
    endpoint = JudgeEndpoint.resolve(model="m", provider=provider, env=env)
    assert endpoint.api_key == key
    assert endpoint.base_url == url


def test_config_values_win_over_environment() -> None:
    endpoint = JudgeEndpoint.resolve(
        model="m", provider="deepseek", base_url="http://mine/v1", api_key="cfg", env={"DEEPSEEK_API_KEY": "env"}
    )
    assert (endpoint.api_key, endpoint.base_url) == ("cfg", "http://mine/v1")


def test_variant_selects_flavour_of_openai_provider() -> None:
    endpoint = JudgeEndpoint.resolve(
        model="deepseek-chat", provider="openai", variant="deepseek", env={"DEEPSEEK_API_KEY": "d"}
    )
    assert endpoint.base_url == "https://api.deepseek.com/v1"
    assert endpoint.api_key == "d"


@pytest.mark.parametrize(
    ("model", "provider", "name"),
    [
        ("gemini-2.5-flash", "gemini", "gemini-2.5-flash"),
        ("claude-sonnet-4", "anthropic", "claude-sonnet-4"),
        ("deepseek-chat", "deepseek", "deepseek-chat"),
        ("gpt-4o", "openai", "gpt-4o"),
        ("ollama/llama3", "ollama", "llama3"),
        ("openrouter/some/model", "openai", "openrouter/some/model"),
    ],
)
def test_provider_inferred_from_model_name(model: str, provider: str, name: str) -> None:
    endpoint = JudgeEndpoint.resolve(
        model=model,
        env={"OPENAI_API_KEY": "x", "GEMINI_API_KEY": "x", "ANTHROPIC_API_KEY": "x", "DEEPSEEK_API_KEY": "x"},
    )
    assert (endpoint.provider, endpoint.model) == (provider, name)


def test_hosted_provider_without_key_is_a_config_error() -> None:
    with pytest.raises(JudgeConfigError, match=r"\$DEEPSEEK_API_KEY"):
        JudgeEndpoint.resolve(model="deepseek-chat", provider="deepseek", env={})
    with pytest.raises(JudgeConfigError, match="model name is empty"):
        JudgeEndpoint.resolve(model=" ", env={})


def test_key_never_in_repr_or_identity() -> None:
    endpoint = JudgeEndpoint.resolve(model="m", provider="openai", api_key="sk-very-secret", env={})
    assert "sk-very-secret" not in repr(endpoint)
    assert "sk-very-secret" not in str(endpoint.cache_identity())
