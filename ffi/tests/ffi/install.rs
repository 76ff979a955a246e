//! `make install` (the top-level Makefile) installs libagentloop as a C library: into a
//! temporary prefix, staged under `DESTDIR` with another `LIBDIR`, and the static
//! library alone; each time a C program (and, in the prefix, a C++ one using
//! agentloop.hpp) is built with nothing but `pkg-config --cflags --libs agentloop`
//! (`--static` for the static library) and run, and `make uninstall` leaves no file of
//! ours behind.
//!
//! Installs the libraries cargo built for these tests (as `c_examples.rs` uses them);
//! `make` is told `CARGO=false`, so it can never start a build of its own. Needs `make`,
//! `pkg-config`, `cc` (and `c++`) and `readelf`: skipped with a message when one is missing, a
//! failure when `CI` is set.

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where cargo put the library this test binary was built with: the crate types of
/// this package land in `target/<profile>/deps` next to this binary (unhashed), and
/// `cargo build` copies them up to `target/<profile>`, which may be older. A library
/// older than the rlib the tests link is refused as stale.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("a directory").to_path_buf();
    let mut candidates = vec![deps.clone()];
    if let Some(profile_dir) = deps.parent() {
        candidates.push(profile_dir.to_path_buf());
    }
    let rlib_time = std::fs::metadata(deps.join("libagentloop.rlib"))
        .and_then(|m| m.modified())
        .ok();
    for dir in &candidates {
        let (a, so) = (dir.join("libagentloop.a"), dir.join("libagentloop.so"));
        let fresh = |p: &Path| match (rlib_time, std::fs::metadata(p).and_then(|m| m.modified())) {
            (Some(rlib), Ok(lib)) => lib + std::time::Duration::from_secs(60) >= rlib,
            (_, Err(_)) => false,
            (None, Ok(_)) => true,
        };
        if fresh(&a) && fresh(&so) {
            return dir.clone();
        }
    }
    panic!(
        "a fresh libagentloop.a / libagentloop.so was not found in {candidates:?}; \
         build them with `cargo build -p agentloop-ffi`"
    );
}

/// Whether every tool is there; reports a skip for the first missing one, or fails
/// when `CI` is set.
fn have_all(tools: &[&str]) -> bool {
    match tools
        .iter()
        .find(|tool| !agentloop_tests::have_program(tool))
    {
        Some(tool) => {
            agentloop_tests::skip_or_fail(&format!("{tool} is not installed"));
            false
        }
        None => true,
    }
}

fn run(command: &mut Command) -> Output {
    let shown = format!("{command:?}");
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"))
}

fn expect_status(output: &Output, code: i32, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A fresh scratch directory, removed with its contents on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("agentloop-install-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `make -f <root>/Makefile <args>` run in `cwd` (where a relative path would land),
/// installing the libraries in `lib`, with neither `PKG_CONFIG_PATH` nor
/// `LD_LIBRARY_PATH` set.
fn make(cwd: &Path, lib: &Path, args: &[String]) -> Output {
    make_under(cwd, lib, args, &[])
}

/// [`make`] with the variables `env` set.
fn make_under(cwd: &Path, lib: &Path, args: &[String], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new("make");
    cmd.arg("-f")
        .arg(root().join("Makefile"))
        .current_dir(cwd)
        .arg(format!("ARTIFACTS={}", lib.display()))
        .arg("CARGO=false")
        .args(args)
        .env_remove("PKG_CONFIG_PATH")
        .env_remove("LD_LIBRARY_PATH");
    for (key, value) in env {
        cmd.env(key, value);
    }
    run(&mut cmd)
}

/// The lines `make install` printed about where pkg-config and the loader look
/// (ffi/install-hint.sh), each trimmed.
fn hints(out: &Output) -> Vec<String> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut said = Vec::new();
    let mut after_hint = false;
    for line in stdout.lines() {
        if line.starts_with("make install: ") {
            after_hint = true;
        } else if !(after_hint && line.starts_with("  ")) {
            after_hint = false;
            continue;
        }
        said.push(line.trim().to_owned());
    }
    said
}

/// The SONAME `readelf -d` finds in `library`.
fn soname(library: &Path) -> String {
    let out = run(Command::new("readelf")
        .arg("-d")
        .arg(library)
        .env("LC_ALL", "C"));
    expect_status(&out, 0, "readelf -d");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("(SONAME)"))
        .unwrap_or_else(|| panic!("{} has no SONAME:\n{text}", library.display()));
    let start = line.find('[').expect("[") + 1;
    line[start..line.rfind(']').expect("]")].to_owned()
}

