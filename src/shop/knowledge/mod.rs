//! What a shop knows beyond its catalog (seeds 003 and 004): the entries a
//! merchant writes (`knowledge_entries`), cut into chunks (`knowledge_chunks`)
//! that PostgreSQL finds by Spanish full text and by trigrams — and by embeddings
//! when the configured server offers them — fused by reciprocal rank; no vector
//! database to run. `answer` reads a customer's question against them with
//! bounded loops and an honest gray zone; `cache` keeps the day's answers.

pub mod answer;
pub mod cache;
pub mod model;
pub mod route;
mod words;

use crate::shop::memo::AskedBefore;
use serde::Serialize;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

pub use words::{Question, key_words};

/// Longest entry body, in characters: a page of text.
pub const MAX_BODY_CHARS: usize = 20_000;
/// Longest title.
pub const MAX_TITLE_CHARS: usize = 200;
/// Chunks are cut near this many characters, at paragraph or sentence ends.
const CHUNK_CHARS: usize = 500;

/// An entry as the merchant wrote it.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Entry {
    pub id: i64,
    pub title: String,
    pub body: String,
    #[schema(value_type = String)]
    pub created_at: chrono::DateTime<chrono::Utc>,
    #[schema(value_type = String)]
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

/// What is wrong with an entry as written, if anything.
pub fn check(title: Option<&str>, body: Option<&str>) -> Result<(), &'static str> {
    if title.is_some_and(|t| t.trim().is_empty() || t.chars().count() > MAX_TITLE_CHARS) {
        return Err("title must be 1-200 characters");
    }
    if body.is_some_and(|b| b.trim().is_empty() || b.chars().count() > MAX_BODY_CHARS) {
        return Err("body must be 1-20000 characters");
    }
    Ok(())
}

const COLUMNS: &str = "id, title, body, created_at, updated_at";

pub async fn list(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<Vec<Entry>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM knowledge_entries WHERE bot_id = $1 ORDER BY id"
    )))
    .bind(bot_id)
    .fetch_all(db)
    .await
}

pub async fn get(db: impl PgExecutor<'_>, bot_id: Uuid, id: i64) -> sqlx::Result<Option<Entry>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM knowledge_entries WHERE bot_id = $1 AND id = $2"
    )))
    .bind(bot_id)
    .bind(id)
    .fetch_optional(db)
    .await
}

/// Creates an entry and its chunks (the caller's transaction keeps them together).
pub async fn create(
    conn: &mut PgConnection,
    bot_id: Uuid,
    title: &str,
    body: &str,
) -> sqlx::Result<Entry> {
    let entry: Entry = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO knowledge_entries (bot_id, title, body) VALUES ($1, $2, $3) RETURNING {COLUMNS}"
    )))
    .bind(bot_id)
    .bind(title.trim())
    .bind(body.trim())
    .fetch_one(&mut *conn)
    .await?;
    write_chunks(conn, bot_id, &entry).await?;
    Ok(entry)
}

/// Changes an entry (absent parts stay) and cuts its chunks again; `None` when the
/// bot has no such entry.
pub async fn update(
    conn: &mut PgConnection,
    bot_id: Uuid,
    id: i64,
    title: Option<&str>,
    body: Option<&str>,
) -> sqlx::Result<Option<Entry>> {
    let entry: Option<Entry> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE knowledge_entries SET title = coalesce($3, title), body = coalesce($4, body),
                updated_at = now()
         WHERE bot_id = $1 AND id = $2 RETURNING {COLUMNS}"
    )))
    .bind(bot_id)
    .bind(id)
    .bind(title.map(str::trim))
    .bind(body.map(str::trim))
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(entry) = &entry {
        write_chunks(conn, bot_id, entry).await?;
    }
    Ok(entry)
}

