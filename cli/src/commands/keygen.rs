//! `agentloop keygen`: a new Ed25519 note key pair. The one use of randomness in
//! agentloop; the seed never reaches a transcript.

use std::io::Write;

use agentloop_core::note::SignerKey;

use super::emit;
use crate::args::KeygenArgs;
use crate::exit::Exit;
use crate::failure::{AnchorFailure, Failure};

/// Prints the signer key, then the verifier key, one a line.
pub fn run(args: &KeygenArgs, out: &mut dyn Write) -> Result<Exit, Failure> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| Failure::Anchor(AnchorFailure::Random(format!("{e}"))))?;
    let key = SignerKey::from_seed(&args.name, &seed).map_err(|e| {
        Failure::Anchor(AnchorFailure::KeyMalformed {
            name: String::from("NAME"),
            line: None,
            error: format!("{e}"),
        })
    })?;
    let text = format!("{}\n{}\n", key.to_secret_string(), key.verifier());
    emit(out, text.as_bytes())?;
    Ok(Exit::Held)
}
