//! One typed record vocabulary (issue 30 item 5): the member names of the loop's record
//! payloads (SPEC section 4, docs/format.md) are spelled in one module of core,
//! `core/src/heap/vocabulary/` (`vocabulary::member` and the payload types' encodes and
//! decodes); everything else — core, the CLI, the FFI — takes them from there.
//!
//! The rule this test holds, over the non-test source of `json/src`, `schema/src`, `tlog/src`,
//! `core/src`, `cli/src` and `ffi/src` (a `tests` or `*_tests` folder, `tests.rs`, `*_tests.rs`, `tests_*.rs`, `testing.rs`
//! and what follows a `#[cfg(test)]` are test code; comments are not code):
//! - a **distinctive** name ([`DISTINCTIVE`]: `task`, `budgets`, `tool_calls`,
//!   `unrun_calls`, …), which only a record payload uses, is not a string literal
//!   anywhere outside the vocabulary module, but in the few places listed in
//!   [`OTHER_VOCABULARIES`], each of which speaks another format that happens to share
//!   the word (a provider's wire format, the CLI's progress events, the tools map);
//! - a **generic** name ([`GENERIC`]: `text`, `id`, `name`, `ok`, `value`, `error`, …)
//!   is also a member of provider bodies, MCP messages, JSON Schemas and the CLI's own
//!   outputs, so it is held only in the files that read or write record payloads
//!   ([`RECORD_FILES`]): there it is not a literal at all.
//!
//! A literal is a whole string literal, `"name"`; a sentence that mentions a member is
//! not one.

use std::fs;
use std::path::{Path, PathBuf};

use agentloop_tests::{is_test_file, rust_files};

/// Member names only a record payload uses.
const DISTINCTIVE: &[&str] = &[
    "task",
    "budgets",
    "max_steps",
    "max_tokens",
    "max_tool_calls",
    "max_total_tokens",
    "stop_sentinel",
    "tool_limits",
    "tool_calls",
    "tokens",
    "cached_input_tokens",
    "finish_reason",
    "input_tokens",
    "response_id",
    "reason",
    "steps",
    "unrun_calls",
    "after",
    "setup",
    "endpoint",
    "command_sha256",
    "request_sha256",
    "response_sha256",
];

/// Member names record payloads share with other formats.
const GENERIC: &[&str] = &[
    "text",
    "provider",
    "model",
    "id",
    "name",
    "arguments",
    "ok",
    "value",
    "error",
    "url",
];

/// The files that read or write record payloads, where no payload member name, generic
/// ones included, is a literal.
const RECORD_FILES: &[&str] = &[
    "core/src/heap/agent/follow.rs",
    "core/src/heap/agent/records.rs",
    "core/src/heap/agent/resume.rs",
    "core/src/heap/agent/steps.rs",
    "core/src/heap/audit/kinds.rs",
    "core/src/heap/audit/mod.rs",
    "core/src/heap/demo/claims.rs",
    "core/src/heap/driver/resumable.rs",
    "core/src/heap/driver/resume.rs",
    "core/src/heap/export/conversation.rs",
    "cli/src/record_line.rs",
    "cli/src/view/rows.rs",
    "cli/src/commands/run/setup.rs",
    "ffi/src/agent/resume.rs",
];

/// A distinctive name allowed as a literal in one file, because the file speaks
/// another format there: (file, name, which format).
const OTHER_VOCABULARIES: &[(&str, &str, &str)] = &[
    (
        "core/src/heap/provider/openai.rs",
        "tool_calls",
        "OpenAI's chat message",
    ),
    (
        "core/src/heap/provider/openai.rs",
        "finish_reason",
        "OpenAI's chat completion",
    ),
    (
        "core/src/heap/provider/anthropic.rs",
        "max_tokens",
        "Anthropic's request body",
    ),
    (
        "core/src/heap/provider/anthropic.rs",
        "input_tokens",
        "Anthropic's usage",
    ),
    (
        "cli/src/commands/run/progress/record.rs",
        "tokens",
        "the record event's token count (docs/cli.md)",
    ),
    (
        "cli/src/commands/run/progress/record.rs",
        "tool_calls",
        "the record event's tool-call count (docs/cli.md)",
    ),
    (
        "cli/src/commands/run/progress/mod.rs",
        "reason",
        "the end event's exit reason (docs/cli.md)",
    ),
    (
        "cli/src/tools_map.rs",
        "reason",
        "the tools map's skipped MCP tool",
    ),
];

