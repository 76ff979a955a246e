#!/usr/bin/env python3
"""Draft 2020-12 oracle for the schema validator's differential test, using Python's
`jsonschema` package (Draft202012Validator), an implementation independent of ours.

Usage: python3 schema_oracle.py FILE  (or JSONL on standard input)
Each input line is {"schema": ..., "instance": ...}; each output line is the verdict:
  true          the instance is valid
  false         the instance is invalid
  schema_error  the schema is not valid against the draft 2020-12 meta-schema
  error: ...    validation raised (e.g. an unresolvable $ref or endless recursion)
`format` stays an annotation (no format checker), as draft 2020-12 specifies by default.
"""
import json
import sys

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError


def verdicts(lines):
    validators = {}  # schema text -> validator (or None when the schema is refused)
    for line in lines:
        if not line.strip():
            continue
        case = json.loads(line)
        schema = case["schema"]
        key = json.dumps(schema, sort_keys=True)
        if key not in validators:
            try:
                Draft202012Validator.check_schema(schema)
                validators[key] = Draft202012Validator(schema)
            except SchemaError:
                validators[key] = None
        validator = validators[key]
        if validator is None:
            yield "schema_error"
            continue
        try:
            yield "true" if validator.is_valid(case["instance"]) else "false"
        except Exception as e:  # noqa: BLE001 -- any failure is a verdict to report
            yield "error: " + type(e).__name__ + ": " + str(e).replace("\n", " ")[:200]


def main():
    # Bytes split on "\n" only: a "\r" is insignificant white space inside a line, which
    # text mode would take for a line end.
    if len(sys.argv) > 1:
        with open(sys.argv[1], "rb") as f:
            data = f.read()
    else:
        data = sys.stdin.buffer.read()
    out = verdicts(data.decode("utf-8").split("\n"))
    sys.stdout.write("".join(v + "\n" for v in out))


if __name__ == "__main__":
    main()
