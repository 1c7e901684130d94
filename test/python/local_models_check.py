"""The official Python `openai` package against a mesh started as the README says, with its local models.

Run by test/e2e/first-start.test.ts: CHAT_MODEL is the local chat model (llama.cpp), EMBEDDING_MODEL
the local embedding model (ONNX). The SDK reads OPENAI_BASE_URL and OPENAI_API_KEY itself. Prints
{"ok": true} when every check held; raises (exit 1) naming the one that did not.
"""

import json
import os

import openai
from openai import OpenAI

client = OpenAI(max_retries=0)
chat_model = os.environ["CHAT_MODEL"]
embedding_model = os.environ["EMBEDDING_MODEL"]


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


messages = [{"role": "user", "content": "Name two fruits."}]

# chat, JSON
completion = client.chat.completions.create(model=chat_model, messages=messages, max_tokens=30)
expect(completion.model == chat_model, f"model: {completion.model}")
expect(completion.choices[0].message.content.strip() != "", f"an answer: {completion}")
expect(1 <= completion.usage.completion_tokens <= 30, f"usage: {completion.usage}")

# chat, stream with usage
text, usage = "", None
for chunk in client.chat.completions.create(
    model=chat_model,
    messages=messages,
    max_tokens=30,
    stream=True,
    stream_options={"include_usage": True},
):
    if chunk.choices:
        text += chunk.choices[0].delta.content or ""
    if chunk.usage:
        usage = chunk.usage
expect(text.strip() != "", "a streamed answer")
expect(usage is not None and usage.completion_tokens >= 1, f"stream usage: {usage}")

# the same request and seed, the same answer
seeded = dict(model=chat_model, messages=messages, max_tokens=24, temperature=1, seed=1234)
answers = {client.chat.completions.create(**seeded).choices[0].message.content for _ in range(3)}
expect(len(answers) == 1, f"one answer for one seed: {answers}")

# embeddings (the SDK asks for base64 and decodes it)
vectors = client.embeddings.create(model=embedding_model, input=["trail shoes", "a tent"])
expect(len(vectors.data) == 2 and len(vectors.data[0].embedding) == 384, "two 384-float vectors")
expect(vectors.usage.prompt_tokens > 0, f"embedding usage: {vectors.usage}")

# a parameter the local runtime cannot honour
try:
    client.chat.completions.create(model=chat_model, messages=messages, logprobs=True)
    expect(False, "422 expected for logprobs")
except openai.UnprocessableEntityError as error:
    expect(error.param == "logprobs" and error.code == "unsupported", f"422: {error.body}")

# a prompt over the context window
try:
    client.chat.completions.create(
        model=chat_model, messages=[{"role": "user", "content": "word " * 6000}]
    )
    expect(False, "400 expected over the context")
except openai.BadRequestError as error:
    expect(error.code == "context_length_exceeded", f"400 code: {error.code}")

print(json.dumps({"ok": True}))
