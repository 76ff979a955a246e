//! Note keys from the command line: trusted verifier keys (`--key`, `--key-file`) and
//! the signer key file (`--sign-key`).

use std::path::{Path, PathBuf};

use agentloop_core::note::{
    key_lines, signer_key_text, KeyError, SignerKey, SignerTextError, VerifierKey,
};

use crate::failure::{AnchorFailure, Failure};
use crate::input::{size, ReadError, Source};

/// The longest key file read.
const KEY_FILE_LIMIT: u64 = 1 << 16;

fn read_key_file(path: &Path) -> Result<(String, String), Failure> {
    let source = Source::from_arg(path);
    let name = source.name();
    let bytes = source.read_bounded(KEY_FILE_LIMIT).map_err(|error| {
        Failure::Anchor(match error {
            ReadError::Io(reason) => AnchorFailure::KeyUnreadable {
                name: name.clone(),
                reason,
            },
            ReadError::TooLarge { limit } => AnchorFailure::KeyMalformed {
                name: name.clone(),
                line: None,
                error: format!("the key file is longer than the limit of {}", size(limit)),
            },
        })
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Failure::Anchor(AnchorFailure::KeyMalformed {
            name: name.clone(),
            line: None,
            error: String::from("the key file is not UTF-8"),
        })
    })?;
    Ok((name, text))
}

/// The trusted keys: each `--key` string, then every key in each `--key-file` (one a
/// line; blank lines and lines starting with `#` are skipped).
pub fn trusted(keys: &[String], files: &[PathBuf]) -> Result<Vec<VerifierKey>, Failure> {
    let mut out = Vec::new();
    for key in keys {
        out.push(
            key.parse()
                .map_err(|e| refused(String::from("--key"), None, e))?,
        );
    }
    for path in files {
        let (name, text) = read_key_file(path)?;
        for (number, line) in key_lines(&text) {
            out.push(
                line.parse()
                    .map_err(|e| refused(name.clone(), Some(number), e))?,
            );
        }
    }
    Ok(out)
}

/// The failure for a key `name` (at `line`) that did not parse: a key of the other kind
/// (signer for verifier, or the reverse) is said as such; anything else is not a note
/// key.
fn refused(name: String, line: Option<usize>, error: KeyError) -> Failure {
    if error.other_kind() {
        Failure::Anchor(AnchorFailure::KeyKind { name, line, error })
    } else {
        Failure::Anchor(AnchorFailure::KeyMalformed {
            name,
            line,
            error: format!("{error}"),
        })
    }
}

/// The signer key in `path`: its first line that is not blank or a comment.
pub fn signer(path: &Path) -> Result<SignerKey, Failure> {
    let (name, text) = read_key_file(path)?;
    signer_key_text(&text).map_err(|e| match e {
        SignerTextError::NoKey => Failure::Anchor(AnchorFailure::KeyMalformed {
            name,
            line: None,
            error: String::from("the file holds no key"),
        }),
        SignerTextError::Line { line, error } => refused(name, Some(line), error),
    })
}