/// The libraries `readelf -d` finds `program` needs.
fn needed(program: &Path) -> Vec<String> {
    let out = run(Command::new("readelf")
        .arg("-d")
        .arg(program)
        .env("LC_ALL", "C"));
    expect_status(&out, 0, "readelf -d");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l[l.find('[')? + 1..l.rfind(']')?].to_owned()))
        .collect()
}

/// Everything under `dir` that is not a directory (files and symlinks), relative.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, found: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                walk(base, &path, found);
            } else {
                let relative = path.strip_prefix(base).unwrap();
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, dir, &mut found);
    found.sort();
    found
}

/// The shared library's file name under its full version: the SONAME, then the
/// package's MINOR.PATCH (from Cargo, not from the Makefile's reading of Cargo.toml).
fn real_name(soname: &str) -> String {
    format!(
        "{soname}.{}.{}",
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH")
    )
}

/// What `make install` puts under the prefix, `libdir` being LIBDIR relative to it,
/// sorted.
fn installed_files(soname: &str, libdir: &str) -> Vec<String> {
    let mut files = vec![
        "include/agentloop.h".to_owned(),
        "include/agentloop.hpp".to_owned(),
        format!("{libdir}/libagentloop.a"),
        format!("{libdir}/libagentloop.so"),
        format!("{libdir}/{soname}"),
        format!("{libdir}/{}", real_name(soname)),
        format!("{libdir}/pkgconfig/agentloop.pc"),
        format!("{libdir}/pkgconfig/agentloop-static.pc"),
    ];
    files.sort();
    files
}

/// ffi/`<name>`.in (agentloop.pc or agentloop-static.pc) as the installed copy must
/// read: prefix, libdir and includedir given (libdir and includedir relative to
/// `${prefix}`), the package's version.
fn expected_pc(name: &str, prefix: &str, libdir: &str) -> String {
    let template = std::fs::read_to_string(root().join("ffi").join(format!("{name}.in"))).unwrap();
    template
        .replace("@PREFIX@", prefix)
        .replace("@LIBDIR@", libdir)
        .replace("@INCLUDEDIR@", "${prefix}/include")
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"))
        .replace("@WHICH@", "Installed by `make install`.")
}

/// The C program: nothing but the header and one call into the library.
const PROGRAM: &str = r#"#include <agentloop.h>
#include <stdio.h>

int main(void) {
    printf("%s\n%s\n", agentloop_result_str(0), agentloop_result_str(1));
    return 0;
}
"#;

/// What the program must print: the library's own strings.
fn expected_output() -> String {
    let text = |code| {
        // SAFETY: the library returns a static NUL-terminated string for any value.
        unsafe { CStr::from_ptr(agentloop::agentloop_result_str(code)) }
            .to_str()
            .unwrap()
            .to_owned()
    };
    format!("{}\n{}\n", text(0), text(1))
}

/// The C++ program: nothing but the wrapper header, which canonicalizes a text and
/// catches the library's refusal of another as an `agentloop::error`.
const CPP_PROGRAM: &str = r#"#include <agentloop.hpp>
#include <cstdio>

int main() {
    std::string text = agentloop::json::canonicalize("{\"b\":1,\"a\":2.0}");
    try {
        agentloop::json::canonicalize("{");
    } catch (const agentloop::error &e) {
        std::printf("%s\n%u\n", text.c_str(), static_cast<unsigned>(e.code()));
        return 0;
    }
    return 1;
}
"#;

/// Compiles [`PROGRAM`] in `dir` with the flags `pkg-config <pkg_config_args>` (the
/// options and the package) gives and nothing else, under the environment `env`; returns the program's path.
fn build_with_pkg_config(dir: &Path, pkg_config_args: &str, env: &[(&str, &Path)]) -> PathBuf {
    build_with(dir, ("cc -std=c11", "app.c", PROGRAM), pkg_config_args, env)
}

