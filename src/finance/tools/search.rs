//! searchExpenses: individual expenses matching a concept, across every category.
//! The query is expanded with its category's words and neighbours ("comida" also
//! looks for the supermarket and restaurants), PostgreSQL's trigram similarity
//! scores each row against the expanded terms, and the rows are re-ranked by
//! similarity, recency and category match.

use chrono::NaiveDate;

use super::ToolContext;
use crate::finance::core::category::{self, Category};
use crate::finance::core::output::{ExpenseLine, Search, Source, ToolError, ToolOutput};
use crate::finance::core::rerank::{Candidate, rerank};
use crate::finance::core::tools::{Period, ToolName, ToolRequest};
use crate::text::normalize;

/// Results shown at most.
const LIMIT: usize = 10;
/// Word similarity a row needs to be a candidate without a category match.
const MIN_SIMILARITY: f64 = 0.45;

/// What a query covers: the terms rows are compared with, the categories whose
/// rows are candidates whatever their text, and the categories that count as a
/// match when ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    pub terms: Vec<String>,
    pub candidates: Vec<&'static str>,
    pub matching: Vec<&'static str>,
}

/// A query that names a category ("comida") covers it and its neighbours; one
/// that only mentions a category's word ("tacos") looks for that word, and ranks
/// rows of that category higher.
pub fn expand(query: &str, category: Option<&'static Category>) -> Expanded {
    let query = normalize(query);
    let mut terms = vec![query.clone()];
    let mut candidates = Vec::new();
    let mut matching = Vec::new();
    // A category given beside a query only ranks; alone, it is the query.
    let named = category::titled(&query).or(category.filter(|_| query.is_empty()));
    match named {
        Some(named) => {
            for c in category::with_related(named) {
                candidates.push(c.key);
                terms.push(normalize(c.label));
                terms.extend(c.words.iter().map(|w| (*w).to_owned()));
            }
            matching = candidates.clone();
        }
        None => {
            if let Some((c, word)) = category::mentioned(&query) {
                terms.push(word.to_owned());
                matching.push(c.key);
            }
            if let Some(c) = category
                && !matching.contains(&c.key)
            {
                matching.push(c.key);
            }
        }
    }
    terms.retain(|t| !t.is_empty());
    terms.sort();
    terms.dedup();
    Expanded {
        terms,
        candidates,
        matching,
    }
}

pub async fn search(
    context: &ToolContext<'_>,
    request: &ToolRequest,
) -> Result<ToolOutput, ToolError> {
    let tool = ToolName::SearchExpenses;
    let query = request
        .query
        .clone()
        .or_else(|| request.category.map(|c| c.label.to_owned()))
        .unwrap_or_default();
    let expanded = expand(&query, request.category);
    if query.trim().is_empty() {
        return Err(context.error(
            tool,
            crate::finance::core::output::ToolErrorKind::Validation,
            "empty query",
        ));
    }
    let (from, to) = request
        .period
        .unwrap_or(Period::Last90Days)
        .range(context.today);
    type Row = (i64, NaiveDate, String, String, i64, f64);
    // Similarity to the query itself counts fully; to a term it was expanded
    // with, at 70 % (a supermarket is food, but less than the word asked for).
    let rows: Vec<Row> = sqlx::query_as(
        "WITH rows AS (
             SELECT id, occurred_on, description, category, amount_cents,
                    translate(lower(description || ' ' || coalesce(merchant, '')), 'áéíóúüñ', 'aeiouun') AS text
             FROM fin_transactions
             WHERE contact_id = $2 AND bot_id = $1 AND kind = 'expense' AND occurred_on BETWEEN $3 AND $4
               AND ($8::bigint IS NULL OR amount_cents >= $8) AND ($9::bigint IS NULL OR amount_cents <= $9)
         ), scored AS (
             SELECT id, occurred_on, description, category, amount_cents,
                    greatest(word_similarity($5, text),
                             0.7 * (SELECT max(word_similarity(term, text)) FROM unnest($6::text[]) term))::float8
                        AS similarity
             FROM rows
         )
         SELECT id, occurred_on, description, category, amount_cents, similarity FROM scored
         WHERE category = ANY($7) OR similarity >= $10
         ORDER BY similarity DESC, id DESC LIMIT 200",
    )
    .bind(context.user.bot_id)
    .bind(context.user.contact_id)
    .bind(from)
    .bind(to)
    .bind(normalize(&query))
    .bind(&expanded.terms)
    .bind(&expanded.candidates)
    .bind(request.min_cents)
    .bind(request.max_cents)
    .bind(MIN_SIMILARITY)
    .fetch_all(context.pool)
    .await
    .map_err(|e| context.database(tool, e))?;
    if rows.is_empty() {
        return Err(context.not_found(tool));
    }
    let matched = rows.len() as i64;
    let candidates = rows
        .into_iter()
        .map(
            |(id, date, description, category, amount_cents, similarity)| Candidate {
                line: ExpenseLine {
                    id,
                    date,
                    description,
                    category,
                    amount_cents,
                },
                similarity,
            },
        )
        .collect();
    Ok(ToolOutput::Search(Search {
        source: Source {
            transactions: matched,
            from,
            to,
        },
        query: query.chars().take(80).collect(),
        categories: expanded
            .candidates
            .iter()
            .map(|c| (*c).to_owned())
            .collect(),
        items: rerank(candidates, &expanded.matching, context.today, LIMIT),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_category_name_expands_to_its_neighbours_and_a_word_stays_itself() {
        let food = expand("Comida", None);
        assert_eq!(food.candidates, ["comida", "supermercado", "restaurantes"]);
        assert_eq!(food.matching, food.candidates);
        for term in ["comida", "walmart", "tacos", "restaurante"] {
            assert!(food.terms.iter().any(|t| t == term), "{term}");
        }
        let tacos = expand("Tacos El Güero", None);
        assert!(tacos.candidates.is_empty(), "only rows that read like it");
        assert_eq!(tacos.matching, ["restaurantes"]);
        assert_eq!(tacos.terms, ["tacos", "tacos el guero"]);
        let gift = expand("regalo de Ana", None);
        assert_eq!(gift.matching, ["regalos"]);
        assert!(gift.terms.contains(&"regalo de ana".to_owned()));
    }
}
