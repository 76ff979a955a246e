#!/usr/bin/env python3
"""Writes the checked-in seed corpora, fuzz/corpus/<target>/seed-*, from the SPEC's
examples, the JCS and Merkle vectors in ../shared/vectors/ (or $AGENTLOOP_VECTORS),
docs/sample.jsonl and Go's published signed-note vectors. Run from anywhere; it replaces the seeds it writes and nothing else.
Kept small on purpose: the fuzzer grows its corpus from these (not checked in)."""
import base64
import hashlib
import json
import os
import pathlib
import struct

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
    # The whole language (issue 16): pydantic- and zod-style tool schemas, applicators,
    # unevaluated*, dynamic and recursive references, draft-07 and 2019-09 forms, and
    # refusals by design (look-around, a remote reference, an unknown $schema).
    (b'{"$defs":{"Unit":{"enum":["c","f"],"title":"Unit","type":"string"}},"properties":{"city":{"title":"City","type":"string"},"unit":{"anyOf":[{"$ref":"#/$defs/Unit"},{"type":"null"}],"default":null},"days":{"default":1,"maximum":14,"minimum":1,"title":"Days","type":"integer"}},"required":["city"],"title":"Forecast","type":"object"}',
     b'{"city":"Oslo","unit":"k","days":15}'),
    (b'{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string","minLength":1,"pattern":"^[^\\u0000]+$"},"mode":{"$ref":"#/definitions/mode"}},"required":["path"],"additionalProperties":false,"definitions":{"mode":{"type":"string","enum":["r","w"]}}}',
     b'{"path":"","mode":"x","extra":1}'),
    (b'{"oneOf":[{"type":"integer","multipleOf":0.0001},{"type":"string","pattern":"^(a+)+$"}],"not":{"const":0},"if":{"minimum":10},"then":{"exclusiveMaximum":100},"else":{"multipleOf":3}}',
     b'0.0075'),
    (b'{"type":"object","patternProperties":{"^x-":{"type":"string"}},"propertyNames":{"maxLength":8},"dependentRequired":{"a":["b"]},"dependentSchemas":{"c":{"minProperties":3}},"minProperties":1,"maxProperties":4,"unevaluatedProperties":false,"allOf":[{"properties":{"a":true}}]}',
     b'{"a":1,"x-y":2,"c":3,"toolongname":4}'),
    (b'{"prefixItems":[{"type":"string"},{"type":"number"}],"items":false,"contains":{"type":"number"},"minContains":1,"maxContains":1,"uniqueItems":true,"unevaluatedItems":false}',
     b'["a",1,1]'),
    (b'{"$id":"https://example.com/strict-tree","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false,"$defs":{"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}',
     b'{"children":[{"daat":1}]}'),
    (b'{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"https://example.com/root","$recursiveAnchor":true,"type":"object","properties":{"next":{"$recursiveRef":"#"}},"items":[{"type":"string"}],"additionalItems":false}',
     b'{"next":{"next":1}}'),
    (b'{"$schema":"http://json-schema.org/draft-07/schema","items":[{"$ref":"#/definitions/a","type":"string"}],"additionalItems":{"type":"integer"},"dependencies":{"a":["b"],"c":{"required":["d"]}},"definitions":{"a":{"$id":"#a","type":"number"}}}',
     b'[1,2,"x"]'),
    (b'{"$defs":{"a":{"$anchor":"anchor","$id":"d.json","items":{"$ref":"#"}}},"$ref":"d.json","properties":{"b":{"$ref":"#/$defs/a"}}}',
     b'[[[1]]]'),
    (b'{"pattern":"(?<=a)b","patternProperties":{"(a)\\\\1":{}}}', b'"ab"'),
    (b'{"$ref":"https://example.com/other.json#/$defs/a"}', b"1"),
    (b'{"$schema":"http://json-schema.org/draft-04/schema#","dependencies":{"a":["b"]}}', b"{}"),
]