/// Compiles `source` (its file name and text) in `dir` with `compiler` (a command and
/// its standard), the warning flags of the examples and the flags of `pkg-config
/// <pkg_config_args>`; returns the program's path.
fn build_with(
    dir: &Path,
    (compiler, name, text): (&str, &str, &str),
    pkg_config_args: &str,
    env: &[(&str, &Path)],
) -> PathBuf {
    let source = dir.join(name);
    std::fs::write(&source, text).unwrap();
    let program = dir.join(name.split('.').next().unwrap());
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "{compiler} -Wall -Wextra -Wpedantic -Werror {name} -o {} \
             $(pkg-config {pkg_config_args})",
            program.display()
        ))
        .current_dir(dir)
        .env_remove("PKG_CONFIG_LIBDIR")
        .env_remove("PKG_CONFIG_SYSROOT_DIR");
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = run(&mut cmd);
    expect_status(
        &out,
        0,
        &format!("{compiler} {name} $(pkg-config {pkg_config_args})"),
    );
    program
}

/// `pkg-config <args>` (the options and the package) under `env`, its output trimmed.
fn pkg_config(args: &[&str], env: &[(&str, &Path)]) -> String {
    let mut cmd = Command::new("pkg-config");
    cmd.args(args)
        .env_remove("PKG_CONFIG_LIBDIR")
        .env_remove("PKG_CONFIG_SYSROOT_DIR");
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = run(&mut cmd);
    expect_status(&out, 0, &format!("pkg-config {args:?}"));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// The static link line of c-examples/Makefile (which `c_examples.rs` holds to what
/// rustc prints for the staticlib).
fn native_static_libs() -> String {
    let makefile = std::fs::read_to_string(root().join("c-examples/Makefile")).unwrap();
    makefile
        .lines()
        .find_map(|l| l.strip_prefix("NATIVE_STATIC_LIBS = "))
        .expect("c-examples/Makefile sets NATIVE_STATIC_LIBS")
        .trim()
        .to_owned()
}

/// Checks the shared library installed in `libdir`: the file under its full version,
/// byte for byte the built one, carrying the SONAME `name`; the SONAME link to it; the
/// development link to the SONAME link.
fn check_shared(libdir: &Path, built: &Path, name: &str) {
    let real = real_name(name);
    let file = libdir.join(&real);
    let meta = std::fs::symlink_metadata(&file).unwrap();
    assert!(meta.is_file(), "{} is a regular file", file.display());
    assert!(
        std::fs::read(&file).unwrap() == std::fs::read(built).unwrap(),
        "{} is the built library",
        file.display()
    );
    assert_eq!(soname(&file), name);
    assert_eq!(
        std::fs::read_link(libdir.join(name)).unwrap(),
        Path::new(&real),
        "the SONAME link points at the file"
    );
    assert_eq!(
        std::fs::read_link(libdir.join("libagentloop.so")).unwrap(),
        Path::new(name),
        "the development link points at the SONAME link"
    );
}

/// `make install PREFIX=<tmp>`: the headers, the shared library with its SONAME link and
/// development link, the static library and agentloop.pc for that prefix, nothing else;
/// a program built with `pkg-config --cflags --libs agentloop` needs the SONAME and runs
/// with the prefix's lib/ on the loader's path (not without the SONAME link); `make
/// uninstall` removes every file.
#[test]
fn make_install_into_a_prefix_builds_and_runs_a_program_with_pkg_config() {
    if !have_all(&["make", "pkg-config", "cc", "c++", "readelf"]) {
        return;
    }
    let lib = lib_dir();
    let built = lib.join("libagentloop.so");
    let soname = soname(&built);
    assert!(
        soname
            .strip_prefix("libagentloop.so.")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        "the SONAME {soname} is libagentloop.so.<N>"
    );
    let scratch = Scratch::new("prefix");
    let prefix = scratch.0.join("prefix");
    let prefix_arg = format!("PREFIX={}", prefix.display());
    let out = make(&scratch.0, &lib, &["install".into(), prefix_arg.clone()]);
    expect_status(&out, 0, "make install");

    assert_eq!(files_under(&prefix), installed_files(&soname, "lib"));
    assert!(
        std::fs::read(prefix.join("include/agentloop.h")).unwrap()
            == std::fs::read(root().join("include/agentloop.h")).unwrap(),
        "the installed header is include/agentloop.h"
    );
    assert!(
        std::fs::read(prefix.join("lib/libagentloop.a")).unwrap()
            == std::fs::read(lib.join("libagentloop.a")).unwrap(),
        "the installed archive is the built one"
    );
    check_shared(&prefix.join("lib"), &built, &soname);
    for name in ["agentloop.pc", "agentloop-static.pc"] {
        let pc = std::fs::read_to_string(prefix.join("lib/pkgconfig").join(name)).unwrap();
        assert_eq!(
            pc,
            expected_pc(name, &prefix.display().to_string(), "${prefix}/lib")
        );
    }

    let pkgconfig_dir = prefix.join("lib/pkgconfig");
    let env = [("PKG_CONFIG_PATH", pkgconfig_dir.as_path())];
    assert_eq!(
        pkg_config(&["--cflags", "--libs", "agentloop"], &env),
        format!(
            "-I{} -L{} -lagentloop",
            prefix.join("include").display(),
            prefix.join("lib").display()
        )
    );
    let program = build_with_pkg_config(&scratch.0, "--cflags --libs agentloop", &env);
    assert!(
        needed(&program).contains(&soname),
        "the program needs {soname}: {:?}",
        needed(&program)
    );
    let out = run(Command::new(&program).env("LD_LIBRARY_PATH", prefix.join("lib")));
    expect_status(&out, 0, "the program linked with pkg-config --libs");
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected_output());
    // A C++ program finds agentloop.hpp beside agentloop.h by the same flags.
    assert!(
        std::fs::read(prefix.join("include/agentloop.hpp")).unwrap()
            == std::fs::read(root().join("include/agentloop.hpp")).unwrap(),
        "the installed C++ header is include/agentloop.hpp"
    );
    let cpp = build_with(
        &scratch.0,
        ("c++ -std=c++17", "app_cpp.cpp", CPP_PROGRAM),
        "--cflags --libs agentloop",
        &env,
    );
    let out = run(Command::new(&cpp).env("LD_LIBRARY_PATH", prefix.join("lib")));
    expect_status(&out, 0, "the C++ program linked with pkg-config --libs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "{{\"a\":2,\"b\":1}}\n{}\n",
            agentloop::agentloop_result::InvalidJson as u32
        )
    );
    // The loader looks for the SONAME link: without it the program does not start.
    let link = prefix.join("lib").join(&soname);
    std::fs::rename(&link, scratch.0.join("moved-link")).unwrap();
    let out = run(Command::new(&program).env("LD_LIBRARY_PATH", prefix.join("lib")));
    assert_ne!(out.status.code(), Some(0), "runs without {soname}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&soname),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(scratch.0.join("moved-link"), &link).unwrap();

    let out = make(&scratch.0, &lib, &["uninstall".into(), prefix_arg]);
    expect_status(&out, 0, "make uninstall");
    assert_eq!(files_under(&prefix), Vec::<String>::new());
}

/// `make install DESTDIR=<stage> PREFIX=/opt/… LIBDIR=/opt/…/lib64`, as a packager
/// stages it: every file under the stage, the paths in agentloop.pc without it; with
/// `PKG_CONFIG_SYSROOT_DIR` at the stage, a program builds and runs against the staged
/// copy; `make uninstall` with the same variables empties the stage.
#[test]
fn make_install_stages_under_destdir_with_another_libdir() {
    if !have_all(&["make", "pkg-config", "cc", "readelf"]) {
        return;
    }
    let lib = lib_dir();
    let built = lib.join("libagentloop.so");
    let soname = soname(&built);
    let scratch = Scratch::new("destdir");
    let stage = scratch.0.join("stage");
    let prefix = format!("/opt/agentloop-install-test-{}", std::process::id());
    let args = vec![
        format!("DESTDIR={}", stage.display()),
        format!("PREFIX={prefix}"),
        format!("LIBDIR={prefix}/lib64"),
    ];
    let out = make(
        &scratch.0,
        &lib,
        &[vec!["install".into()], args.clone()].concat(),
    );
    expect_status(&out, 0, "make install DESTDIR=…");
    assert!(!Path::new(&prefix).exists(), "{prefix} was written to");

    let staged = stage.join(prefix.trim_start_matches('/'));
    let under = prefix.trim_start_matches('/');
    let expected: Vec<String> = installed_files(&soname, "lib64")
        .iter()
        .map(|f| format!("{under}/{f}"))
        .collect();
    assert_eq!(files_under(&stage), expected);
    check_shared(&staged.join("lib64"), &built, &soname);
    for name in ["agentloop.pc", "agentloop-static.pc"] {
        let pc = std::fs::read_to_string(staged.join("lib64/pkgconfig").join(name)).unwrap();
        assert_eq!(pc, expected_pc(name, &prefix, "${prefix}/lib64"));
    }
    assert_eq!(
        hints(&out),
        Vec::<String>::new(),
        "a staged install says nothing of the loader or pkg-config"
    );

    let pkgconfig_dir = staged.join("lib64/pkgconfig");
    let env = [
        ("PKG_CONFIG_PATH", pkgconfig_dir.as_path()),
        ("PKG_CONFIG_SYSROOT_DIR", stage.as_path()),
    ];
    assert_eq!(
        pkg_config(&["--cflags", "--libs", "agentloop"], &env),
        format!(
            "-I{} -L{} -lagentloop",
            staged.join("include").display(),
            staged.join("lib64").display()
        )
    );
    let program = build_with_pkg_config(&scratch.0, "--cflags --libs agentloop", &env);
    let out = run(Command::new(&program).env("LD_LIBRARY_PATH", staged.join("lib64")));
    expect_status(&out, 0, "the program linked against the staged copy");
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected_output());

    let out = make(&scratch.0, &lib, &[vec!["uninstall".into()], args].concat());
    expect_status(&out, 0, "make uninstall DESTDIR=…");
    assert_eq!(files_under(&stage), Vec::<String>::new());
}

/// `make install-static`: the header, libagentloop.a and its two .pc files only; `pkg-config
/// --static --libs` gives the archive's link line (Libs.private, the native-static-libs
/// line); the program built with it needs no libagentloop at run time and runs with no
/// loader path. `make uninstall` removes the three files.
#[test]
fn make_install_static_links_a_program_with_pkg_config_static() {
    if !have_all(&["make", "pkg-config", "cc", "readelf"]) {
        return;
    }
    let lib = lib_dir();
    let scratch = Scratch::new("static");
    let prefix = scratch.0.join("prefix");
    let prefix_arg = format!("PREFIX={}", prefix.display());
    let out = make(
        &scratch.0,
        &lib,
        &["install-static".into(), prefix_arg.clone()],
    );
    expect_status(&out, 0, "make install-static");
    assert_eq!(
        files_under(&prefix),
        [
            "include/agentloop.h",
            "include/agentloop.hpp",
            "lib/libagentloop.a",
            "lib/pkgconfig/agentloop-static.pc",
            "lib/pkgconfig/agentloop.pc"
        ]
    );
    // A static library needs no loader path: only pkg-config's is said.
    let pkgconfig_dir = prefix.join("lib/pkgconfig");
    assert_eq!(
        hints(&out),
        [
            format!(
                "make install: pkg-config does not search {}; to build against this install:",
                pkgconfig_dir.display()
            ),
            format!(
                "export PKG_CONFIG_PATH={}${{PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}}",
                pkgconfig_dir.display()
            ),
        ]
    );

    let env = [("PKG_CONFIG_PATH", pkgconfig_dir.as_path())];
    assert_eq!(
        pkg_config(&["--static", "--libs", "agentloop"], &env),
        format!(
            "-L{} -lagentloop {}",
            prefix.join("lib").display(),
            native_static_libs()
        )
    );
    let program = build_with_pkg_config(&scratch.0, "--static --cflags --libs agentloop", &env);
    let needs = needed(&program);
    assert!(
        !needs.iter().any(|n| n.starts_with("libagentloop")),
        "linked statically, yet needs {needs:?}"
    );
    let out = run(Command::new(&program).env_remove("LD_LIBRARY_PATH"));
    expect_status(
        &out,
        0,
        "the program linked with pkg-config --static --libs",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected_output());

    let out = make(&scratch.0, &lib, &["uninstall".into(), prefix_arg]);
    expect_status(&out, 0, "make uninstall");
    assert_eq!(files_under(&prefix), Vec::<String>::new());
}

/// With both libraries installed (`make install`), `pkg-config --libs agentloop-static`
/// names the archive itself: the program needs no libagentloop at run time and runs with
/// no loader path. (`pkg-config --static --libs agentloop` gives `-lagentloop`, which the
/// linker takes as libagentloop.so when both are there.)
#[test]
fn agentloop_static_links_the_archive_when_the_shared_library_is_installed_too() {
    if !have_all(&["make", "pkg-config", "cc", "readelf"]) {
        return;
    }
    let lib = lib_dir();
    let scratch = Scratch::new("static-beside-shared");
    let prefix = scratch.0.join("prefix");
    let prefix_arg = format!("PREFIX={}", prefix.display());
    let out = make(&scratch.0, &lib, &["install".into(), prefix_arg.clone()]);
    expect_status(&out, 0, "make install");
    let pkgconfig_dir = prefix.join("lib/pkgconfig");
    let env = [("PKG_CONFIG_PATH", pkgconfig_dir.as_path())];
    assert_eq!(
        pkg_config(&["--libs", "agentloop-static"], &env),
        format!(
            "{} {}",
            prefix.join("lib/libagentloop.a").display(),
            native_static_libs()
        )
    );
    let program = build_with_pkg_config(&scratch.0, "--cflags --libs agentloop-static", &env);
    let needs = needed(&program);
    assert!(
        !needs.iter().any(|n| n.starts_with("libagentloop")),
        "linked with agentloop-static, yet needs {needs:?}"
    );
    let out = run(Command::new(&program).env_remove("LD_LIBRARY_PATH"));
    expect_status(&out, 0, "the program linked with agentloop-static");
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected_output());

    let out = make(&scratch.0, &lib, &["uninstall".into(), prefix_arg]);
    expect_status(&out, 0, "make uninstall");
    assert_eq!(files_under(&prefix), Vec::<String>::new());
}

