//! Gives `libagentloop.so` its SONAME. The number follows the ABI policy in
//! `docs/c-api.md`: before 1.0 any breaking change of the C ABI bumps it.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os.ends_with("bsd") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libagentloop.so.2");
    }
}
