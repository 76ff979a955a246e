//! The `agentloop-standin` binary: the URL on its first line, the script served, the
//! requests written to the directory, `--exit-when-done`, usage errors.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use agentloop_standin::{canned, read_requests, script};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("standin-bin-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn post(url: &str, target: &str, body: &str) -> String {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST {target} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn serves_a_script_file_records_the_requests_and_exits_when_done() {
    let dir = scratch("serve");
    let exchanges = [
        canned::anthropic::overloaded(),
        canned::anthropic::text("hi"),
    ];
    std::fs::write(dir.join("script.json"), script::to_json(&exchanges)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentloop-standin"))
        .args(["--exit-when-done", "--lifetime", "60"])
        .arg(dir.join("script.json"))
        .arg(dir.join("requests"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = url.trim_end();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let first = post(url, "/v1/messages", "{\"n\":1}");
    assert!(first.starts_with("HTTP/1.1 529 Overloaded\r\n"), "{first}");
    assert!(first.ends_with(&String::from_utf8(exchanges[0].body.clone()).unwrap()));
    let second = post(url, "/v1/messages", "{\"n\":2}");
    assert!(second.starts_with("HTTP/1.1 200 OK\r\n"), "{second}");

    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("2 requests received, 0 scripted exchanges left"),
        "{stderr}"
    );
    let requests = read_requests(&dir.join("requests")).unwrap();
    let bodies: Vec<&str> = requests.iter().map(|r| r.body_text().unwrap()).collect();
    assert_eq!(bodies, ["{\"n\":1}", "{\"n\":2}"]);
    assert_eq!(requests[1].target, "/v1/messages");
    assert!(requests[1]
        .header("host")
        .unwrap()
        .starts_with("127.0.0.1:"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_lifetime_that_ends_before_the_script_is_used_up_exits_1() {
    let dir = scratch("lifetime");
    std::fs::write(dir.join("script.json"), "[{\"body\": \"never asked\"}]").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_agentloop-standin"))
        .args(["--exit-when-done", "--lifetime", "1"])
        .arg(dir.join("script.json"))
        .arg(dir.join("requests"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("0 requests received, 1 scripted exchanges left"),
        "{stderr}"
    );
    assert!(stderr.contains("the lifetime ended before the script was used up"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_usage_and_a_bad_script_exit_2_saying_why() {
    let dir = scratch("usage");
    std::fs::write(dir.join("bad.json"), "[{\"status\": 42}]").unwrap();
    for (args, says) in [
        (vec![], "expected SCRIPT.json and REQUESTS_DIR, got 0 paths"),
        (
            vec!["--lifetime", "0", "a", "b"],
            "--lifetime \"0\" is not a positive integer",
        ),
        (vec!["--verbose", "a", "b"], "unknown option --verbose"),
        (vec!["missing.json", "r"], "cannot read missing.json"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_agentloop-standin"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
    let output = Command::new(env!("CARGO_BIN_EXE_agentloop-standin"))
        .args(["bad.json", "r"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("bad.json: exchange 0: status 42 is not from 100 to 999"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn help_prints_the_usage_and_what_it_does_and_exits_0() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["--lifetime", "5", "--help", "a", "b"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_agentloop-standin"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(
            stdout.starts_with(
                "usage: agentloop-standin [--exit-when-done] [--lifetime SECONDS] \
                 SCRIPT.json REQUESTS_DIR\n"
            ),
            "{args:?}: {stdout}"
        );
        for says in [
            "--exit-when-done",
            "--lifetime SECONDS",
            "REQUESTS_DIR",
            "Exit status",
        ] {
            assert!(stdout.contains(says), "{args:?}: no {says} in {stdout}");
        }
        assert!(output.stderr.is_empty(), "{args:?}");
    }
}