/// `make install` to a prefix neither pkg-config nor the loader searches ends by saying
/// what to set, with the install's own paths; a shell that runs just the lines given
/// builds and runs a program, and so does a program linked with the rpath given. Where
/// both already look, nothing is said.
#[test]
fn make_install_says_what_to_set_for_a_prefix_nothing_searches() {
    if !have_all(&["make", "pkg-config", "cc", "readelf"]) {
        return;
    }
    let lib = lib_dir();
    let scratch = Scratch::new("hint");
    let prefix = scratch.0.join("prefix");
    let (libdir, pkgconfig_dir) = (prefix.join("lib"), prefix.join("lib/pkgconfig"));
    let prefix_arg = format!("PREFIX={}", prefix.display());
    let out = make(&scratch.0, &lib, &["install".into(), prefix_arg.clone()]);
    expect_status(&out, 0, "make install");
    let said = hints(&out);
    let (pc, lib_shown) = (pkgconfig_dir.display(), libdir.display());
    assert_eq!(
        said,
        [
            format!(
                "make install: pkg-config does not search {pc}; to build against this install:"
            ),
            format!("export PKG_CONFIG_PATH={pc}${{PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}}"),
            format!(
                "make install: the loader does not search {lib_shown}; to run programs linked \
                 with libagentloop.so:"
            ),
            format!("export LD_LIBRARY_PATH={lib_shown}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"),
            format!("(or link them with -Wl,-rpath,{lib_shown})"),
        ]
    );
    std::fs::write(scratch.0.join("app.c"), PROGRAM).unwrap();
    let exports: Vec<&str> = said
        .iter()
        .map(String::as_str)
        .filter(|l| l.starts_with("export "))
        .collect();
    let rpath = said[4]
        .trim_start_matches("(or link them with ")
        .trim_end_matches(')');
    for script in [
        format!(
            "{}\ncc -std=c11 app.c -o app $(pkg-config --cflags --libs agentloop) && ./app",
            exports.join("\n")
        ),
        format!(
            "{}\ncc -std=c11 app.c -o app $(pkg-config --cflags --libs agentloop) {rpath} && ./app",
            exports[0]
        ),
    ] {
        let out = run(Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(&scratch.0)
            .env_remove("PKG_CONFIG_PATH")
            .env_remove("PKG_CONFIG_LIBDIR")
            .env_remove("PKG_CONFIG_SYSROOT_DIR")
            .env_remove("LD_LIBRARY_PATH"));
        expect_status(&out, 0, &script);
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected_output());
    }
    let env = [
        ("PKG_CONFIG_PATH", pkgconfig_dir.as_path()),
        ("LD_LIBRARY_PATH", libdir.as_path()),
    ];
    let out = make_under(
        &scratch.0,
        &lib,
        &["install".into(), prefix_arg.clone()],
        &env,
    );
    expect_status(&out, 0, "make install where both look");
    assert_eq!(hints(&out), Vec::<String>::new());
    let out = make(&scratch.0, &lib, &["uninstall".into(), prefix_arg]);
    expect_status(&out, 0, "make uninstall");
}