/// Deletes an entry (its chunks go with it); false when there was none.
pub async fn delete(db: impl PgExecutor<'_>, bot_id: Uuid, id: i64) -> sqlx::Result<bool> {
    let done = sqlx::query("DELETE FROM knowledge_entries WHERE bot_id = $1 AND id = $2")
        .bind(bot_id)
        .bind(id)
        .execute(db)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Replaces an entry's chunks with the cut of its current text.
async fn write_chunks(conn: &mut PgConnection, bot_id: Uuid, entry: &Entry) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM knowledge_chunks WHERE bot_id = $1 AND entry_id = $2")
        .bind(bot_id)
        .bind(entry.id)
        .execute(&mut *conn)
        .await?;
    let texts = chunks(&entry.body);
    let folded: Vec<String> = texts
        .iter()
        .map(|t| crate::text::normalize(&format!("{}. {t}", entry.title)))
        .collect();
    let title = crate::text::normalize(&entry.title);
    let ords: Vec<i32> = (0..texts.len() as i32).collect();
    sqlx::query(
        "INSERT INTO knowledge_chunks (bot_id, entry_id, ord, text, folded, tsv)
         SELECT $1, $2, c.ord, c.text, c.folded,
                setweight(to_tsvector('spanish', $6), 'A') || setweight(to_tsvector('spanish', c.folded), 'B')
         FROM unnest($3::int[], $4::text[], $5::text[]) AS c(ord, text, folded)",
    )
    .bind(bot_id)
    .bind(entry.id)
    .bind(ords)
    .bind(texts)
    .bind(&folded)
    .bind(title)
    .execute(&mut *conn)
    .await?;
    // Each chunk's distinct words, for trigram lookups and the vocabulary.
    let (mut term_ords, mut terms) = (Vec::new(), Vec::new());
    for (ord, text) in folded.iter().enumerate() {
        let mut seen = std::collections::BTreeSet::new();
        for word in crate::text::tokens(text) {
            if seen.insert(word) {
                term_ords.push(ord as i32);
                terms.push(word.to_owned());
            }
        }
    }
    sqlx::query(
        "INSERT INTO knowledge_terms (bot_id, entry_id, ord, term)
         SELECT $1, $2, t.ord, t.term FROM unnest($3::int[], $4::text[]) AS t(ord, term)",
    )
    .bind(bot_id)
    .bind(entry.id)
    .bind(term_ords)
    .bind(terms)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// A chunk waiting for its embedding.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Unembedded {
    pub bot_id: Uuid,
    pub entry_id: i64,
    pub ord: i32,
    pub text: String,
}

/// Up to `limit` chunks without an embedding (new, or rewritten by an edit),
/// oldest bot first.
pub async fn unembedded(db: impl PgExecutor<'_>, limit: i64) -> sqlx::Result<Vec<Unembedded>> {
    sqlx::query_as(
        "SELECT c.bot_id, c.entry_id, c.ord, e.title || '. ' || c.text AS text
         FROM knowledge_chunks c
         JOIN knowledge_entries e ON e.bot_id = c.bot_id AND e.id = c.entry_id
         WHERE c.embedding IS NULL
         ORDER BY c.bot_id, c.entry_id, c.ord
         LIMIT $1",
    )
    .bind(limit)
    .fetch_all(db)
    .await
}

/// Stores `vectors` beside `chunks`, in order. A chunk rewritten meanwhile (its
/// text changed) keeps waiting: the stored text must still be the one embedded.
pub async fn store_embeddings(
    db: impl PgExecutor<'_>,
    chunks: &[Unembedded],
    vectors: &[Vec<f32>],
) -> sqlx::Result<u64> {
    let bots: Vec<Uuid> = chunks.iter().map(|c| c.bot_id).collect();
    let entries: Vec<i64> = chunks.iter().map(|c| c.entry_id).collect();
    let ords: Vec<i32> = chunks.iter().map(|c| c.ord).collect();
    let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
    // The vectors travel as one JSON array (SQL arrays of arrays must be
    // rectangular; embeddings of one model are, but JSON keeps it simple).
    let json = serde_json::to_value(vectors).expect("floats serialize");
    let done = sqlx::query(
        "UPDATE knowledge_chunks c
         SET embedding = ARRAY(SELECT jsonb_array_elements_text($5::jsonb -> (v.n - 1)::int)::real)
         FROM unnest($1::uuid[], $2::bigint[], $3::int[], $4::text[]) WITH ORDINALITY AS v(bot_id, entry_id, ord, text, n),
              knowledge_entries e
         WHERE c.bot_id = v.bot_id AND c.entry_id = v.entry_id AND c.ord = v.ord
           AND e.bot_id = c.bot_id AND e.id = c.entry_id
           AND e.title || '. ' || c.text = v.text
           AND c.embedding IS NULL",
    )
    .bind(bots)
    .bind(entries)
    .bind(ords)
    .bind(texts)
    .bind(json)
    .execute(db)
    .await?;
    Ok(done.rows_affected())
}

