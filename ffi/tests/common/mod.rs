//! Helpers shared by the tests that call the exports (`ffi/empty_outputs.rs`,
//! `ffi/result_codes.rs`) and the tests that read the header (`header.rs`,
//! `ffi/empty_outputs.rs`, `ffi/result_codes.rs`). Each test binary (`ffi`, `header`)
//! uses a part of it; [`Dir`] serves `ffi/result_codes.rs` and `ffi/writer.rs`.
#![allow(dead_code)]

use core::ptr::{null, null_mut};
use std::path::PathBuf;

use agentloop::*;

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A size query: the result and the length written (`usize::MAX` if none was).
pub fn query(
    call: impl FnOnce(*mut u8, usize, *mut usize) -> agentloop_result,
) -> (agentloop_result, usize) {
    let mut len = usize::MAX;
    let r = call(null_mut(), 0, &mut len);
    (r, len)
}

/// An agent, freed on drop.
pub struct Agent(pub *mut agentloop_agent);

impl Drop for Agent {
    fn drop(&mut self) {
        // SAFETY: an agent from agentloop_agent_new (or NULL), freed once.
        unsafe { agentloop_agent_free(self.0) }
    }
}

/// An agent for task "t" with no tools, not polled yet.
pub fn new_agent() -> Agent {
    let mut out = null_mut();
    // SAFETY: valid inputs and out pointer.
    let r = unsafe { agentloop_agent_new(b"t".as_ptr(), 1, null(), 0, &mut out) };
    assert_eq!(r, agentloop_result::Ok);
    Agent(out)
}

/// An agent for task "t" with no tools, polled once (it waits for a model reply).
pub fn waiting_agent() -> Agent {
    let agent = new_agent();
    let mut need = 0;
    // SAFETY: a live agent and a valid out pointer.
    assert_eq!(
        unsafe { agentloop_agent_poll(agent.0, &mut need) },
        agentloop_result::Ok
    );
    assert_eq!(need, agentloop_need::ModelReply as u32);
    agent
}

/// One function the header declares.
pub struct Declared {
    /// Its name.
    pub name: String,
    /// What it returns (`agentloop_result`, `void`, `const char *`, …).
    pub returns: String,
    /// Its parameter list as written.
    pub params: String,
    /// Its doc comment, lines joined by spaces, `*` and `/` trimmed.
    pub comment: String,
}

/// Every function `header` declares, in order, with its doc comment.
pub fn declared_functions(header: &str) -> Vec<Declared> {
    let mut found = Vec::new();
    let mut comment = String::new();
    let mut lines = header.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("/**") {
            comment.clear();
        }
        if line.starts_with("/**") || line.starts_with(" *") {
            comment.push_str(line.trim_start_matches(['/', ' ', '*']));
            comment.push(' ');
            continue;
        }
        let is_decl = !line.starts_with([' ', '#', '/', '*', '}'])
            && !line.starts_with("typedef")
            && !line.starts_with("enum")
            && !line.starts_with("struct")
            && line.contains("agentloop_")
            && line.contains('(');
        if !is_decl {
            continue;
        }
        let mut text = String::from(line);
        while !text.trim_end().ends_with(';') {
            text.push(' ');
            text.push_str(lines.next().expect("a declaration ends in ';'").trim());
        }
        let open = text.find('(').unwrap();
        let head = &text[..open];
        let at = head.rfind([' ', '*']).map_or(0, |i| i + 1);
        let close = text.rfind(')').unwrap();
        found.push(Declared {
            name: head[at..].to_string(),
            returns: head[..at].trim().to_string(),
            params: text[open + 1..close].to_string(),
            comment: comment.clone(),
        });
    }
    found
}

/// A parameter list split into `(type, name)` pairs.
pub fn parameters(params: &str) -> Vec<(String, String)> {
    if params.trim() == "void" {
        return Vec::new();
    }
    params
        .split(',')
        .map(|p| {
            let p = p.trim();
            let at = p.rfind([' ', '*']).expect("a type and a name") + 1;
            (p[..at].trim().to_string(), p[at..].to_string())
        })
        .collect()
}

/// A scratch directory `agentloop-ffi-NAME-PID` under the system's temporary one,
/// removed on drop. Tests of one binary run in one process: each gives its own NAME.
pub struct Dir(pub PathBuf);

impl Dir {
    /// A fresh, empty directory (one left by an earlier run is removed first).
    pub fn new(name: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("agentloop-ffi-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    /// The path of `name` in the directory, and the same as a string for the C calls.
    pub fn path(&self, name: &str) -> (PathBuf, String) {
        let path = self.0.join(name);
        let text = path.to_str().unwrap().to_owned();
        (path, text)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