/// c-examples/agentloop.pc and agentloop-static.pc are ffi/agentloop.pc.in and
/// ffi/agentloop-static.pc.in rendered for the source checkout, as `make pc-in-place`
/// writes them: one template each, two copies that cannot drift.
#[test]
fn the_in_place_pkg_config_files_are_the_templates_rendered() {
    if !have_all(&["make"]) {
        return;
    }
    let scratch = Scratch::new("in-place");
    let rendered = |name: &str| scratch.0.join(name);
    let out = run(Command::new("make")
        .arg("-C")
        .arg(root())
        .arg("pc-in-place")
        .arg(format!(
            "IN_PLACE_PC={}",
            rendered("agentloop.pc").display()
        ))
        .arg(format!(
            "IN_PLACE_STATIC_PC={}",
            rendered("agentloop-static.pc").display()
        )));
    expect_status(&out, 0, "make pc-in-place");
    for name in ["agentloop.pc", "agentloop-static.pc"] {
        let pc = std::fs::read_to_string(rendered(name)).unwrap();
        assert_eq!(
            pc,
            std::fs::read_to_string(root().join("c-examples").join(name)).unwrap(),
            "c-examples/{name} differs from ffi/{name}.in: run `make pc-in-place`"
        );
        for line in [
            "prefix=${pcfiledir}/..",
            "libdir=${prefix}/target/release",
            "includedir=${prefix}/include",
            &format!("Version: {}", env!("CARGO_PKG_VERSION")),
        ] {
            assert!(
                pc.lines().any(|l| l == line),
                "{name}: no line {line}:\n{pc}"
            );
        }
    }
}

