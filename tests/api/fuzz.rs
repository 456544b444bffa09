//! Bounded property runs over the untrusted inputs (the same targets the cargo-fuzz
//! harnesses in `fuzz/` explore without bound): webhook bodies and model output
//! never panic the parsers, and the HTTP edge answers garbage with a 4xx, never a
//! 5xx, storing nothing.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::Value;

fn fixtures(dir: &str) -> Vec<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(dir);
    let mut files: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    files.sort();
    files
}

/// A real payload with a few bytes overwritten, inserted or cut.
fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(seeds),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 0..8),
        any::<prop::sample::Index>(),
        any::<bool>(),
    )
        .prop_map(|(mut bytes, edits, cut, truncate)| {
            for (at, byte, how) in edits {
                if bytes.is_empty() {
                    break;
                }
                let i = at.index(bytes.len());
                match how {
                    0 => bytes[i] = byte,
                    1 => bytes.insert(i, byte),
                    _ => {
                        bytes.remove(i);
                    }
                }
            }
            if truncate && !bytes.is_empty() {
                bytes.truncate(cut.index(bytes.len()));
            }
            bytes
        })
}

/// A JSON value of any shape, as a platform or a model might send by mistake.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("message".to_string()),
                    Just("update_id".to_string()),
                    Just("entry".to_string()),
                    Just("changes".to_string()),
                    Just("value".to_string()),
                    Just("messages".to_string()),
                    Just("proposed_actions".to_string()),
                    Just("type".to_string()),
                    ".{0,6}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn telegram_parsing_never_panics(body in prop_oneof![
        mutated(fixtures("telegram")),
        json_value().prop_map(|v| v.to_string().into_bytes()),
        prop::collection::vec(any::<u8>(), 0..256),
    ]) {
        let _ = tendero::channels::telegram::parse_update(&body);
    }

    #[test]
    fn whatsapp_parsing_never_panics(body in prop_oneof![
        mutated(fixtures("whatsapp")),
        json_value().prop_map(|v| v.to_string().into_bytes()),
        prop::collection::vec(any::<u8>(), 0..256),
    ]) {
        let _ = tendero::channels::whatsapp::parse_payload(&body);
    }

    #[test]
    fn model_output_parsing_never_panics(content in prop_oneof![
        json_value().prop_map(|v| v.to_string()),
        ".{0,200}",
        json_value().prop_map(|v| format!("Claro:\n```json\n{v}\n```")),
    ]) {
        if let Ok(proposal) = tendero::shop::prompt::parse_proposal(&content) {
            // Whatever parses holds the contract.
            prop_assert!((1..=5).contains(&proposal.proposed_actions.len()));
            prop_assert!(proposal.response_text.chars().count() <= 500);
        }
        if let Ok(proposal) = tendero::finance::prompt::parse_finance_proposal(&content) {
            prop_assert!((1..=5).contains(&proposal.proposed_actions.len()));
            // Every parameter parses into a typed value or a rejectable one.
            let _ = proposal.actions();
        }
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn garbage_at_every_inbound_door_is_a_4xx_and_stores_nothing(pool: sqlx::PgPool) {
    let (app, _fake) = crate::channels::channel_app(pool, |_| {}).await;
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 60,
        ..ProptestConfig::default()
    });
    let bodies = prop_oneof![
        json_value().prop_map(|v| v.to_string().into_bytes()),
        prop::collection::vec(any::<u8>(), 0..200),
    ];
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for _ in 0..60 {
        cases.push(bodies.new_tree(&mut runner).unwrap().current());
    }
    for body in cases {
        for (path, headers) in [
            (
                "/webhooks/telegram/demo-shop",
                vec![(
                    "X-Telegram-Bot-Api-Secret-Token",
                    crate::channels::TG_SECRET.to_string(),
                )],
            ),
            (
                "/webhooks/whatsapp/demo-shop",
                vec![(
                    "X-Hub-Signature-256",
                    tendero::channels::whatsapp::sign(&body, crate::channels::WA_SECRET),
                )],
            ),
            ("/webchat/demo-shop/messages", vec![]),
        ] {
            let mut request = app
                .client
                .post(format!("{}{path}", app.base))
                .header("content-type", "application/json")
                .body(body.clone());
            for (name, value) in headers {
                request = request.header(name, value);
            }
            let status = request.send().await.unwrap().status();
            assert!(
                !status.is_server_error(),
                "{path} answered {status} to {:?}",
                String::from_utf8_lossy(&body)
            );
        }
    }
    // Random bytes and shapes are never messages a customer sent.
    let stored = app.count("SELECT count(*) FROM inbox").await;
    assert_eq!(stored, 0, "garbage was stored");
}
