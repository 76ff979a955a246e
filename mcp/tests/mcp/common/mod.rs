//! What the MCP tests share: finding the servers, short timeouts, a FIFO, a kill.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentloop_core::json::{parse, Value};
use agentloop_mcp::{McpError, McpOptions, McpServer};
use agentloop_tests::{have_program, skip_or_fail};

/// `python3`, or `None` after reporting the skip (a failure in CI).
pub fn python() -> Option<&'static str> {
    if have_program("python3") {
        Some("python3")
    } else {
        skip_or_fail("skipped: python3 is not installed (the fake MCP server is a Python script)");
        None
    }
}

/// Options for tests: a short shutdown grace, timeouts long enough for a slow machine.
pub fn options() -> McpOptions {
    McpOptions {
        shutdown_grace: Duration::from_millis(200),
        init_timeout: Duration::from_secs(60),
        call_timeout: Duration::from_secs(60),
        ..McpOptions::default()
    }
}

/// The fake server's script.
pub fn fake_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("servers")
        .join("fake_server.py")
}

/// Starts the fake server with `args`.
pub fn fake(python: &str, args: &[&str], options: &McpOptions) -> Result<McpServer, McpError> {
    let mut all = vec![fake_script().to_string_lossy().into_owned()];
    all.extend(args.iter().map(|a| String::from(*a)));
    McpServer::spawn(python, &all, options)
}

/// JSON text as a value.
pub fn json(text: &str) -> Value {
    parse(text.as_bytes()).unwrap()
}

/// A value as canonical JSON text.
pub fn text(value: &Value) -> String {
    String::from_utf8(agentloop_core::jcs::to_vec(value).unwrap()).unwrap()
}

/// Makes a FIFO (named pipe) at `path`.
pub fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Sends SIGKILL to `pid`, as a crash would.
pub fn kill(pid: u32) {
    let status = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -KILL {pid}");
}

/// Whether process `pid` exists, zombie or not (Linux: its `/proc` entry); a reaped
/// process has none. `None` where there is no `/proc`.
pub fn process_exists(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return None;
    }
    Some(proc.join(pid.to_string()).exists())
}

/// The process id written by a server into `file`.
pub fn read_pid(file: &Path) -> u32 {
    std::fs::read_to_string(file)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// A server process listening on loopback, killed and reaped when dropped.
pub struct Listening {
    child: std::process::Child,
    /// The port it printed.
    pub port: u16,
}

impl Listening {
    /// Starts `program` with `args` (and `env`), which prints the port it listens on
    /// as the first line of its stdout.
    pub fn start(program: &str, args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> Listening {
        use std::io::BufRead;
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{program} did not print a port: {line:?}")
        });
        Listening { child, port }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
