//! What the HTTP model tests share: the test key, a conversation, models pointed at
//! a stand-in with recorded (never real) waits.

use std::sync::Once;
use std::time::Duration;

use agentloop_core::demo;
use agentloop_core::model::Message;
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_core::tools::ToolSpec;
use agentloop_http::{HttpConfig, HttpModel, RecordedSleep};
use agentloop_standin::Server;

/// The variable the tests' key is in, and the key: distinctive, so a leak is found by
/// a plain search.
pub const KEY_VARIABLE: &str = "AGENTLOOP_HTTP_TEST_KEY";
pub const KEY: &str = "sk-test-Zq7Vx2Lm9Rt4Wk8Pa3";
/// A variable no test sets.
pub const UNSET_VARIABLE: &str = "AGENTLOOP_HTTP_TEST_KEY_NEVER_SET";
/// A key as long as Anthropic's (164 characters), in its own variable.
pub const LONG_KEY_VARIABLE: &str = "AGENTLOOP_HTTP_TEST_LONG_KEY";
pub const LONG_KEY: &str = concat!(
    "sk-ant-api03-",
    "HvIimtLOIodwaNNJZK19ImMMBaPEGa5Us0IL57ghsuqzRnO6rcIMA7xSorQFhi",
    "66RuHka4KMXECbw1zfXKYzQ19Y4gqqLOLTxlMvsia8BOMD69UWrsw5ZGf03Juf",
    "hNiyckbKqaPd36SdOP9CAbarjQc",
);

/// Sets the key variables, once per test process (before any model reads them;
/// nothing in these tests reads the environment through libc while they are set).
pub fn set_key() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::env::set_var(KEY_VARIABLE, KEY);
        std::env::set_var(LONG_KEY_VARIABLE, LONG_KEY);
    });
}

/// Whether `text` holds 8 consecutive characters of `key`.
pub fn leaks(text: &str, key: &str) -> bool {
    key.as_bytes()
        .windows(8)
        .any(|run| text.contains(std::str::from_utf8(run).unwrap()))
}

pub fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// The task as the conversation's first message.
pub fn conversation() -> Vec<Message> {
    vec![Message::User {
        text: "add 2 and 40".into(),
    }]
}

/// The demo tools' manifest.
pub fn manifest() -> Vec<ToolSpec> {
    demo::toolbox().unwrap().manifest().specs().to_vec()
}

/// Options each provider accepts (Anthropic requires max_tokens).
pub fn options(provider: Provider) -> RequestOptions {
    let mut options = RequestOptions::new(match provider {
        Provider::OpenAi => "gpt-4.1",
        Provider::Anthropic => "claude-sonnet-4-20250514",
    });
    options.max_output_tokens = Some(1024);
    options
}

/// The default configuration with a short call timeout (nothing in the tests waits
/// for it unless a test means to).
pub fn config() -> HttpConfig {
    HttpConfig {
        call_timeout: Duration::from_secs(20),
        ..HttpConfig::default()
    }
}

/// A model for `provider` at the stand-in's `/v1`, the key from the test variable,
/// waits recorded.
pub fn model(
    provider: Provider,
    server: &Server,
    config: HttpConfig,
) -> (HttpModel, RecordedSleep) {
    set_key();
    let sleep = RecordedSleep::new();
    let model = HttpModel::with_config(
        provider,
        &format!("{}/v1", server.url()),
        options(provider),
        Some(KEY_VARIABLE),
        config,
    )
    .unwrap()
    .with_sleep(sleep.clone());
    (model, sleep)
}