/// Embeds up to `limit` waiting chunks with `model`; returns how many were
/// stored (0 when the server offers no embeddings).
pub async fn embed_waiting(
    pool: &sqlx::PgPool,
    model: &model::Model,
    limit: i64,
) -> sqlx::Result<u64> {
    let waiting = unembedded(pool, limit).await?;
    let mut stored = 0;
    // One request per bot, so each bot's budget pays for its own.
    for chunk_of_bot in waiting.chunk_by(|a, b| a.bot_id == b.bot_id) {
        let texts: Vec<String> = chunk_of_bot.iter().map(|c| c.text.clone()).collect();
        let Some(vectors) = model.embed(chunk_of_bot[0].bot_id, &texts).await else {
            break;
        };
        stored += store_embeddings(pool, chunk_of_bot, &vectors).await?;
    }
    Ok(stored)
}

/// The chunks of `body`: paragraphs packed up to about `CHUNK_CHARS`, a long
/// paragraph cut at sentence ends. Nothing is dropped.
pub fn chunks(body: &str) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    for paragraph in body.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        if paragraph.chars().count() <= CHUNK_CHARS {
            pieces.push(paragraph.to_owned());
            continue;
        }
        let mut current = String::new();
        for sentence in sentences(paragraph) {
            if !current.is_empty()
                && current.chars().count() + sentence.chars().count() > CHUNK_CHARS
            {
                pieces.push(std::mem::take(&mut current));
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(sentence);
        }
        if !current.is_empty() {
            pieces.push(current);
        }
    }
    // Short neighbours travel together, so a heading stays with what follows it.
    let mut out: Vec<String> = Vec::new();
    for piece in pieces {
        match out.last_mut() {
            Some(last) if last.chars().count() + piece.chars().count() < CHUNK_CHARS / 2 => {
                last.push_str("\n\n");
                last.push_str(&piece);
            }
            _ => out.push(piece),
        }
    }
    out
}

/// A text's sentences (and list lines), trimmed, as written.
/// Abbreviations a merchant writes with a period inside a sentence.
const ABBREVIATIONS: &[&str] = &[
    "av", "avda", "dr", "dra", "sr", "sra", "srta", "nro", "num", "ej", "aprox", "tel", "cel",
    "lic", "ing", "prof", "esq", "pag", "ud", "uds", "vs", "st",
];

pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut start = 0;
        let bytes: Vec<(usize, char)> = line.char_indices().collect();
        for (k, (i, c)) in bytes.iter().enumerate() {
            let next_is_space = bytes.get(k + 1).is_none_or(|(_, n)| n.is_whitespace());
            // «Av. 6 de Agosto», «Sra. Pérez»: an abbreviation's period ends
            // no sentence.
            let word_before = line[start..*i]
                .rsplit(|c: char| !c.is_alphabetic())
                .next()
                .unwrap_or("");
            let abbreviation =
                *c == '.' && ABBREVIATIONS.contains(&word_before.to_lowercase().as_str());
            if matches!(c, '.' | '!' | '?') && next_is_space && !abbreviation {
                let end = i + c.len_utf8();
                let sentence = line[start..end].trim();
                if !sentence.is_empty() {
                    out.push(sentence);
                }
                start = end;
            }
        }
        let rest = line[start..].trim();
        if !rest.is_empty() {
            out.push(rest);
        }
    }
    out
}

/// A chunk found for a question.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct Hit {
    pub entry_id: i64,
    pub title: String,
    pub ord: i32,
    pub text: String,
    /// Reciprocal-rank fusion of the rankings that found it.
    pub score: f64,
}

