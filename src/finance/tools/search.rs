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

/// The terms and categories a query covers.
pub fn expand(
    query: &str,
    category: Option<&'static Category>,
) -> (Vec<String>, Vec<&'static str>) {
    let query = normalize(query);
    let mut terms = vec![query.clone()];
    let named = category
        .or_else(|| category::named(&query))
        .or_else(|| category::mentioned(&query).map(|(c, _)| c));
    let mut categories = Vec::new();
    if let Some(named) = named {
        for c in category::with_related(named) {
            categories.push(c.key);
            terms.push(normalize(c.label));
            terms.extend(c.words.iter().map(|w| (*w).to_owned()));
        }
    }
    terms.retain(|t| !t.is_empty());
    terms.sort();
    terms.dedup();
    (terms, categories)
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
    let (terms, categories) = expand(&query, request.category);
    if terms.is_empty() {
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
    let rows: Vec<Row> = sqlx::query_as(
        "WITH scored AS (
             SELECT id, occurred_on, description, category, amount_cents,
                    (SELECT max(word_similarity(term, translate(lower(description || ' ' || coalesce(merchant, '')),
                                                                'áéíóúüñ', 'aeiouun')))
                     FROM unnest($5::text[]) term)::float8 AS similarity
             FROM fin_transactions
             WHERE contact_id = $2 AND bot_id = $1 AND kind = 'expense' AND occurred_on BETWEEN $3 AND $4
               AND ($7::bigint IS NULL OR amount_cents >= $7) AND ($8::bigint IS NULL OR amount_cents <= $8)
         )
         SELECT id, occurred_on, description, category, amount_cents, similarity FROM scored
         WHERE category = ANY($6) OR similarity >= $9
         ORDER BY similarity DESC, id DESC LIMIT 200",
    )
    .bind(context.user.bot_id)
    .bind(context.user.contact_id)
    .bind(from)
    .bind(to)
    .bind(&terms)
    .bind(&categories)
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
        categories: categories.iter().map(|c| (*c).to_owned()).collect(),
        items: rerank(candidates, &categories, context.today, LIMIT),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comida_expands_to_the_supermarket_and_restaurants() {
        let (terms, categories) = expand("Comida", None);
        assert_eq!(categories, ["comida", "supermercado", "restaurantes"]);
        for term in ["comida", "walmart", "tacos", "restaurante"] {
            assert!(terms.iter().any(|t| t == term), "{term}");
        }
        let (terms, categories) = expand("Tacos El Güero", None);
        assert_eq!(categories, ["restaurantes", "comida"]);
        assert!(terms.contains(&"tacos el guero".to_owned()));
        let (terms, categories) = expand("regalo de Ana", None);
        assert!(categories.contains(&"regalos"));
        assert!(terms.contains(&"regalo de ana".to_owned()));
    }
}
