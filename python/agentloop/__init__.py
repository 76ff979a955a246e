"""agentloop: a budgeted agent tool-loop and its SHA-256 hash-chained JSONL transcript.

The transcript layer (verify, Chain, Writer, canonical, checkpoints, proofs, validate)
is the Rust core itself, through the native module ``agentloop._native``: the same bytes
and the same fault sentences as the ``agentloop`` CLI and ``libagentloop``.
"""

from agentloop._native import (
    Appended,
    Chain,
    CheckpointError,
    EncodeError,
    Error,
    Fault,
    LoopError,
    Outcome,
    ParseError,
    ProofError,
    Reply,
    Report,
    SchemaError,
    Violation,
    WriteError,
    Writer,
    canonical,
    check_proof,
    checkpoint,
    keygen,
    parse,
    prove_consistency,
    prove_inclusion,
    validate,
    verify,
)
from agentloop._loop import Agent, Message, Model, Scripted, run
from agentloop._tools import Tool, tool

__all__ = [
    "Agent",
    "Message",
    "Model",
    "Outcome",
    "Reply",
    "Scripted",
    "Tool",
    "run",
    "tool",
    "Appended",
    "Chain",
    "CheckpointError",
    "EncodeError",
    "Error",
    "Fault",
    "LoopError",
    "ParseError",
    "ProofError",
    "Report",
    "SchemaError",
    "Violation",
    "WriteError",
    "Writer",
    "canonical",
    "check_proof",
    "checkpoint",
    "keygen",
    "parse",
    "prove_consistency",
    "prove_inclusion",
    "validate",
    "verify",
]
