//! The last test binary `cargo test --workspace` runs before the doc-tests (cargo runs
//! the packages' test binaries by package, then by name, and this one comes last):
//! prints the tests this run skipped, which `agentloop_tests::skip_or_fail` listed from
//! every test binary before it (tests/src/skips.rs).

#[test]
fn what_this_run_skipped() {
    agentloop_tests::say_the_skips_of_this_run();
}
