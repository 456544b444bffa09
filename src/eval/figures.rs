//! Figures a finance script expects, computed here from the sample history as the
//! generator makes it (`finance::demo::history`), in plain Rust and apart from
//! the SQL the bot runs: a script names what it asks (a measure, filters, a
//! period) and the reply must show the figure this computes. Month names in a
//! script are placeholders (`{mes}`, `{mes-1}`…), so it means the same any day.

use chrono::{Datelike, Duration, NaiveDate};
use serde::Deserialize;

use crate::finance::core::amount::pesos;
use crate::finance::core::date::{month_end, month_start, previous_month};
use crate::finance::core::draft::TxKind;
use crate::finance::demo::{self, Sample};
use crate::text::{MONTHS, normalize};

/// A figure a reply must show.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    /// sum, count, average or max.
    pub measure: String,
    /// expense (default) or income.
    pub kind: Option<String>,
    pub categories: Option<Vec<String>>,
    pub text: Option<String>,
    pub period: String,
    /// 0 = Monday.
    pub weekday: Option<u32>,
    /// Pesos, inclusive.
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// weekday, category, month or merchant: the reply names the largest group.
    pub top_group: Option<String>,
}

/// `{mes}`, `{mes-1}`… as the Spanish month names they stand for.
pub fn fill_months(text: &str, today: NaiveDate) -> String {
    let mut out = text.to_owned();
    let mut month = month_start(today);
    for back in 0..=12 {
        let name = MONTHS[month.month0() as usize];
        let key = if back == 0 {
            "{mes}".to_owned()
        } else {
            format!("{{mes-{back}}}")
        };
        out = out.replace(&key, name);
        month = previous_month(month);
    }
    out
}

/// The dates a period name covers.
fn period(name: &str, today: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
    let monday = today - Duration::days(today.weekday().num_days_from_monday() as i64);
    Some(match name {
        "today" => (today, today),
        "yesterday" => (today - Duration::days(1), today - Duration::days(1)),
        "this_week" => (monday, today),
        "last_week" => (monday - Duration::days(7), monday - Duration::days(1)),
        "last_7_days" => (today - Duration::days(6), today),
        "last_30_days" => (today - Duration::days(29), today),
        "this_month" => (month_start(today), today),
        "this_year" => (NaiveDate::from_ymd_opt(today.year(), 1, 1)?, today),
        "all" => (NaiveDate::MIN, today),
        other => {
            let back: u32 = other.strip_prefix("month-")?.parse().ok()?;
            let mut first = month_start(today);
            for _ in 0..back {
                first = previous_month(first);
            }
            (first, month_end(first))
        }
    })
}

/// What a spec selects from the sample history.
fn selected<'a>(
    spec: &FigureSpec,
    history: &'a [Sample],
    today: NaiveDate,
) -> Option<Vec<&'a Sample>> {
    let (from, to) = period(&spec.period, today)?;
    let kind = match spec.kind.as_deref() {
        Some("income") => TxKind::Income,
        _ => TxKind::Expense,
    };
    let text = spec.text.as_deref().map(normalize);
    Some(
        history
            .iter()
            .filter(|s| s.kind == kind && s.date >= from && s.date <= to)
            .filter(|s| {
                spec.categories
                    .as_ref()
                    .is_none_or(|c| c.iter().any(|k| k == s.category))
            })
            .filter(|s| {
                text.as_ref().is_none_or(|t| {
                    normalize(s.description).contains(t.as_str())
                        || s.merchant
                            .is_some_and(|m| normalize(m).contains(t.as_str()))
                })
            })
            .filter(|s| {
                spec.weekday
                    .is_none_or(|d| s.date.weekday().num_days_from_monday() == d)
            })
            .filter(|s| {
                spec.min
                    .is_none_or(|m| s.amount_cents >= (m * 100.0).round() as i64)
            })
            .filter(|s| {
                spec.max
                    .is_none_or(|m| s.amount_cents <= (m * 100.0).round() as i64)
            })
            .collect(),
    )
}

fn group_label(by: &str, s: &Sample) -> String {
    match by {
        "weekday" => crate::finance::core::date::WEEKDAYS
            [s.date.weekday().num_days_from_monday() as usize]
            .0
            .to_owned(),
        "category" => s.category.to_owned(),
        "month" => MONTHS[s.date.month0() as usize].to_owned(),
        _ => normalize(s.description),
    }
}

/// What is wrong with `reply` for `spec`, if anything.
pub fn check(spec: &FigureSpec, reply: &str, today: NaiveDate) -> Option<String> {
    let history = demo::history(today);
    let Some(rows) = selected(spec, &history, today) else {
        return Some(format!("unknown period {:?} in the script", spec.period));
    };
    if rows.is_empty() {
        return (!reply.contains("No encontré"))
            .then(|| format!("expected no data for {spec:?}, reply says otherwise"));
    }
    let total: i64 = rows.iter().map(|s| s.amount_cents).sum();
    let count = rows.len() as i64;
    if let Some(by) = &spec.top_group {
        let mut groups: Vec<(String, i64)> = Vec::new();
        for s in &rows {
            let label = group_label(by, s);
            match groups.iter_mut().find(|(l, _)| *l == label) {
                Some(g) => g.1 += s.amount_cents,
                None => groups.push((label, s.amount_cents)),
            }
        }
        groups.sort_by_key(|g| std::cmp::Reverse(g.1));
        let (label, sum) = &groups[0];
        let folded = normalize(reply);
        let named = folded.contains(&normalize(label));
        let shown = reply.contains(&pesos(*sum));
        return (!named || !shown)
            .then(|| format!("reply lacks the top group {label} with {}", pesos(*sum)));
    }
    let (shown, figure) = match spec.measure.as_str() {
        "count" => {
            let shown = crate::text::numbers_in_hundredths(reply).contains(&(count * 100));
            (shown, count.to_string())
        }
        "average" => {
            let average = (total as f64 / count as f64).round() as i64;
            (reply.contains(&pesos(average)), pesos(average))
        }
        "max" => {
            let max = rows.iter().map(|s| s.amount_cents).max().unwrap_or(0);
            (reply.contains(&pesos(max)), pesos(max))
        }
        _ => (reply.contains(&pesos(total)), pesos(total)),
    };
    (!shown).then(|| format!("reply lacks {} {figure}", spec.measure))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 25).unwrap()
    }

    #[test]
    fn placeholders_name_the_months_back_from_today() {
        assert_eq!(
            fill_months("en {mes-1} y {mes-2}, no {mes}", today()),
            "en octubre y septiembre, no noviembre"
        );
        assert_eq!(fill_months("{mes-11}", today()), "diciembre");
    }

    #[test]
    fn a_figure_is_computed_from_the_sample_and_looked_for_in_the_reply() {
        let spec = FigureSpec {
            measure: "sum".into(),
            kind: None,
            categories: Some(vec!["vivienda".into()]),
            text: None,
            period: "month-1".into(),
            weekday: None,
            min: None,
            max: None,
            top_group: None,
        };
        // Rent is 7,500 on the first of each month.
        assert_eq!(
            check(&spec, "Renta: $7,500.00 en 1 movimiento", today()),
            None
        );
        assert!(check(&spec, "Renta: $7,400.00", today()).is_some());
        let nothing = FigureSpec {
            text: Some("amazon".into()),
            categories: None,
            ..spec
        };
        assert_eq!(
            check(&nothing, "No encontré gastos de «amazon».", today()),
            None
        );
        assert!(check(&nothing, "Gastaste $0.00", today()).is_some());
    }
}
