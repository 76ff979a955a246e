//! Outside resources: the workspace, the public vectors, CI or not, programs on the PATH.

use std::path::{Path, PathBuf};

/// The workspace root (the parent of this package).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// The public test vectors folder: `$AGENTLOOP_VECTORS` if set (a relative path is taken
/// relative to the workspace root), else `../shared/vectors` relative to the workspace
/// root. Independent of the current directory, so it works whatever cwd cargo uses.
pub fn vectors_dir() -> PathBuf {
    match std::env::var_os("AGENTLOOP_VECTORS") {
        Some(v) if !v.is_empty() => {
            let p = PathBuf::from(v);
            if p.is_absolute() {
                p
            } else {
                workspace_root().join(p)
            }
        }
        _ => workspace_root().join("..").join("shared").join("vectors"),
    }
}

/// Whether the tests run in CI (`CI` set to anything but empty, `0` or `false`), where a
/// missing outside resource is a failure rather than a skip ([`crate::skip_or_fail`]).
pub fn in_ci() -> bool {
    match std::env::var("CI") {
        Ok(v) => !matches!(v.trim(), "" | "0" | "false" | "FALSE" | "False"),
        Err(_) => false,
    }
}

/// Whether `program` can be started (it answers `--version`).
pub fn have_program(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}
