//! The schema, checked for sharding by bot (Citus, distributed by `bot_id`):
//! every table is either a reference table (`tendero::db::REFERENCE_TABLES`) or a
//! tenant table that carries `bot_id`; a tenant table's primary and unique keys
//! include it; a foreign key between tenant tables names it on both sides; no
//! reference table points into a tenant table; and the README's distribution DDL
//! names every table the way the schema does. Read from the migrated database, so
//! a new table or key is checked the day it lands.

use std::collections::BTreeSet;

use sqlx::PgPool;
use tendero::db::REFERENCE_TABLES;

async fn tables(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> '_sqlx_migrations'
         ORDER BY 1",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

fn is_reference(table: &str) -> bool {
    REFERENCE_TABLES.contains(&table)
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn every_tenant_table_is_ready_to_be_distributed_by_bot(pool: PgPool) {
    let tables = tables(&pool).await;
    for reference in REFERENCE_TABLES {
        assert!(
            tables.iter().any(|t| t == reference),
            "reference table {reference} does not exist"
        );
    }
    let mut problems = Vec::new();
    for table in tables.iter().filter(|t| !is_reference(t)) {
        let bot_column: Option<(String, bool)> = sqlx::query_as(
            "SELECT data_type::text, is_nullable = 'NO' FROM information_schema.columns
             WHERE table_schema = 'public' AND table_name = $1 AND column_name = 'bot_id'",
        )
        .bind(table)
        .fetch_optional(&pool)
        .await
        .unwrap();
        match bot_column {
            Some((kind, true)) if kind == "uuid" => {}
            other => problems.push(format!(
                "{table}: bot_id must be uuid NOT NULL, is {other:?}"
            )),
        }
        // Primary keys, unique constraints and unique indexes (expression ones too).
        let keys: Vec<(String, bool)> = sqlx::query_as(
            "SELECT i.indexrelid::regclass::text,
                    EXISTS (SELECT 1 FROM unnest(i.indkey) k
                            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k
                            WHERE a.attname = 'bot_id')
             FROM pg_index i WHERE i.indrelid = $1::regclass AND i.indisunique",
        )
        .bind(table)
        .fetch_all(&pool)
        .await
        .unwrap();
        assert!(
            keys.iter().any(|(name, _)| name.ends_with("_pkey")),
            "{table} has no primary key"
        );
        for (key, has_bot) in keys {
            if !has_bot {
                problems.push(format!("{table}: unique key {key} does not include bot_id"));
            }
        }
    }
    // Foreign keys: (child table, parent table, child columns, parent columns).
    let fks: Vec<(String, String, Vec<String>, Vec<String>)> = sqlx::query_as(
        "SELECT k.conrelid::regclass::text, k.confrelid::regclass::text,
                array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, o)
                      JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o),
                array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, o)
                      JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.o)
         FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace
         WHERE k.contype = 'f' AND n.nspname = 'public'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(fks.len() > 40, "the schema's foreign keys were not read");
    for (child, parent, child_cols, parent_cols) in fks {
        match (is_reference(&child), is_reference(&parent)) {
            (true, false) => problems.push(format!(
                "reference table {child} points into tenant table {parent}"
            )),
            (false, false) => {
                let paired = child_cols
                    .iter()
                    .zip(&parent_cols)
                    .any(|(c, p)| c == "bot_id" && p == "bot_id");
                if !paired {
                    problems.push(format!(
                        "{child}({}) -> {parent}({}) does not carry bot_id on both sides",
                        child_cols.join(", "),
                        parent_cols.join(", ")
                    ));
                }
            }
            _ => {}
        }
    }
    assert!(
        problems.is_empty(),
        "not ready to shard:\n{}",
        problems.join("\n")
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_readme_distributes_every_table_the_way_the_schema_does(pool: PgPool) {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let named = |call: &str| -> BTreeSet<String> {
        readme
            .match_indices(call)
            .filter_map(|(at, _)| {
                let rest = &readme[at + call.len()..];
                let rest = rest.strip_prefix("('")?;
                Some(rest[..rest.find('\'')?].to_owned())
            })
            .collect()
    };
    let distributed = named("create_distributed_table");
    let reference = named("create_reference_table");
    let tables = tables(&pool).await;
    let want_reference: BTreeSet<String> =
        tables.iter().filter(|t| is_reference(t)).cloned().collect();
    let want_distributed: BTreeSet<String> = tables
        .iter()
        .filter(|t| !is_reference(t))
        .cloned()
        .collect();
    assert_eq!(reference, want_reference, "README's reference tables");
    assert_eq!(distributed, want_distributed, "README's distributed tables");
}
