"""Checkpoints (made, signed, judged), keys, and inclusion and consistency proofs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Tuple

import pytest

import agentloop
from conftest import REPO, run_cli

SAMPLE = REPO / "docs" / "sample.jsonl"


def keys(name: str = "tester") -> Tuple[str, str]:
    text = agentloop.keygen(name, bytes(range(32)))
    signer, verifier = text.splitlines()
    return signer, verifier


def test_keygen_is_the_cli_s_format_and_refuses_bad_seeds() -> None:
    signer, verifier = keys()
    assert signer.startswith("PRIVATE+KEY+tester+") and verifier.startswith("tester+")
    with pytest.raises(agentloop.CheckpointError, match="32 bytes, not 3"):
        agentloop.keygen("x", b"abc")


def test_a_signed_checkpoint_is_checked_against_the_trusted_keys(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    shutil.copy(SAMPLE, path)
    signer, verifier = keys()
    text = agentloop.checkpoint(path, key=signer)
    assert text.startswith("agentloop/transcript/")
    assert agentloop.verify(path, checkpoints=[text], keys=[verifier])
    other = agentloop.keygen("someone", bytes(32)).splitlines()[1]
    untrusted = agentloop.verify(path, checkpoints=[text], keys=[other])
    assert [f.kind for f in untrusted.faults] == ["checkpoint_untrusted"]
    with pytest.raises(agentloop.CheckpointError, match="no checkpoint"):
        agentloop.verify(path, keys=[verifier])
    with pytest.raises(agentloop.CheckpointError, match=r"keys\[0\]"):
        agentloop.verify(path, keys=["nonsense"])


def test_the_checkpoint_is_the_cli_s(cli: str, tmp_path: Path) -> None:
    done = run_cli(cli, ["checkpoint", str(SAMPLE)])
    assert done.returncode == 0, done.stderr.decode()
    assert agentloop.checkpoint(SAMPLE).encode() == done.stdout


def test_no_checkpoint_of_a_transcript_that_does_not_verify(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(SAMPLE.read_bytes()[:-1])
    with pytest.raises(agentloop.CheckpointError, match="does not verify"):
        agentloop.checkpoint(path)


def test_inclusion_and_consistency_proofs_hold_and_tampering_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    chain = agentloop.Chain()
    lines = [chain.append("note", {"i": i}) for i in range(7)]
    path.write_bytes(b"".join(lines[:4]))
    old = agentloop.checkpoint(path)
    path.write_bytes(b"".join(lines))
    proof = agentloop.prove_inclusion(path, 5)
    assert agentloop.check_proof(proof).startswith("record 5 (seq 5, hash ")
    consistency = agentloop.prove_consistency(path, 4)
    assert agentloop.check_proof(consistency, old=old)
    with pytest.raises(agentloop.ProofError, match="old="):
        agentloop.check_proof(consistency)
    with pytest.raises(agentloop.ProofError, match="does not hold"):
        agentloop.check_proof(proof.replace("\nindex 5\n", "\nindex 4\n"))
    with pytest.raises(agentloop.ProofError, match="malformed"):
        agentloop.check_proof("not a proof")
    with pytest.raises(agentloop.ProofError, match="cannot make that proof"):
        agentloop.prove_inclusion(path, 7)


def test_proofs_equal_the_cli_s(cli: str) -> None:
    done = run_cli(cli, ["prove", "--index", "1", str(SAMPLE)])
    assert done.returncode == 0, done.stderr.decode()
    assert agentloop.prove_inclusion(SAMPLE, 1).encode() == done.stdout
