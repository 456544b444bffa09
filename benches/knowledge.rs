//! Knowledge retrieval benchmark: 10,000 chunks across 100 shop bots, searched in
//! PostgreSQL the way a turn searches them (Spanish full text and trigrams fused
//! by rank, filtered by bot), and the whole bounded answer loop, against a
//! baseline measured in the same run: the bare indexed read of one bot's chunk
//! by key. Prints p50/p99 latency and each figure as a ratio of the baseline.
//!
//!     cargo bench --bench knowledge
//!
//! Environment: `DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/postgres;
//! a scratch database is created and dropped), `BENCH_QUERIES` (default 2000), `BENCH_KEEP` (keep the scratch database to look at),
//! `BENCH_BOTS` (default 100), `BENCH_CHUNKS` (default 10000).
//!
//! Defaults are what users run: no embeddings (the server may not offer them).
//! One extra row measures search with 256-dimension embeddings on every chunk,
//! and says so.

use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sqlx::PgPool;
use tendero::bots::NewBot;
use tendero::llm::CallContext;
use tendero::shop::knowledge::answer::{Ask, Library, answer};
use tendero::shop::knowledge::{self, Strictness, key_words};
use uuid::Uuid;

const TOPICS: &[(&str, &[&str])] = &[
    (
        "Horario",
        &[
            "abrimos",
            "lunes",
            "viernes",
            "sábados",
            "domingos",
            "feriados",
            "cerramos",
            "atendemos",
        ],
    ),
    (
        "Envíos",
        &[
            "envío",
            "delivery",
            "Sopocachi",
            "Miraflores",
            "Calacoto",
            "Achumani",
            "zona",
            "minutos",
            "costo",
        ],
    ),
    (
        "Pagos",
        &[
            "QR",
            "transferencia",
            "efectivo",
            "tarjeta",
            "banco",
            "comprobante",
            "cuenta",
            "depósito",
        ],
    ),
    (
        "Alérgenos",
        &[
            "gluten",
            "nueces",
            "lactosa",
            "vegano",
            "almendras",
            "huevo",
            "soya",
            "celíacos",
        ],
    ),
    (
        "Devoluciones",
        &[
            "devolución",
            "reclamo",
            "cambio",
            "reembolso",
            "producto",
            "horas",
            "foto",
            "garantía",
        ],
    ),
    (
        "Eventos",
        &[
            "reservas",
            "cumpleaños",
            "pedidos",
            "grandes",
            "anticipación",
            "mesas",
            "grupo",
            "torta",
        ],
    ),
];

const FILLER: &[&str] = &[
    "nuestro",
    "equipo",
    "siempre",
    "cliente",
    "pedido",
    "café",
    "local",
    "también",
    "puedes",
    "escribirnos",
    "antes",
    "después",
    "cada",
    "semana",
    "mes",
    "precio",
    "especial",
    "nuevo",
];

fn sentence(rng: &mut StdRng, words: &[&str]) -> String {
    let mut out: Vec<String> = Vec::new();
    for _ in 0..rng.random_range(8..16) {
        let word = if rng.random_bool(0.4) {
            words[rng.random_range(0..words.len())]
        } else {
            FILLER[rng.random_range(0..FILLER.len())]
        };
        out.push(word.to_owned());
    }
    if rng.random_bool(0.5) {
        out.push(format!("Bs {}", rng.random_range(5..60)));
    }
    let mut text = out.join(" ");
    text.push('.');
    text
}

