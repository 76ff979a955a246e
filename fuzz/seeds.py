#!/usr/bin/env python3
"""Writes the checked-in seed corpora, fuzz/corpus/<target>/seed-*, from the SPEC's
examples, the JCS vectors in ../shared/vectors/ (or $AGENTLOOP_VECTORS) and
docs/sample.jsonl. Run from anywhere; it replaces the seeds it writes and nothing else.
Kept small on purpose: the fuzzer grows its corpus from these (not checked in)."""
import os
import pathlib

FUZZ = pathlib.Path(__file__).resolve().parent
ROOT = FUZZ.parent
VECTORS = pathlib.Path(os.environ.get("AGENTLOOP_VECTORS", ROOT.parent / "shared" / "vectors"))

SAMPLE = (ROOT / "docs" / "sample.jsonl").read_bytes()
LINES = SAMPLE.splitlines(keepends=True)

JSON = [
    b'{"\xe2\x82\xac":1,"\\r":2,"\xf0\x9f\x98\x80":3,"\xef\xac\x81":4,"a":[1e21,1e-7,-0.0,0.1,1e20,5e-324]}',
    b"9007199254740993", b"9007199254740992", b"1152921504606847000", b"1e400", b"-1e-400",
    b"0.000001", b"123456789012345678901234567890e-10", b'"\\ud800"', b'"\\ud83d\\ude00\\u00e9\\/"',
    b'{"a":1,"\\u0061":2}', b'{"b":[true,false,null],"a":{}}', b"\xef\xbb\xbf{}", b"[NaN]",
    b"[" * 129 + b"]" * 129, b' { "a" : [ 1 , 2 ] } ', b"-0",
]
SCHEMAS = [
    (b'{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}',
     b'{"a":"x"}'),
    (b'{"$defs":{"n":{"type":["number","null"],"minimum":0,"exclusiveMaximum":10}},"items":{"$ref":"#/$defs/n"},"minItems":1,"maxItems":3}',
     b"[1,null,10,-1]"),
    (b'{"anyOf":[{"type":"string","minLength":2,"maxLength":3},{"enum":[1,"a",null]},{"const":{"k":[1]}}]}',
     b'"abcd"'),
    (b'{"type":"object","additionalProperties":false,"properties":{"a b":{"type":"boolean"}},"title":"t","description":"d","default":{},"examples":[{}],"$schema":"https://json-schema.org/draft/2020-12/schema","$comment":"c","deprecated":false,"readOnly":false,"writeOnly":false,"format":"email"}',
     b'{"a b":1,"c":2}'),
    (b'{"additionalProperties":{"type":"string"},"maximum":3,"exclusiveMinimum":1}', b'{"x":[1]}'),
    (b'{"required":["a","a"]}', b"{}"),
    (b'{"anyOf":[]}', b"1"),
    (b'{"minItems":1.5}', b"[]"),
    (b'{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}', b"1"),
    (b'{"unknownKeyword":1}', b"1"),
]


def tamper(line, old, new):
    return line.replace(old, new, 1)


TRANSCRIPTS = [
    SAMPLE,
    b"".join(LINES[:3]),
    LINES[0] + tamper(LINES[1], b'"a":2', b'"a":3') + b"".join(LINES[2:3]),
    LINES[1] + LINES[0],
    b"".join(LINES[:2]) + LINES[2][:40],
    LINES[0] + b"\n" + b"[1]\n" + b"{}\n" + b'{"hash":1,"kind":"","seq":"x","extra":true}\n',
    tamper(LINES[0], b',"kind"', b', "kind"') + LINES[1],
    tamper(LINES[0], b'"seq":0', b'"seq":1e400'),
    tamper(LINES[0], b'"task":"add', b'"task":"\xff'),
]


def write(target, name, data):
    d = FUZZ / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"seed-{name}").write_bytes(data)


def main():
    jcs = sorted((VECTORS / "jcs" / "testdata" / "input").glob("*.json"))
    for i, data in enumerate(JSON + [p.read_bytes() for p in jcs]):
        write("parse_canon", f"{i:02}", data)
    for i, data in enumerate(TRANSCRIPTS):
        # The first byte is the configuration (fuzz_targets/verify_bytes.rs).
        for config in (0x00, 0xC5 if i % 2 else 0x2B):
            write("verify_bytes", f"{i:02}-{config:02x}", bytes([config]) + data)
    for i, (schema, instance) in enumerate(SCHEMAS):
        write("schema", f"{i:02}", schema + b"\0" + instance)
    checkpoints = [
        b'{"count":3,"head":"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6"}\n',
        b'{"count":0}\n', b'  {"count":9007199254740992}  ', b'{"count":1.5}', b'{"count":1,"x":2}',
        b'{"count":1,"head":"ABC"}', b"[]",
    ]
    for i, data in enumerate(checkpoints):
        write("checkpoint", f"{i:02}", data)
    # ffi: an operation byte and a buffer-size byte (fuzz_targets/ffi.rs).
    ffi = []
    ffi += [bytes([0, 7]) + d for d in JSON[:6]]
    ffi += [bytes([1, 0]) + LINES[0][9:73], bytes([1, 0]) + b"ABCDEF"]
    ffi += [bytes([2, c]) + t for c, t in ((0, TRANSCRIPTS[0]), (0x33, TRANSCRIPTS[2]), (0xF1, TRANSCRIPTS[5]))]
    ffi += [bytes([3, 5]) + s + b"\0" + i for s, i in SCHEMAS[:4]]
    ffi += [bytes([4, 20]) + b'task\0{"task":"add 2 and 40"}\0[1,2]\0nope\0{"a":1e400}']
    for i, data in enumerate(ffi):
        write("ffi", f"{i:02}", data)


main()
