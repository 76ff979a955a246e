//! The files a run names: those it writes (`--out`, its tool map `FILE.tools.json`,
//! the MCP servers' log — `--mcp-log` or `FILE.mcp.log` — and `--checkpoint`) and those
//! it reads (`--task-file`, `--sign-key`); and the refusal, before anything starts, of
//! two of them that are one file while the run writes either. The durable writer
//! locks `--out` itself (no lock file), and temporary files are named after their
//! target and this process.

use std::fs::{self, Metadata};
use std::path::{Path, PathBuf};

use crate::args::RunArgs;
use crate::failure::{Failure, SetupFailure};
use crate::input::{same_file, Source};
use crate::tools_map::map_path;

/// `FILE.mcp.log`: where the MCP servers' stderr goes unless `--mcp-log` says.
pub fn mcp_log_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".mcp.log");
    PathBuf::from(name)
}

/// A file the run names: how a sentence names it, which file it is, whether the run
/// writes it (else it reads it).
struct Named {
    what: String,
    identity: Option<Identity>,
    written: bool,
}

/// Every file `args` names that the run will touch, those it writes first.
fn named(args: &RunArgs) -> Vec<Named> {
    let out = args.out.as_path();
    let shown = |path: &Path| path.display().to_string();
    let file = |what: String, path: &Path, written: bool| Named {
        what,
        identity: identity(Source::Path(path)),
        written,
    };
    let mut files = vec![file(format!("--out {}", shown(out)), out, true)];
    if !args.tools.mcp.is_empty() {
        let map = map_path(out);
        files.push(file(
            format!("{} (--out's tool map)", shown(&map)),
            &map,
            true,
        ));
        files.push(match &args.tools.mcp_log {
            Some(log) => file(format!("--mcp-log {}", shown(log)), log, true),
            None => {
                let log = mcp_log_path(out);
                let what = format!("{} (the MCP servers' log by default)", shown(&log));
                file(what, &log, true)
            }
        });
    }
    if let Some(checkpoint) = &args.checkpoint {
        files.push(file(
            format!("--checkpoint {}", shown(checkpoint)),
            checkpoint,
            true,
        ));
    }
    if let Some(task) = &args.task_file {
        let source = Source::from_arg(task);
        let what = match source {
            Source::Stdin => String::from("--task-file - (standard input)"),
            Source::Path(path) => format!("--task-file {}", shown(path)),
        };
        files.push(Named {
            what,
            identity: identity(source),
            written: false,
        });
    }
    if let Some(key) = &args.sign_key {
        files.push(file(format!("--sign-key {}", shown(key)), key, false));
    }
    files
}

/// Refuses two files of the run that are one file while the run writes either: the
/// servers' log appended to the transcript, a checkpoint renamed over the tool map or
/// the signer key. By identity, not by name (`t`, `./t`, a hard or symbolic link).
pub fn refuse_one_file_twice(args: &RunArgs) -> Result<(), Failure> {
    let files = named(args);
    for (at, first) in files.iter().enumerate() {
        for second in &files[at + 1..] {
            let same = match (&first.identity, &second.identity) {
                (Some(one), Some(other)) => one.is(other),
                _ => false,
            };
            if same && (first.written || second.written) {
                return Err(Failure::Setup(SetupFailure::OneFileTwice {
                    first: first.what.clone(),
                    second: second.what.clone(),
                    read: !second.written,
                }));
            }
        }
    }
    Ok(())
}

/// What makes a file the one it is.
enum Identity {
    /// A regular file that exists (its device and inode, on Unix).
    File(Metadata),
    /// A file yet to be created: its folder's canonical path and its name.
    Name(PathBuf),
}

impl Identity {
    fn is(&self, other: &Identity) -> bool {
        match (self, other) {
            (Identity::File(a), Identity::File(b)) => same_file(a, b),
            (Identity::Name(a), Identity::Name(b)) => a == b,
            _ => false,
        }
    }
}

/// How many symbolic links are followed to a file yet to be created (Linux's limit).
const MAX_LINKS: usize = 40;

/// The identity of `source`, or `None` when there is nothing to spoil or it cannot be
/// told: something that is not a regular file (`/dev/null`, a pipe), or a file that
/// cannot be looked at or created (the run then says so itself).
fn identity(source: Source) -> Option<Identity> {
    match source.metadata() {
        Ok(metadata) if metadata.is_file() => return Some(Identity::File(metadata)),
        Ok(_) => return None,
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return None,
        Err(_) => {}
    }
    let Source::Path(path) = source else {
        return None;
    };
    // Not there yet: where it will be created, through any dangling symbolic link.
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let Ok(target) = fs::read_link(&path) else {
            break;
        };
        path = match path.parent() {
            Some(folder) => folder.join(target),
            None => target,
        };
    }
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    Some(Identity::Name(
        fs::canonicalize(folder).ok()?.join(path.file_name()?),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_sits_next_to_the_transcript() {
        assert_eq!(
            mcp_log_path(Path::new("runs/t.jsonl")),
            PathBuf::from("runs/t.jsonl.mcp.log")
        );
    }

    #[test]
    fn a_file_is_known_by_identity_whatever_its_name() {
        let dir = std::env::temp_dir().join(format!("agentloop-outputs-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("sub")).unwrap();
        let at = |name: &str| identity(Source::Path(&dir.join(name))).unwrap();
        fs::write(dir.join("t"), b"x").unwrap();
        fs::hard_link(dir.join("t"), dir.join("hard")).unwrap();
        assert!(at("t").is(&at("hard")));
        assert!(at("t").is(&at("sub/../t")));
        assert!(!at("t").is(&at("u")));
        // Yet to be created: by folder and name, through links.
        assert!(at("u").is(&at("sub/../u")));
        assert!(!at("u").is(&at("sub/u")));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("t", dir.join("soft")).unwrap();
            assert!(at("t").is(&at("soft")));
            std::os::unix::fs::symlink("sub/v", dir.join("dangling")).unwrap();
            assert!(at("sub/v").is(&at("dangling")));
            std::os::unix::fs::symlink("sub", dir.join("folder")).unwrap();
            assert!(at("sub/w").is(&at("folder/w")));
        }
        // Nothing to spoil in a device.
        assert!(identity(Source::Path(Path::new("/dev/null"))).is_none());
        let _ = fs::remove_dir_all(&dir);
    }
}