/// Paths agentloop.pc could not use, or that the recipes would not quote, are refused
/// with the variable named, before anything is written.
#[test]
fn make_install_refuses_relative_and_unquotable_paths() {
    if !have_all(&["make"]) {
        return;
    }
    let lib = lib_dir();
    let scratch = Scratch::new("refused");
    let base = scratch.0.display().to_string();
    for (args, message) in [
        (
            vec!["PREFIX=relative/prefix".to_owned()],
            "PREFIX 'relative/prefix' is not an absolute path".to_owned(),
        ),
        (
            vec![format!("PREFIX={base}/p"), "LIBDIR=lib64".to_owned()],
            "LIBDIR 'lib64' is not an absolute path".to_owned(),
        ),
        (
            vec![format!("PREFIX={base}/a b")],
            format!("PREFIX '{base}/a b' holds a character other than"),
        ),
        (
            vec![format!("PREFIX={base}/p"), format!("DESTDIR={base}/x|y")],
            format!("DESTDIR '{base}/x|y' holds a character other than"),
        ),
    ] {
        for target in ["install", "uninstall"] {
            let out = make(
                &scratch.0,
                &lib,
                &[vec![target.to_owned()], args.clone()].concat(),
            );
            expect_status(&out, 2, &format!("make {target} {args:?}"));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(&message), "{args:?}: {stderr}");
        }
    }
    // Nothing written, neither here nor in the source tree.
    assert_eq!(files_under(&scratch.0), Vec::<String>::new());
    assert!(!root().join("relative").exists());
}

