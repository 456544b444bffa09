//! The shipped evaluation scripts, played offline against the rules proposer.

use std::process::Command;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_rules_proposer_passes_the_shipped_spanish_evaluation(pool: sqlx::PgPool) {
    let mut files: Vec<_> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/eval"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
    files.sort();
    let mut scripts = Vec::new();
    for file in &files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        scripts.push((
            name.clone(),
            tendero::eval::parse_script(&name, &std::fs::read_to_string(file).unwrap()).unwrap(),
        ));
    }
    let shop = tendero::demo::load_shop(&pool, tendero::demo::DEMO_SHOP)
        .await
        .unwrap();
    let settings = tendero::config::Settings::for_tests("postgres://unused");
    let report = tendero::eval::run(
        &pool,
        shop.bot_id,
        &scripts,
        std::sync::Arc::new(tendero::agent::RulesProposer),
        tendero::startup::engine_settings(&settings),
    )
    .await
    .unwrap();
    println!("{}", report.render());
    assert!(report.turns >= 50, "{} turns", report.turns);
    assert_eq!(report.forbidden_executed, 0);
    assert!(report.correct_ratio() >= 0.9, "{}", report.render());
}

#[test]
fn tendero_eval_prints_the_scores_and_fails_below_the_threshold() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/eval");
    let script = format!("{fixtures}/compra-completa.jsonl");
    let run = |min: &str| {
        Command::new(env!("CARGO_BIN_EXE_tendero"))
            .env("TENDERO_SECRET_KEY", tendero::config::TEST_SECRET_KEY)
            .args(["eval", &script, "--min-correct", min])
            .env("RUST_LOG", "error")
            .output()
            .unwrap()
    };
    let ok = run("0.5");
    let printed = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(
        printed.contains("turns fully correct:")
            && printed.contains("forbidden actions executed: 0"),
        "{printed}"
    );
    assert!(printed.contains("p95"), "{printed}");
    let strict = run("1.01");
    assert!(!strict.status.success());
    assert!(String::from_utf8_lossy(&strict.stderr).contains("below the"));
}
