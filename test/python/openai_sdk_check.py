"""The official Python `openai` package against Switchyard's /v1, unchanged but for base URL and key.

Run by test/e2e/openai-sdk.test.ts against a mesh whose model `fake-gpt` sits at the fake
OpenAI-compatible upstream (answers "Answer from up-gpt about <last message>.", reports 1200
prompt and 345 completion tokens) and `fake-embed` answers embeddings. The SDK reads
OPENAI_BASE_URL and OPENAI_API_KEY itself; LIMITED_API_KEY belongs to an organization allowed two
requests a minute. Prints one JSON line: the usage the client saw, for the ledger check.
"""

import json
import os
import sys

import openai
from openai import OpenAI

client = OpenAI(max_retries=0)
seen = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
messages = [
    {"role": "system", "content": "You write product copy."},
    {"role": "user", "content": "A line for trail shoes"},
]
answer = "Answer from up-gpt about A line for trail shoes."


def count(usage):
    seen["prompt_tokens"] += usage.prompt_tokens
    seen["completion_tokens"] += usage.completion_tokens
    seen["calls"] += 1


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


# chat
raw = client.chat.completions.with_raw_response.create(model="fake-gpt", messages=messages)
completion = raw.parse()
expect(completion.choices[0].message.content == answer, f"chat answer: {completion}")
expect(completion.usage.prompt_tokens == 1200, f"chat usage: {completion.usage}")
expect(raw.headers.get("x-request-id", "").startswith("req_"), "x-request-id")
count(completion.usage)

# stream with usage
text, usage = "", None
stream = client.chat.completions.create(
    model="fake-gpt", messages=messages, stream=True, stream_options={"include_usage": True}
)
for chunk in stream:
    if chunk.choices:
        text += chunk.choices[0].delta.content or ""
    if chunk.usage:
        expect(chunk.choices == [], "the usage chunk has no choices")
        usage = chunk.usage
expect(text == answer, f"streamed text: {text!r}")
expect(usage is not None and usage.completion_tokens == 345, f"stream usage: {usage}")
count(usage)

# tools round trip (the mesh scripted one tool call for this client's first tools request)
tools = [
    {
        "type": "function",
        "function": {
            "name": "find_shoes",
            "parameters": {"type": "object", "properties": {"terrain": {"type": "string"}}},
        },
    }
]
first = client.chat.completions.create(model="fake-gpt", messages=messages, tools=tools)
call = first.choices[0].message.tool_calls[0]
expect(first.choices[0].finish_reason == "tool_calls", "finish_reason tool_calls")
expect(json.loads(call.function.arguments) == {"terrain": "mud"}, "tool arguments")
count(first.usage)
follow_up = messages + [
    first.choices[0].message.model_dump(exclude_none=True),
    {"role": "tool", "tool_call_id": call.id, "content": '{"shoes": ["Ridge 2"]}'},
]
second = client.chat.completions.create(model="fake-gpt", messages=follow_up, tools=tools)
expect(second.choices[0].message.content, "an answer after the tool result")
count(second.usage)

# embeddings (the SDK asks for base64 and decodes it)
vectors = client.embeddings.create(model="fake-embed", input=["trail shoes", "a tent"])
expect(len(vectors.data) == 2 and len(vectors.data[0].embedding) == 32, "two 32-float vectors")
expect(vectors.usage.prompt_tokens == 4, f"embedding usage: {vectors.usage}")

# models
expect("fake-gpt" in [m.id for m in client.models.list()], "fake-gpt listed")

# errors, as the SDK's own exception classes
try:
    client.chat.completions.create(model="no-such-model", messages=messages)
    expect(False, "404 expected")
except openai.NotFoundError as error:
    expect(error.code == "model_not_found", f"404 code: {error.code}")
try:
    OpenAI(api_key="sk_unknown_0123456789abcdefghij", max_retries=0).models.list()
    expect(False, "401 expected")
except openai.AuthenticationError as error:
    expect(error.code == "invalid_api_key", f"401 code: {error.code}")
limited = OpenAI(api_key=os.environ["LIMITED_API_KEY"], max_retries=0)
try:
    for _ in range(3):
        limited.models.list()
    expect(False, "429 expected")
except openai.RateLimitError as error:
    expect(error.code == "rate_limit_exceeded", f"429 code: {error.code}")
    expect(int(error.response.headers["retry-after"]) >= 1, "Retry-After")

print(json.dumps(seen))
sys.exit(0)
