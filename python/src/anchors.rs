//! Checkpoints (make, sign), keys, and inclusion and consistency proofs (make, check):
//! core's `tlog` and `note`, as `agentloop checkpoint`, `prove` and `verify-proof` use
//! them.

use std::fs;
use std::path::{Path, PathBuf};

use agentloop_core::note::{signer_key_text, SignerKey};
use agentloop_core::tlog::{
    check_consistency, check_inclusion, make_checkpoint, prove, read_checkpoint, Against,
    CheckpointText, ProofRequest, ProofText,
};
use agentloop_core::verify::{self, Options, Report};
use pyo3::prelude::*;

use crate::errors::{CheckpointError, ProofError};
use crate::value::text_bytes;
use crate::verify::read_keys;

/// The signer key in `text` (a key file's text, or the key alone).
fn signer(text: Option<&str>) -> PyResult<Option<SignerKey>> {
    text.map(|t| signer_key_text(t).map_err(|e| CheckpointError::new_err(format!("key: {e}"))))
        .transpose()
}

/// A new signer key named `name` from 32 bytes of seed (e.g. `os.urandom(32)`), as the
/// text `agentloop keygen` prints: the secret key line, then the verifier key line.
#[pyfunction]
pub fn keygen(name: &str, seed: &[u8]) -> PyResult<String> {
    let seed: &[u8; 32] = seed.try_into().map_err(|_| {
        CheckpointError::new_err(format!("the seed must be 32 bytes, not {}", seed.len()))
    })?;
    let key = SignerKey::from_seed(name, seed)
        .map_err(|e| CheckpointError::new_err(format!("name: {e}")))?;
    Ok(format!("{}\n{}\n", key.to_secret_string(), key.verifier()))
}

/// Reads and verifies a transcript for a proof or a checkpoint, GIL released.
fn read_verified(py: Python<'_>, path: &Path) -> PyResult<(Vec<u8>, Report)> {
    let name = path.display().to_string();
    py.detach(|| {
        let bytes = fs::read(path).map_err(|e| format!("{name}: {e}"))?;
        let report = verify::verify_bytes(&bytes, &Options::default());
        Ok((bytes, report))
    })
    .map_err(|e: String| ProofError::new_err(e))
}

/// The C2SP checkpoint of every record of the transcript at `path`, signed with `key`
/// (a signer key's text) when one is given.
#[pyfunction]
#[pyo3(signature = (path, *, origin = None, key = None))]
pub fn checkpoint(
    py: Python<'_>,
    path: PathBuf,
    origin: Option<String>,
    key: Option<&str>,
) -> PyResult<String> {
    let signer = signer(key)?;
    let report =
        py.detach(|| verify::verify_file(&path, &Options::default(), &verify::Parallel::default()));
    make_checkpoint(&report, origin, signer.as_ref())
        .map_err(|e| CheckpointError::new_err(format!("{}: {e}", path.display())))
}

/// A proof of the transcript at `path`: inclusion of record `index`, or consistency
/// from its first `old` records; against `checkpoint` (text) or a fresh one.
fn proof(
    py: Python<'_>,
    path: PathBuf,
    request: ProofRequest,
    checkpoint: Option<&Bound<'_, PyAny>>,
    origin: Option<&str>,
    key: Option<&str>,
) -> PyResult<String> {
    let signer = signer(key)?;
    let given = checkpoint
        .map(|c| text_bytes(c, "checkpoint"))
        .transpose()?;
    let (bytes, report) = read_verified(py, &path)?;
    let against = match &given {
        Some(text) => Against::Given(text),
        None => Against::Fresh {
            origin,
            signer: signer.as_ref(),
        },
    };
    prove(&bytes, &report, request, against)
        .map_err(|e| ProofError::new_err(format!("{}: {e}", path.display())))
}

/// An inclusion proof of record `index` of the transcript at `path`.
#[pyfunction]
#[pyo3(signature = (path, index, *, checkpoint = None, origin = None, key = None))]
pub fn prove_inclusion(
    py: Python<'_>,
    path: PathBuf,
    index: u64,
    checkpoint: Option<&Bound<'_, PyAny>>,
    origin: Option<&str>,
    key: Option<&str>,
) -> PyResult<String> {
    let request = ProofRequest::Inclusion(index);
    proof(py, path, request, checkpoint, origin, key)
}

/// A consistency proof from the first `old` records of the transcript at `path`.
#[pyfunction]
#[pyo3(signature = (path, old, *, checkpoint = None, origin = None, key = None))]
pub fn prove_consistency(
    py: Python<'_>,
    path: PathBuf,
    old: u64,
    checkpoint: Option<&Bound<'_, PyAny>>,
    origin: Option<&str>,
    key: Option<&str>,
) -> PyResult<String> {
    let request = ProofRequest::Consistency(old);
    proof(py, path, request, checkpoint, origin, key)
}

/// Reads a checkpoint text that must have a Merkle root.
fn tlog_text(text: &[u8], name: &str) -> PyResult<CheckpointText> {
    read_checkpoint(text).map_err(|e| CheckpointError::new_err(format!("{name}: {e}")))
}

/// Checks a proof (its text): returns the sentence saying what holds, or raises
/// `ProofError` with every problem. A consistency proof needs `old`, the older
/// checkpoint's text.
#[pyfunction]
#[pyo3(signature = (proof, *, old = None, keys = Vec::new(), origin = None))]
pub fn check_proof(
    proof: &Bound<'_, PyAny>,
    old: Option<&Bound<'_, PyAny>>,
    keys: Vec<String>,
    origin: Option<&str>,
) -> PyResult<String> {
    let trusted = read_keys(&keys)?;
    let bytes = text_bytes(proof, "proof")?;
    let parsed = ProofText::parse(&bytes)
        .map_err(|e| ProofError::new_err(format!("the proof is malformed: {e}")))?;
    let outcome = match parsed {
        ProofText::Inclusion(p) => {
            let text = tlog_text(p.checkpoint.as_bytes(), "the proof's checkpoint")?;
            check_inclusion(&p, &text, &trusted, origin)
        }
        ProofText::Consistency(p) => {
            let old = old.ok_or_else(|| {
                ProofError::new_err(
                    "a consistency proof is checked against the older checkpoint you kept: give it as old=",
                )
            })?;
            let old = tlog_text(&text_bytes(old, "old")?, "old")?;
            let new = tlog_text(p.checkpoint.as_bytes(), "the proof's checkpoint")?;
            check_consistency(&p, "old", &old, &new, &trusted, origin)
        }
    };
    outcome.map_err(|problems| {
        let said: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {}", p.kind, p.detail))
            .collect();
        ProofError::new_err(format!("does not hold: {}", said.join("; ")))
    })
}