/// An entry body of `paragraphs` paragraphs, each about one chunk.
fn body(rng: &mut StdRng, words: &[&str], paragraphs: usize) -> String {
    (0..paragraphs)
        .map(|_| {
            (0..rng.random_range(3..6))
                .map(|_| sentence(rng, words))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn quantile(latencies: &[Duration], q: f64) -> f64 {
    let mut sorted = latencies.to_vec();
    sorted.sort();
    sorted[((sorted.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Row {
    name: &'static str,
    latencies: Vec<Duration>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let queries = env_number("BENCH_QUERIES", 2000);
    let bots_wanted = env_number("BENCH_BOTS", 100);
    let chunks_wanted = env_number("BENCH_CHUNKS", 10_000);
    let base = PgPool::connect(&url).await?;
    let (pool, scratch) = tendero::db::create_scratch(&base, "tendero_bench_kn").await?;
    tendero::db::migrate(&pool).await?;
    let merchant = tendero::merchants::create(&pool, "bench", "Bench").await?;
    let mut rng = StdRng::seed_from_u64(21);

    // 100 bots, each with entries on every topic, until 10,000 chunks.
    let per_bot = chunks_wanted / bots_wanted;
    let mut bots = Vec::new();
    let started = Instant::now();
    for b in 0..bots_wanted {
        let slug = format!("tienda-{b}");
        let bot = tendero::bots::create(&pool, merchant, &NewBot::shop(&slug, &slug, "BOB"))
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        let mut chunks = 0;
        let mut tx = pool.begin().await?;
        let mut k = 0;
        while chunks < per_bot {
            let (title, words) = TOPICS[k % TOPICS.len()];
            let paragraphs = (per_bot - chunks).min(5);
            let text = body(&mut rng, words, paragraphs);
            let entry = knowledge::create(&mut tx, bot.id, &format!("{title} {k}"), &text).await?;
            chunks += knowledge::chunks(&entry.body).len();
            k += 1;
        }
        tx.commit().await?;
        bots.push(bot.id);
    }
    let total: i64 = sqlx::query_scalar("SELECT count(*) FROM knowledge_chunks")
        .fetch_one(&pool)
        .await?;
    sqlx::query("ANALYZE knowledge_chunks")
        .execute(&pool)
        .await?;
    println!(
        "knowledge retrieval: {total} chunks across {} bots (loaded in {:.1}s), {queries} questions",
        bots.len(),
        started.elapsed().as_secs_f64()
    );

    // Questions: a topic's words in a customer's order, some misspelt.
    let questions: Vec<(Uuid, String)> = (0..queries)
        .map(|_| {
            let bot = bots[rng.random_range(0..bots.len())];
            let (_, words) = TOPICS[rng.random_range(0..TOPICS.len())];
            let mut q: Vec<String> = (0..rng.random_range(2..4))
                .map(|_| words[rng.random_range(0..words.len())].to_lowercase())
                .collect();
            if rng.random_bool(0.3) {
                q[0].pop();
            }
            (bot, format!("¿{}?", q.join(" ")))
        })
        .collect();

    // Each bot's vocabulary, cached per configuration version as the shop keeps it.
    let catalog = tendero::shop::catalog::CatalogIndex::new(Vec::new());
    let mut libraries = std::collections::HashMap::new();
    for bot in &bots {
        libraries.insert(*bot, Library::load(&pool, *bot, &catalog).await?);
    }

    let mut rows = Vec::new();
    let mut baseline = Vec::with_capacity(queries);
    for (bot, _) in &questions {
        let t = Instant::now();
        let _: Option<String> = sqlx::query_scalar(
            "SELECT text FROM knowledge_chunks WHERE bot_id = $1 AND entry_id = (SELECT min(id) FROM knowledge_entries WHERE bot_id = $1) AND ord = 0",
        )
        .bind(bot)
        .fetch_optional(&pool)
        .await?;
        baseline.push(t.elapsed());
    }
    rows.push(Row {
        name: "baseline: one chunk by key",
        latencies: baseline,
    });
    for (name, strictness) in [
        ("search, every word (attempt 1)", Strictness::Every),
        ("search, any word (attempts 2-3)", Strictness::Any),
    ] {
        let mut latencies = Vec::with_capacity(queries);
        for (bot, question) in &questions {
            let words = key_words(question);
            let t = Instant::now();
            let near = libraries[bot].near(&words);
            knowledge::search(&pool, *bot, &words, &near, strictness, None, 5).await?;
            latencies.push(t.elapsed());
        }
        rows.push(Row { name, latencies });
    }

    let context = CallContext::default();
    let mut latencies = Vec::with_capacity(queries);
    let mut gray = 0;
    for (bot, question) in &questions {
        let ask = Ask {
            pool: &pool,
            bot_id: *bot,
            catalog: &catalog,
            library: &libraries[bot],
            question,
            products: Vec::new(),
            currency: "BOB",
            writer: None,
            embedder: None,
            context: &context,
        };
        let t = Instant::now();
        let answered = answer(&ask).await?;
        latencies.push(t.elapsed());
        gray += usize::from(answered.gray);
    }
    rows.push(Row {
        name: "answer loop (rules, extractive)",
        latencies,
    });

    // Not a default: every chunk with a 256-dimension embedding.
    sqlx::query(
        "UPDATE knowledge_chunks SET embedding =
             ARRAY(SELECT (random() - 0.5)::real FROM generate_series(1, 256) WHERE entry_id IS NOT NULL)",
    )
    .execute(&pool)
    .await?;
    let mut latencies = Vec::with_capacity(queries);
    for (bot, question) in &questions {
        let words = key_words(question);
        let vector: Vec<f32> = (0..256).map(|_| rng.random_range(-0.5..0.5)).collect();
        let t = Instant::now();
        let near = libraries[bot].near(&words);
        knowledge::search(
            &pool,
            *bot,
            &words,
            &near,
            Strictness::Any,
            Some(&vector),
            5,
        )
        .await?;
        latencies.push(t.elapsed());
    }
    rows.push(Row {
        name: "search with embeddings (NOT default: 256 dims)",
        latencies,
    });

    let base_p50 = quantile(&rows[0].latencies, 0.5);
    let base_p99 = quantile(&rows[0].latencies, 0.99);
    println!(
        "{:<48} {:>9} {:>9} {:>11} {:>11}",
        "", "p50 ms", "p99 ms", "p50 ratio", "p99 ratio"
    );
    for row in &rows {
        let (p50, p99) = (
            quantile(&row.latencies, 0.5),
            quantile(&row.latencies, 0.99),
        );
        println!(
            "{:<48} {:>9.3} {:>9.3} {:>10.1}x {:>10.1}x",
            row.name,
            p50,
            p99,
            p50 / base_p50,
            p99 / base_p99
        );
    }
    println!(
        "answers in the gray zone: {gray} of {queries} (random word salads; a real shop's are far fewer)"
    );
    if std::env::var("BENCH_KEEP").is_ok() {
        println!("kept the scratch database {scratch}");
    } else {
        tendero::db::drop_scratch(&base, pool, &scratch).await?;
    }
    Ok(())
}