/// How strictly a search reads the question's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// Full text needs every key word.
    Every,
    /// Full text needs any of them.
    Any,
}

/// The bot's chunks best fitting `words` (folded key words), by reciprocal-rank
/// fusion of three rankings: Spanish full text, trigram closeness (`near`: the
/// bot's words closest to the question's, with their trigram similarity, as
/// `answer::Library::near` finds them) and, with `embedding`, vector similarity.
pub async fn search(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    words: &[String],
    near: &[(String, f32)],
    strictness: Strictness,
    embedding: Option<&[f32]>,
    limit: i64,
) -> sqlx::Result<Vec<Hit>> {
    let clean: Vec<String> = words
        .iter()
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if clean.is_empty() {
        return Ok(Vec::new());
    }
    let joiner = match strictness {
        Strictness::Every => " & ",
        Strictness::Any => " | ",
    };
    let tsquery = clean.join(joiner);
    sqlx::query_as(
        "WITH q AS (SELECT to_tsquery('spanish', $2) AS q),
         fts AS (
             SELECT c.entry_id, c.ord,
                    row_number() OVER (ORDER BY ts_rank_cd(c.tsv, q.q) DESC, c.entry_id, c.ord) AS r
             FROM knowledge_chunks c, q
             WHERE c.bot_id = $1 AND c.tsv @@ q.q
             ORDER BY r LIMIT 20
         ),
         tri AS (
             SELECT entry_id, ord, row_number() OVER (ORDER BY s DESC, entry_id, ord) AS r FROM (
                 SELECT t.entry_id, t.ord, sum(n.s) AS s
                 FROM unnest($3::text[], $6::real[]) AS n(term, s)
                 JOIN knowledge_terms t ON t.bot_id = $1 AND t.term = n.term
                 GROUP BY t.entry_id, t.ord
             ) scored
             ORDER BY r LIMIT 20
         ),
         vec AS (
             SELECT entry_id, ord, row_number() OVER (ORDER BY d DESC, entry_id, ord) AS r FROM (
                 SELECT c.entry_id, c.ord,
                        (SELECT sum(a * b) FROM unnest(c.embedding, $4::real[]) AS t(a, b)) AS d
                 FROM knowledge_chunks c
                 WHERE c.bot_id = $1 AND $4::real[] IS NOT NULL AND c.embedding IS NOT NULL
             ) scored
             ORDER BY r LIMIT 20
         ),
         fused AS (
             SELECT entry_id, ord, sum(1.0 / (60 + r))::float8 AS score
             FROM (SELECT * FROM fts UNION ALL SELECT * FROM tri UNION ALL SELECT * FROM vec) ranked
             GROUP BY entry_id, ord
         )
         SELECT f.entry_id, e.title, f.ord, c.text, f.score
         FROM fused f
         JOIN knowledge_chunks c ON c.bot_id = $1 AND c.entry_id = f.entry_id AND c.ord = f.ord
         JOIN knowledge_entries e ON e.bot_id = $1 AND e.id = f.entry_id
         ORDER BY f.score DESC, f.entry_id, f.ord
         LIMIT $5",
    )
    .bind(bot_id)
    .bind(tsquery)
    .bind(
        near.iter()
            .map(|(term, _)| term.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(embedding)
    .bind(limit)
    .bind(near.iter().map(|(_, s)| *s).collect::<Vec<f32>>())
    .fetch_all(db)
    .await
}

/// Every folded word of the bot's knowledge, with how many chunks hold it: what
/// a question's words are checked against (a word the shop never wrote about is
/// a question the knowledge cannot answer).
pub async fn vocabulary(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
) -> sqlx::Result<std::collections::HashMap<String, u32>> {
    let counts: Vec<(String, i64)> = sqlx::query_as(
        "SELECT term, count(*) FROM knowledge_terms WHERE bot_id = $1 GROUP BY term",
    )
    .bind(bot_id)
    .fetch_all(db)
    .await?;
    Ok(counts
        .into_iter()
        .map(|(term, n)| (term, u32::try_from(n).unwrap_or(u32::MAX)))
        .collect())
}

/// What a shop turn asks of the knowledge: answers, through the day's cache.
pub struct Desk<'a> {
    pub pool: &'a sqlx::PgPool,
    pub bot_id: Uuid,
    pub config_version: i64,
    pub catalog: &'a crate::shop::catalog::CatalogIndex,
    pub library: &'a answer::Library,
    /// The shop's currency.
    pub currency: &'a str,
    /// The configured model, which writes answers from passages and embeds.
    pub model: Option<&'a model::Model>,
    /// The turn the model's calls are recorded for.
    pub context: &'a crate::llm::CallContext,
}

impl Desk<'_> {
    /// The answer to `question`: the day's cached one, or worked out now (and
    /// kept). `products` are those the question names; `before` is the last
    /// question an entry answered in this conversation.
    pub async fn answer(
        &self,
        question: &str,
        products: Vec<i64>,
        before: Option<&AskedBefore>,
    ) -> sqlx::Result<answer::Answer> {
        // «¿y los domingos?», «y cuánto demora»: a question that goes on from
        // the one before is asked with it, and its answer kept apart.
        // (A memo kept before entries were remembered by id goes on from none.)
        let before = before.filter(|b| b.entry != 0 && answer::goes_on(question));
        // (A sentinel word keeps the parts apart once the key is folded.)
        let mut asked_as = match before {
            Some(before) => format!(
                "{question} followsfrom {} inentry {}",
                before.question, before.entry
            ),
            None => question.to_owned(),
        };
        // «¿tiene gluten?» about the brownie in focus is another question
        // than about the croissant.
        if !products.is_empty() {
            let mut ids = products.clone();
            ids.sort_unstable();
            ids.dedup();
            let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
            asked_as.push_str(&format!(" aboutproducts {}", ids.join(" ")));
        }
        let key = cache::Key::new(
            self.bot_id,
            chrono::Utc::now().date_naive(),
            self.config_version,
            &asked_as,
        );
        if let Some(mut kept) = cache::get::<answer::Answer>(self.pool, &key).await? {
            kept.steps = vec![answer::Step::Cached];
            return Ok(kept);
        }
        let ask = answer::Ask {
            pool: self.pool,
            bot_id: self.bot_id,
            catalog: self.catalog,
            library: self.library,
            question,
            products,
            currency: self.currency,
            writer: self.model.map(|m| m as &dyn answer::Writer),
            embedder: self.model.map(|m| m as &dyn answer::Embedder),
            context: self.context,
        };
        let mut answered = answer::answer(&ask).await?;
        if let Some(before) = before
            && answer::may_carry(&answered, question)
        {
            let together = format!("{} {question}", before.question);
            let carried = answer::answer(&answer::Ask {
                question: &together,
                ..ask
            })
            .await?;
            if answer::carries_on(&carried, before, question) {
                answered = carried;
            }
        }
        cache::put(self.pool, &key, &answered).await?;
        Ok(answered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_cut_at_paragraphs_and_sentences_and_nothing_is_lost() {
        let body = "Abrimos de lunes a viernes de 8:00 a 20:00.\n\nSábados de 9:00 a 14:00.\n\n"
            .to_owned()
            + &"Una frase larga sobre el envío que se repite. ".repeat(30);
        let cut = chunks(&body);
        assert!(cut.len() >= 3, "{cut:?}");
        assert!(
            cut[0].contains("8:00") && cut[0].contains("Sábados"),
            "short ones travel together"
        );
        assert!(cut.iter().all(|c| c.chars().count() <= CHUNK_CHARS + 60));
        let words = |t: &str| t.split_whitespace().count();
        assert_eq!(cut.iter().map(|c| words(c)).sum::<usize>(), words(&body));
    }

    #[test]
    fn sentences_end_at_stops_not_inside_hours_or_prices() {
        assert_eq!(
            sentences("Abrimos a las 8:00. El envío cuesta Bs 10.50 en Sopocachi! ¿Dudas?\n- QR"),
            [
                "Abrimos a las 8:00.",
                "El envío cuesta Bs 10.50 en Sopocachi!",
                "¿Dudas?",
                "- QR"
            ]
        );
    }
}