/// The folder that spells the names.
const VOCABULARY: &str = "core/src/heap/vocabulary/";

/// The lines of a file's non-test code, numbered from 1, comments dropped: a
/// `#[cfg(test)]` item that opens a block ends the code (test modules come last in this
/// code base); one on a single line is left out.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut code = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((at, line)) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") || trimmed.starts_with("#[cfg(all(test") {
            match lines.next() {
                Some((_, item)) if item.trim_end().ends_with('{') => break,
                _ => continue,
            }
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let line = line.split(" // ").next().unwrap_or_default();
        code.push((at + 1, line.to_string()));
    }
    code
}

/// The breaches of the rule in one file's `text` (`relative` is its path from the
/// workspace root): `file:line: "name"`.
fn breaches(relative: &str, text: &str) -> Vec<String> {
    if relative.starts_with(VOCABULARY) || is_test_file(Path::new(relative)) {
        return Vec::new();
    }
    let record_file = RECORD_FILES.contains(&relative);
    let mut found = Vec::new();
    for (number, line) in code_lines(text) {
        for name in DISTINCTIVE
            .iter()
            .chain(GENERIC.iter().filter(|_| record_file))
        {
            let allowed = OTHER_VOCABULARIES
                .iter()
                .any(|(file, n, _)| *file == relative && n == name);
            if !allowed && line.contains(&format!("\"{name}\"")) {
                found.push(format!("{relative}:{number}: \"{name}\""));
            }
        }
    }
    found
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn payload_member_names_are_spelled_only_in_the_vocabulary() {
    let root = root();
    let files: Vec<PathBuf> = [
        "json/src",
        "schema/src",
        "tlog/src",
        "core/src",
        "cli/src",
        "ffi/src",
    ]
    .iter()
    .flat_map(|dir| rust_files(&root.join(dir)))
    .collect();
    let mut found = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap().to_string_lossy();
        let relative = relative.replace('\\', "/");
        found.extend(breaches(&relative, &fs::read_to_string(file).unwrap()));
    }
    assert!(
        found.is_empty(),
        "payload member names spelled outside {VOCABULARY} (take them from \
         vocabulary::member or read the payload through its type):\n{}",
        found.join("\n")
    );
    for file in RECORD_FILES {
        assert!(
            root.join(file).is_file(),
            "{file} is listed but is not there"
        );
    }
    for (file, _, _) in OTHER_VOCABULARIES {
        assert!(
            root.join(file).is_file(),
            "{file} is listed but is not there"
        );
    }
}

#[test]
fn the_scan_finds_a_literal_and_only_in_code() {
    let code = "let a = p.get(\"budgets\");\nlet b = p.get(\"text\");\n";
    assert_eq!(
        breaches("core/src/heap/export/history.rs", code),
        ["core/src/heap/export/history.rs:1: \"budgets\""]
    );
    assert_eq!(
        breaches("core/src/heap/audit/kinds.rs", code),
        [
            "core/src/heap/audit/kinds.rs:1: \"budgets\"",
            "core/src/heap/audit/kinds.rs:2: \"text\""
        ]
    );
    let elsewhere = "/// `{\"task\": text}`\nlet a = 1; // \"task\"\n#[cfg(test)]\nmod tests {\n    const T: &str = \"task\";\n}\n";
    assert!(breaches("cli/src/show.rs", elsewhere).is_empty());
    assert!(breaches("core/src/heap/vocabulary/member.rs", code).is_empty());
    assert!(breaches("core/src/heap/driver/testing.rs", code).is_empty());
    let other = "let r = (\"reason\", Value::from(s));\n";
    assert!(breaches("cli/src/tools_map.rs", other).is_empty());
    assert_eq!(breaches("cli/src/show.rs", other).len(), 1);
}
