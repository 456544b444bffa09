//! Re-ranking search results (KakeBot P2-2): text similarity 0.6, recency 0.2
//! (exponential decay) and category match 0.2. A query that names no category
//! scores every category the same, so nothing is penalized for where it was filed.

use chrono::NaiveDate;

use super::output::{ExpenseLine, Found};

/// Days for the recency score to fall to 1/e.
pub const RECENCY_DAYS: f64 = 30.0;

/// A row the database matched, with its best trigram similarity (0–1) to any
/// expanded term of the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub line: ExpenseLine,
    pub similarity: f64,
}

pub fn score(candidate: &Candidate, categories: &[&str], today: NaiveDate) -> f64 {
    let age = (today - candidate.line.date).num_days().max(0) as f64;
    let recency = (-age / RECENCY_DAYS).exp();
    let category = if categories.is_empty() {
        0.5
    } else if categories.contains(&candidate.line.category.as_str()) {
        1.0
    } else {
        0.0
    };
    0.6 * candidate.similarity.clamp(0.0, 1.0) + 0.2 * recency + 0.2 * category
}

/// The candidates best first (ties: the newer first), at most `limit`.
pub fn rerank(
    candidates: Vec<Candidate>,
    categories: &[&str],
    today: NaiveDate,
    limit: usize,
) -> Vec<Found> {
    let mut scored: Vec<(i64, Candidate)> = candidates
        .into_iter()
        .map(|c| ((score(&c, categories, today) * 10_000.0).round() as i64, c))
        .collect();
    scored.sort_by(|(a, x), (b, y)| b.cmp(a).then(y.line.date.cmp(&x.line.date)));
    scored
        .into_iter()
        .take(limit)
        .map(|(confidence_bp, c)| Found {
            line: c.line,
            confidence_bp,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(id: i64, days_ago: i64, category: &str, similarity: f64) -> Candidate {
        let today = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        Candidate {
            line: ExpenseLine {
                id,
                date: today - chrono::Duration::days(days_ago),
                description: format!("gasto {id}"),
                category: category.into(),
                amount_cents: 10_000,
            },
            similarity,
        }
    }

    #[test]
    fn the_weights_are_six_two_two() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        let exact_today_in_category = candidate(1, 0, "comida", 1.0);
        assert!((score(&exact_today_in_category, &["comida"], today) - 1.0).abs() < 1e-9);
        let old_elsewhere = candidate(2, 10_000, "ropa", 0.0);
        assert!(score(&old_elsewhere, &["comida"], today).abs() < 1e-9);
        let month_old = candidate(3, 30, "comida", 0.5);
        let expected = 0.3 + 0.2 * (-1.0f64).exp() + 0.2;
        assert!((score(&month_old, &["comida"], today) - expected).abs() < 1e-9);
        assert!((score(&old_elsewhere, &[], today) - 0.1).abs() < 1e-9);
    }

    #[test]
    fn category_and_recency_reorder_equally_similar_rows() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        let ranked = rerank(
            vec![
                candidate(1, 40, "ropa", 0.8),
                candidate(2, 2, "restaurantes", 0.8),
                candidate(3, 40, "supermercado", 0.8),
            ],
            &["comida", "supermercado", "restaurantes"],
            today,
            10,
        );
        let ids: Vec<i64> = ranked.iter().map(|f| f.line.id).collect();
        assert_eq!(ids, [2, 3, 1]);
        assert!(
            ranked
                .windows(2)
                .all(|w| w[0].confidence_bp >= w[1].confidence_bp)
        );
        assert_eq!(
            rerank(vec![candidate(1, 0, "a", 1.0)], &[], today, 0),
            vec![]
        );
    }
}
