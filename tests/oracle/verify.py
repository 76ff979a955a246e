#!/usr/bin/env python3
"""Independent verifier of agentloop transcripts, written from SPEC.md section 3 (not from
the Rust code) as a test oracle; stdlib only. Strict mode, genesis anchor, no checkpoint.
Usage: python3 verify.py FILE...  -- one line per file:
{"count":N,"head":HEX|null,"faults":[[index,kind],...]}"""
import hashlib, json, pathlib, re, sys
from decimal import Decimal

FIELDS = ("hash", "kind", "payload", "prev", "seq")
HEX64 = re.compile(r"[0-9a-f]{64}\Z")
ZEROS = "0" * 64
MAX_SEQ = 2**53 - 1  # the largest seq a chain writes
MAX_DEPTH = 128 + 1  # a payload may nest 128 deep; the record object adds one level
ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}

class BadJson(Exception):  # the line is not I-JSON the parser accepts
    pass

def js_number(x):
    """ECMAScript Number.prototype.toString of a finite double (RFC 8785 numbers)."""
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    mantissa, _, exp = repr(x).partition("e")  # repr: shortest round-trip digits
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    n = len(whole) + int(exp or 0) - (len(whole + frac) - len(digits))  # x = 0.DIGITS * 10**n
    s = digits.rstrip("0")
    k = len(s)
    if k <= n <= 21:  # ECMAScript Number::toString, steps for n and k
        return s + "0" * (n - k)
    if 0 < n <= 21 or -6 < n <= 0:
        return s[:n] + "." + s[n:] if n > 0 else "0." + "0" * -n + s
    e = n - 1
    return s[0] + ("." + s[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))

def js_string(s):
    """A string as ECMAScript JSON.stringify writes it."""
    return '"' + "".join(ESCAPES.get(c) or ("\\u%04x" % ord(c) if c < " " else c) for c in s) + '"'

def canon(v):
    """RFC 8785 canonical encoding (every number has been read as a float)."""
    if v is None or v is True or v is False:
        return {None: "null", True: "true", False: "false"}[v]
    if isinstance(v, float):
        return js_number(v)
    if isinstance(v, str):
        return js_string(v)
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    keys = sorted(v, key=lambda k: k.encode("utf-16-be"))  # UTF-16 code unit order
    return "{" + ",".join(js_string(k) + ":" + canon(v[k]) for k in keys) + "}"

def parse(line):
    """Parses one line strictly; returns (value, has a number with no canonical form)."""
    issue = []
    def on_float(lit):
        x = float(lit)
        if x in (float("inf"), float("-inf")) or (x == 0 and lit.lower().split("e")[0].strip("-0.")):
            issue.append(lit)  # out of range, or a non-zero literal that underflows
        return x
    def on_int(lit):
        try:
            x = float(int(lit))
        except OverflowError:
            issue.append(lit)
            return 0.0
        if Decimal(js_number(x)) != Decimal(lit):
            issue.append(lit)  # its canonical form would denote another number
        return x
    def on_constant(name):  # NaN, Infinity, -Infinity
        raise BadJson(name)
    def on_pairs(pairs):
        if len({k for k, _ in pairs}) != len(pairs):
            raise BadJson("duplicate key")
        return dict(pairs)

    try:
        text = line.decode("utf-8")
        if text.startswith("\ufeff"):
            raise BadJson("byte-order mark")
        value = json.loads(text, parse_float=on_float, parse_int=on_int,
                           parse_constant=on_constant, object_pairs_hook=on_pairs)
    except (ValueError, RecursionError) as e:  # JSONDecodeError, UnicodeDecodeError
        raise BadJson(str(e)) from e
    check(value, 1)
    return value, bool(issue)

def check(v, depth):  # refuses lone surrogates (in keys too) and too deep nesting
    if isinstance(v, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in v):
        raise BadJson("lone surrogate")
    if isinstance(v, (list, dict)) and depth > MAX_DEPTH:
        raise BadJson("too deep")
    for x in (list(v) + list(v.values()) if isinstance(v, dict) else v if isinstance(v, list) else []):
        check(x, depth + 1)

def verify(path):
    try:
        data = pathlib.Path(path).read_bytes()
    except OSError:
        return {"count": 0, "head": None, "faults": [[None, "unreadable"]]}  # nothing read
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the data ends with a newline
    faults, expected_seq, prev = [], 0, ZEROS  # prev: stored hash of the record before
    for i, line in enumerate(lines):
        fault = lambda kind: faults.append([i, kind])  # noqa: E731
        try:
            value, unserialisable = parse(line)
        except BadJson:
            fault("bad_json")
            expected_seq, prev = expected_seq + 1, None
            continue
        not_canonical = not unserialisable and canon(value).encode("utf-8") != line
        if not isinstance(value, dict):
            fault("not_an_object")
            if not_canonical:
                fault("not_canonical")
            expected_seq, prev = expected_seq + 1, None
            continue
        if any(f not in value for f in FIELDS) or not (isinstance(value["kind"], str) and value["kind"]):
            fault("missing_fields")
        if any(k not in FIELDS for k in value):
            fault("unexpected_fields")
        if unserialisable:
            fault("unserialisable_payload")
        h, stored = value.get("hash"), None
        if isinstance(h, str) and HEX64.match(h):
            stored = h
            body = {k: v for k, v in value.items() if k != "hash"}
            if not unserialisable and hashlib.sha256(canon(body).encode("utf-8")).hexdigest() != h:
                fault("hash_mismatch")
        elif "hash" in value:
            fault("hash_mismatch")
        seq = value.get("seq")
        # A seq is an integer from 0 to 2^53 - 1; any other value is a seq_gap, and
        # counting goes on from a seq only, otherwise from the expectation.
        counts = isinstance(seq, float) and seq.is_integer() and 0 <= seq <= MAX_SEQ
        if "seq" in value and (not counts or seq != expected_seq):
            fault("seq_gap")
        expected_seq = int(seq) + 1 if counts else expected_seq + 1
        p = value.get("prev")
        if "prev" in value and (not (isinstance(p, str) and HEX64.match(p)) or prev not in (None, p)):
            fault("prev_mismatch")  # unchecked when the record before has no readable hash
        if not_canonical:
            fault("not_canonical")
        prev = stored
    if tail:
        faults.append([len(lines), "torn_tail"])
    return {"count": len(lines), "head": prev if lines else ZEROS, "faults": faults}

if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(json.dumps(verify(name), separators=(",", ":")))