/// c-examples/Makefile copies the library under the SONAME it reads from it: the
/// dynamically linked example needs that name and runs.
#[test]
fn the_examples_makefile_installs_the_library_under_its_soname() {
    if !have_all(&["make", "cc", "readelf"]) {
        return;
    }
    let lib = lib_dir();
    let soname = soname(&lib.join("libagentloop.so"));
    let scratch = Scratch::new("examples");
    let program = scratch.0.join("append-dynamic");
    let out = run(Command::new("make")
        .arg("-C")
        .arg(root().join("c-examples"))
        .arg(format!("LIBDIR={}", lib.display()))
        .arg(format!("BUILD={}", scratch.0.display()))
        .arg(&program));
    expect_status(&out, 0, "make -C c-examples append-dynamic");
    assert!(
        std::fs::symlink_metadata(scratch.0.join("lib").join(&soname))
            .unwrap()
            .is_file()
    );
    assert_eq!(
        std::fs::read_link(scratch.0.join("lib/libagentloop.so")).unwrap(),
        Path::new(&soname)
    );
    assert!(needed(&program).contains(&soname));
    let out = run(Command::new(&program)
        .arg(scratch.0.join("spec.jsonl"))
        .env_remove("LD_LIBRARY_PATH"));
    expect_status(&out, 0, "append-dynamic");
}

