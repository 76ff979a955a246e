"""Judges request bodies by the providers' own SDK types.

Reads a JSON array of cases from the file named by argv[1], each
{"name": str, "provider": "openai" | "anthropic", "body": object}, and prints one
line per case: "<name>\tok" or "<name>\terror\t<first lines of pydantic's error>".

The judge is the SDKs' request parameter types, validated by pydantic:
openai.types.chat.completion_create_params.CompletionCreateParamsNonStreaming and
anthropic.types.message_create_params.MessageCreateParamsNonStreaming. Two changes make
them strict, so that a misspelt or misplaced member fails instead of passing unseen:
  - every TypedDict and pydantic model of both SDKs' `types` packages forbids members
    it does not declare (the TypedDicts ignore them by default, and the response models,
    which the Anthropic SDK also accepts inside requests, allow them);
  - pydantic validates `Iterable[...]` members lazily, so the validated result is walked
    to its leaves, which makes every item be checked.
"""

import importlib
import json
import pkgutil
import sys

import pydantic
import typing_extensions
from pydantic import ConfigDict, TypeAdapter

import anthropic.types
import openai.types

STRICT = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


def make_strict(package):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        try:
            module = importlib.import_module(info.name)
        except Exception:  # a module needing an optional extra: not a request type
            continue
        for value in vars(module).values():
            if not isinstance(value, type) or value.__module__ != module.__name__:
                continue
            if typing_extensions.is_typeddict(value):
                value.__pydantic_config__ = STRICT
            elif issubclass(value, pydantic.BaseModel):
                value.model_config["extra"] = "forbid"
                value.model_rebuild(force=True)


make_strict(openai.types)
make_strict(anthropic.types)

from anthropic.types import message_create_params  # noqa: E402
from openai.types.chat import completion_create_params  # noqa: E402

JUDGES = {
    "openai": TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming),
    "anthropic": TypeAdapter(message_create_params.MessageCreateParamsNonStreaming),
}


def walk(value):
    """Consumes every lazily validated iterable, so its items are checked."""
    if isinstance(value, dict):
        for item in value.values():
            walk(item)
    elif isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return
    elif isinstance(value, pydantic.BaseModel):
        for item in value.__dict__.values():
            walk(item)
    else:
        try:
            items = iter(value)
        except TypeError:
            return
        for item in items:
            walk(item)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    for case in cases:
        try:
            walk(JUDGES[case["provider"]].validate_python(case["body"]))
            print(f"{case['name']}\tok")
        except pydantic.ValidationError as e:
            first = " | ".join(str(e).splitlines()[:3])
            print(f"{case['name']}\terror\t{first}")


main()
