#!/usr/bin/env python3
"""The Python standard-library baseline for benches/verify_peers.sh (issue 7).

What a user would otherwise write to verify an agentloop transcript: per line
json.loads, take out "hash", json.dumps(sort_keys=True, separators=(",", ":"),
ensure_ascii=False) of the rest, hashlib.sha256 of it, and check the hash, that the
line is canonical ('{"hash":"...",' followed by that encoding), seq = index and prev =
the hash before. Not an RFC 8785 implementation (number formatting and key order differ
at the edges: floats outside [1e-6, 1e21), keys beyond the BMP) but exact on the
generated transcript, whose keys are ASCII and whose numbers are integers and k/1024.

usage: baseline_verify.py FILE  (exit 0 when every record holds)
"""
import hashlib
import json
import sys


def main(path):
    prev = "0" * 64
    seq = 0
    faults = 0
    with open(path, "rb") as f:
        for line in f:
            if line.endswith(b"\n"):
                line = line[:-1]
            try:
                record = json.loads(line)
                h = record.pop("hash")
                body = json.dumps(
                    record, sort_keys=True, separators=(",", ":"), ensure_ascii=False
                ).encode("utf-8")
                if line != b'{"hash":"' + h.encode("ascii") + b'",' + body[1:]:
                    raise ValueError("not canonical")
                if hashlib.sha256(body).hexdigest() != h:
                    raise ValueError("hash mismatch")
                if record.get("seq") != seq:
                    raise ValueError("seq is not %d" % seq)
                if record.get("prev") != prev:
                    raise ValueError("prev does not link")
                prev = h
            except (ValueError, KeyError, AttributeError, TypeError) as e:
                faults += 1
                print("%s: record %d: %s" % (path, seq, e), file=sys.stderr)
            seq += 1
    if faults:
        print("%s: %d faults in %d records" % (path, faults, seq))
        return 1
    print("%s: ok, %d records" % (path, seq))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
