use std::net::TcpListener;

use agentloop_core::{demo, export};

use super::*;
use crate::file::entry;

#[test]
fn a_full_queue_drops_and_counts_and_the_end_waits_a_bounded_time() {
    // A collector that never answers: the listener's backlog accepts the connection,
    // nothing reads or replies.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let mut sender = Sender::start(SenderConfig {
        endpoint,
        headers: Vec::new(),
        timeout: Duration::from_secs(1),
        queue: 1,
        content: Content::Omitted,
    })
    .unwrap();
    let (bytes, _) = demo::recover().run().unwrap();
    let records = export::parse_records(&bytes).unwrap();
    for (index, record) in records.iter().enumerate() {
        sender.record(&entry(index, record).unwrap());
    }
    let summary = sender.finish();
    // 5 turns, 4 calls, 1 run: 10 spans, none sent, most dropped at once.
    assert_eq!(summary.sent, 0, "{summary}");
    assert!(summary.dropped >= 1, "{summary}");
    assert_eq!(summary.dropped + summary.unsent, 10, "{summary}");
    assert!(summary.to_string().contains("10 not sent"), "{summary}");
    drop(listener);
}

#[test]
fn endpoints_take_v1_traces_once_and_refuse_what_is_not_http() {
    assert_eq!(
        traces_url("http://localhost:4318").unwrap(),
        "http://localhost:4318/v1/traces"
    );
    assert_eq!(
        traces_url("https://c.example/otlp/").unwrap(),
        "https://c.example/otlp/v1/traces"
    );
    assert_eq!(
        traces_url("http://c:4318/v1/traces").unwrap(),
        "http://c:4318/v1/traces"
    );
    for bad in ["ftp://x", "http://", "localhost:4318", "http://x/?q=1"] {
        assert_eq!(
            traces_url(bad),
            Err(SenderError::Endpoint(bad.to_owned())),
            "{bad}"
        );
    }
}