# Patterns (ECMA-262, u flag) and a text: the JSON Schema Test Suite's, the issue's
# catastrophic one, the refused constructs and a few syntax errors.
PATTERNS = [
    ("^\\p{Letter}+$", "αβγ"), ("^\\ud83d\\udc32*$", "\U0001F432\U0001F432"), ("^\\cC$", "\x03"),
    ("^(a+)+$", "a" * 30 + "!"), ("[\\w\\s-]{2,}?|\\B.\\b", "a-b é"),
    ("^(?<year>\\d{4})-(?:0[1-9]|1[0-2])$", "2024-12"), ("[^\\p{sc=Grek}\\P{L}]\\u{1F600}", "a\U0001F600"),
    ("a(?=b)", "ab"), ("(a)\\1", "aa"), ("(?i:a)", "A"), ("\\ud800", ""), ("a{3,2}", "aaa"),
    ("(?:a{1000}){1000}", "a"), ("[z-a]|\\p{letter}|\\k", "z"), ("\\x4g\\u{110000}", "x"),
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


def sample_proofs():
    """Proofs over docs/sample.jsonl (3 records), as `agentloop prove --index 1` and
    `--from 2` write them: the inclusion proof of record 1, the same proof with the
    record changed, and the consistency proof from 2 records with its older checkpoint
    after a 0x00 byte (fuzz_targets/ffi.rs's proof operation)."""
    def b64(b):
        return base64.b64encode(b).decode()

    def h(*parts):
        return hashlib.sha256(b"".join(parts)).digest()

    leaves = [h(b"\0", bytes.fromhex(json.loads(line)["hash"])) for line in LINES]
    root2 = h(b"\1", leaves[0], leaves[1])
    body = "agentloop/transcript/{}\n{}\n{}\nhead {}\n"
    first = json.loads(LINES[0])["hash"]
    cp3 = body.format(first, 3, b64(h(b"\1", root2, leaves[2])), json.loads(LINES[2])["hash"])
    cp2 = body.format(first, 2, b64(root2), json.loads(LINES[1])["hash"])
    record = LINES[1].rstrip(b"\n")
    inclusion = (f"c2sp.org/tlog-proof@v1\nextra {b64(record)}\nindex 1\n"
                 f"{b64(leaves[0])}\n{b64(leaves[2])}\n\n{cp3}").encode()
    changed = inclusion.replace(b"index 1\n", b"index 0\n")
    consistency = f"agentloop/tlog-consistency@v1\nold 2\n{b64(leaves[2])}\n\n{cp3}".encode()
    return [inclusion, changed, consistency + b"\0" + cp2.encode()]


def record_line(kind, payload, prev, seq):
    """A sealed canonical record line (with its newline) and its hash; `payload` is
    canonical JSON text."""
    body = b'{"kind":%s,"payload":%s,"prev":"%s","seq":%d}' % (
        json.dumps(kind).encode(), payload, prev.encode(), seq)
    digest = hashlib.sha256(body).hexdigest()
    return b'{"hash":"%s",%s\n' % (digest.encode(), body[1:]), digest


def deep_transcript(depth):
    """Three records, the middle one's payload `depth` arrays deep."""
    out, prev = b"", "0" * 64
    for seq, payload in enumerate([b'{"task":"deep"}', b"[" * depth + b"1" + b"]" * depth, b"{}"]):
        line, prev = record_line("note", payload, prev, seq)
        out += line
    return out


def record_lines():
    """(configuration byte, transcript) seeds of fuzz_targets/record_lines.rs: the
    sample, a payload at the depth limit (128, the line 129) and one past it, an
    overlong line under the 64-byte limit, a number with no canonical form before bad
    syntax, a non-canonical line and a torn tail."""
    return [
        (0x00, SAMPLE),
        (0x27, SAMPLE),
        (0x01, deep_transcript(128)),
        (0x22, deep_transcript(129)),
        (0x40, SAMPLE),
        (0x45, b"[1]\n" + b"x" * 100 + b"\n{}\n" + b"y" * 70),
        (0x03, b"[1e400,}\n[1e400]\n1e400\n" + TRANSCRIPTS[6]),
        (0x10, TRANSCRIPTS[4]),
    ]


# The secret fuzz_targets/provider_parse.rs parses with.
FUZZ_SECRET = b"sk-fuzz-0123456789abcdefghij"


def provider_bodies():
    """(status byte, body) seeds of fuzz_targets/provider_parse.rs: response bodies in
    the providers' documented shapes (a call, text with usage, errors of each shape,
    a body that is not JSON). The status byte indexes the target's status table (0 =
    200, 9 = 429, 10 = 500, 11 = 502, 14 = 529); 0x80 and two bytes give any status."""
    openai_call = (b'{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4.1","choices":[{"index":0,'
                   b'"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_a",'
                   b'"type":"function","function":{"name":"add","arguments":"{\\"a\\":2,\\"b\\":40}"}},'
                   b'{"id":"call_b","type":"custom","custom":{"name":"g","input":"x"}}]},"finish_reason":"tool_calls"}],'
                   b'"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99,'
                   b'"prompt_tokens_details":{"cached_tokens":64}}}')
    openai_text = (b'{"choices":[{"message":{"content":"hi","refusal":"no"},"finish_reason":"length"}],'
                   b'"usage":{"prompt_tokens":1,"completion_tokens":2}}')
    anthropic = (b'{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",'
                 b'"content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"Adding."},'
                 b'{"type":"tool_use","id":"toolu_1","name":"add","input":{"a":2,"b":40}}],"stop_reason":"tool_use",'
                 b'"usage":{"input_tokens":40,"cache_creation_input_tokens":1,"cache_read_input_tokens":2,"output_tokens":12}}')
    return [
        (0, openai_call),
        (0, openai_text),
        (0, anthropic),
        (14, b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
        (9, b'{"error":{"message":"Rate limit reached","type":"tokens","param":null,"code":"rate_limit_exceeded"}}'),
        (10, b'{"object":"error","message":"m","type":"BadRequestError","code":400}'),
        (11, b"<html>\r\n<head><title>502 Bad Gateway</title></head></html>"),
        (0, b'{"error":"model not found"}'),
        # The key of fuzz_targets/provider_parse.rs echoed where the quote is cut
        # (1000 characters of a message, 200 of a body that is not JSON).
        (3, b'{"error":{"message":"' + b"x" * 990 + FUZZ_SECRET + b'","type":"invalid_request_error"}}'),
        (3, b"Unauthorized: " + b"y" * 180 + FUZZ_SECRET + b" end"),
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
    for i, (config, data) in enumerate(record_lines()):
        # The first byte is the configuration (fuzz_targets/record_lines.rs).
        write("record_lines", f"{i:02}-{config:02x}", bytes([config]) + data)
    for i, (status, body) in enumerate(provider_bodies()):
        write("provider_parse", f"{i:02}", bytes([status]) + body)
    for i, (schema, instance) in enumerate(SCHEMAS):
        write("schema", f"{i:02}", schema + b"\0" + instance)
    # The grammar mode (fuzz_targets/schema.rs): 0x01, then the bytes that steer it.
    for i in range(8):
        steer = hashlib.sha256(b"schema grammar %d" % i).digest() * (2 + i)
        write("schema", f"grammar-{i:02}", b"\x01" + steer)
    for i, (pattern, text) in enumerate(PATTERNS):
        write("pattern", f"{i:02}", pattern.encode() + b"\0" + text.encode())
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
    ffi += [bytes([5, 16]) + p for p in sample_proofs()]
    for i, data in enumerate(ffi):
        write("ffi", f"{i:02}", data)

    write_anchors()


# Go's sumdb/note test vectors (core/src/note/tests.rs): a text, its signature lines by
# PeterNeumann (the key the note and tlog_checkpoint targets trust) and EnochRoot.
NOTE_TEXT = b"If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
PETER = "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n".encode()
ENOCH = "\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n".encode()
# `agentloop checkpoint docs/sample.jsonl`, unsigned and with `--sign-key` PeterNeumann's
# key (Ed25519 signing is deterministic, so these are reproducible).
CP_BODY = (b"agentloop/transcript/dc8128e33932e02fe7844bcf36a188d0e23f18f2d25d6f4bdd36804c4008b949\n3\n"
           b"tbwnIg60mOalLOI9eMdh42rd6NCwuRK+CJnUgSQVo7w=\n"
           b"head 8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6\n")
CP_SIG = "\u2014 PeterNeumann x08go3MfVpZGToBq7H+uu9U8TqscPboRc3CZNH5PuHZHfYfmtBQnIE7RSKkaYPPtr75CMgA/iLo8/YR90ti9nxdwqwg=\n".encode()


def write_anchors():
    notes = [
        NOTE_TEXT + b"\n" + PETER,
        NOTE_TEXT + b"\n" + PETER + ENOCH,
        NOTE_TEXT + b"\n" + ENOCH,
        NOTE_TEXT + b"\n" + PETER[:60] + b"ABCD" + PETER[60:],
        b"a\n\n\n" + PETER,
        CP_BODY + b"\n" + CP_SIG,
        NOTE_TEXT + b"\n" + PETER.rstrip(b"\n"),
        NOTE_TEXT + b"\n" + "\u2014 Peter+Neumann AAAAAAA=\n".encode(),
        NOTE_TEXT + b"\n",
        NOTE_TEXT.replace(b"\n", b"\r\n", 1) + b"\n" + PETER,
    ]
    for i, data in enumerate(notes):
        write("note", f"{i:02}", data)
    checkpoints = [
        CP_BODY,
        CP_BODY + b"\n" + CP_SIG,
        CP_BODY + b"\n" + CP_SIG + ENOCH,
        CP_BODY.replace(b"\n3\n", b"\n4\n") + b"\n" + CP_SIG,
        b"example.com/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",
        b"example.com/log\n03\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\nnote\n",
        CP_BODY + b"head 8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6\n",
        CP_BODY + b"an extension\n\n" + CP_SIG,
        b"{example.com/log\n1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",
        b'{"count":3,"head":"8428b0f390a2bdfa3cf9d7eaf03ab3e99f11dbea75bf1177b8db0a31f6c2a0b6"}\n',
        b" x\n9007199254740992\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",
    ]
    for i, data in enumerate(checkpoints):
        write("tlog_checkpoint", f"{i:02}", data)
    # proof: the Merkle vectors (transparency-dev's testdata) in the target's layout
    # (fuzz_targets/proof.rs): every happy path and the failures of tree 1.
    merkle = VECTORS / "merkle" / "testdata"
    vectors = sorted(merkle.glob("*/*/happy-path.json")) + sorted(merkle.glob("*/1/*.json"))
    seen = set()
    for path in vectors:
        if path in seen:
            continue
        seen.add(path)
        v = json.loads(path.read_text())
        b64 = lambda t: base64.b64decode(t) if t else b""
        chunk = lambda b: bytes([min(len(b), 255)]) + b[:255]
        proof = [b64(p) for p in v.get("proof") or []]
        if "leafIdx" in v:
            data = bytes([0]) + struct.pack("<QQ", v["leafIdx"] % 2**64, v["treeSize"] % 2**64)
            data += chunk(b64(v["leafHash"])) + chunk(b64(v["root"]))
        else:
            data = bytes([1]) + struct.pack("<QQ", v["size1"] % 2**64, v["size2"] % 2**64)
            data += chunk(b64(v["root1"])) + chunk(b64(v["root2"]))
        data += bytes([len(proof)]) + b"".join(chunk(p) for p in proof)
        kind = path.parent.parent.name
        write("proof", f"{kind}-{path.parent.name}-{path.stem}", data)
    # Trees: leaf count, index/size1, size, byte to change, XOR, other index, leaf data.
    trees = [(8, 5, 7, 3, 0x80, 2, b"abcdefgh"), (7, 0, 6, 40, 1, 6, b"\0" * 7),
             (300, 100, 299, 1000, 0xFF, 7, bytes(range(256))), (1, 0, 0, 0, 1, 0, b"x"),
             (64, 31, 63, 17, 2, 32, b"ab" * 32)]
    for i, (n, a, b, at, x, other, leaves) in enumerate(trees):
        for mode in (2, 3):
            data = bytes([mode]) + struct.pack("<HHHHBH", n - 1, a, b, at, x, other) + leaves
            write("proof", f"tree-{i}-{mode}", data)


main()