/// `make -C c-examples` on a machine without libcurl's headers (`HAVE_LIBCURL=no` stands
/// for one) builds every other example, static and dynamic, and says it left provider.c
/// out; left to itself, the Makefile decides by whether `#include <curl/curl.h>` compiles.
#[test]
fn the_examples_makefile_leaves_provider_c_out_without_libcurl_and_says_so() {
    if !have_all(&["make", "cc", "c++", "readelf"]) {
        return;
    }
    let lib = lib_dir();
    let scratch = Scratch::new("no-libcurl");
    let make_examples = |args: &[&str]| {
        run(Command::new("make")
            .arg("-C")
            .arg(root().join("c-examples"))
            .arg(format!("LIBDIR={}", lib.display()))
            .arg(format!("BUILD={}", scratch.0.display()))
            .args(args))
    };
    let sentence = "provider.c skipped: libcurl's development files (curl/curl.h) were not found";
    let out = make_examples(&["HAVE_LIBCURL=no", "all"]);
    expect_status(&out, 0, "make -C c-examples HAVE_LIBCURL=no");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(sentence),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let programs: Vec<String> = files_under(&scratch.0)
        .into_iter()
        .filter(|f| f.ends_with("-static") || f.ends_with("-dynamic"))
        .collect();
    let mut expected: Vec<String> = [
        "append",
        "verify",
        "cpp_example",
        "loop",
        "stress",
        "proof",
        "at_most_once",
        "batch",
    ]
    .iter()
    .flat_map(|p| [format!("{p}-static"), format!("{p}-dynamic")])
    .collect();
    expected.sort();
    assert_eq!(programs, expected);

    let header_compiles = run(Command::new("sh").arg("-c").arg(
        "printf '#include <curl/curl.h>\\n' \
         | cc $(pkg-config --cflags libcurl 2>/dev/null) -E -x c - >/dev/null 2>&1",
    ))
    .status
    .success();
    let dry = make_examples(&["-n", "all"]);
    expect_status(&dry, 0, "make -n -C c-examples");
    let planned = String::from_utf8_lossy(&dry.stdout);
    assert_eq!(
        planned.contains(" provider.c "),
        header_compiles,
        "{planned}"
    );
    assert_eq!(planned.contains(sentence), !header_compiles, "{planned}");
}

/// The guide's "Build and link" section names the SONAME the library carries, and says
/// how to install.
#[test]
fn the_guide_names_the_soname_and_the_install_step() {
    if !have_all(&["readelf"]) {
        return;
    }
    let soname = soname(&lib_dir().join("libagentloop.so"));
    let guide = std::fs::read_to_string(root().join("docs/c-api.md")).unwrap();
    let start = guide.find("## Build and link").expect("the section");
    let section = &guide[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    for needle in [
        format!("SONAME `{soname}`"),
        "make install PREFIX=".to_owned(),
        "DESTDIR".to_owned(),
        "make uninstall".to_owned(),
        "pkg-config --static".to_owned(),
        "agentloop-static".to_owned(),
        "export PKG_CONFIG_PATH=".to_owned(),
        "export LD_LIBRARY_PATH=".to_owned(),
    ] {
        assert!(
            section.contains(&needle),
            "docs/c-api.md, Build and link: no {needle}"
        );
    }
}
