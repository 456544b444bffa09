//! Which tool results are shown as a picture, and the picture with its figures
//! in words: the months' trend as a line, a budget's progress as tracks, and a
//! split (by category, place, weekday…) or a comparison as bars. Every figure
//! drawn is the result's own, formatted once and used for the bar's label and
//! for the caption, so nothing depends on seeing the image. A result with
//! nothing to draw gives no chart.

use crate::chart::{Bar, Chart, Progress, render};
use crate::finance::core::amount::pesos;
use crate::finance::core::category;
use crate::finance::core::output::{QueryResult, ToolOutput};
use crate::finance::core::query::{GroupBy, month_name};

/// Longest caption every channel takes whole (Telegram and WhatsApp: 1024).
pub const MAX_CAPTION: usize = 1000;

/// A chart ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drawn {
    pub png: Vec<u8>,
    pub filename: String,
    /// The title and every figure drawn, in words.
    pub caption: String,
    /// What was drawn (for the audit): the kind and how many values.
    pub kind: &'static str,
    pub values: usize,
}

fn label(key: &str) -> String {
    category::by_key(key).map_or_else(|| key.to_owned(), |c| c.label.to_owned())
}

fn bar(label: String, cents: i64) -> Bar {
    Bar {
        label,
        value: cents.max(0),
        shown: pesos(cents),
    }
}

/// The chart a result deserves, if any, before it is drawn.
pub fn of(output: &ToolOutput) -> Option<Chart> {
    match output {
        ToolOutput::Trends(t) if t.months.len() >= 2 => Some(Chart::Line {
            title: match &t.category {
                Some(c) => format!("Tus gastos en {} por mes", label(c)),
                None => "Tus gastos por mes".into(),
            },
            points: t
                .months
                .iter()
                .map(|m| bar(short_month(m.month), m.total_cents))
                .collect(),
        }),
        ToolOutput::BudgetStatus(b) => {
            let cap = b.cap.as_ref()?;
            let scope = b
                .category
                .as_deref()
                .map_or_else(|| "gastos variables".to_owned(), label);
            let track = |name: &str, cents: i64| Progress {
                label: name.to_owned(),
                spent: cents.max(0),
                limit: cap.cap_cents,
                shown: format!("{} de {}", pesos(cents), pesos(cap.cap_cents)),
            };
            Some(Chart::Progress {
                title: format!("Presupuesto de {scope}, {}", month_name(b.month)),
                items: vec![
                    track("Gastado", b.spent_cents),
                    track("Al cierre, a este ritmo", b.projected_cents),
                ],
            })
        }
        ToolOutput::SpendingPattern(p) if p.by_category.len() >= 3 => Some(Chart::Bars {
            title: format!("Gastos por categoría, {} a {}", p.source.from, p.source.to),
            bars: p
                .by_category
                .iter()
                .map(|c| bar(label(&c.category), c.total_cents))
                .collect(),
        }),
        ToolOutput::Query(q) => query(q),
        _ => None,
    }
}

fn query(q: &QueryResult) -> Option<Chart> {
    // The bars are pesos: a count or an average is answered in words only.
    if q.plan.measure != crate::finance::core::query::Measure::Sum {
        return None;
    }
    let subject = super::reply::query_subject(&q.plan);
    if let Some(c) = &q.compare {
        return Some(Chart::Bars {
            title: format!(
                "{}: {} y {}",
                crate::text::capitalized(&subject),
                q.period,
                c.period
            ),
            bars: vec![
                bar(crate::text::capitalized(&q.period), q.total_cents),
                bar(crate::text::capitalized(&c.period), c.total_cents),
            ],
        });
    }
    let group = q.plan.group_by?;
    if q.groups.len() < 2 {
        return None;
    }
    let title = format!("{} {}", crate::text::capitalized(&subject), q.period);
    let points: Vec<Bar> = q
        .groups
        .iter()
        .map(|g| bar(g.label.clone(), g.total_cents))
        .collect();
    Some(match group {
        // Time reads left to right, in order.
        GroupBy::Month | GroupBy::Week | GroupBy::Day => {
            let mut ordered: Vec<(&str, Bar)> = q
                .groups
                .iter()
                .map(|g| (g.key.as_str(), bar(short_key(group, &g.key), g.total_cents)))
                .collect();
            ordered.sort_by(|a, b| a.0.cmp(b.0));
            Chart::Line {
                title,
                points: ordered.into_iter().map(|(_, b)| b).collect(),
            }
        }
        GroupBy::Weekday | GroupBy::Category | GroupBy::Merchant => Chart::Bars {
            title,
            bars: points,
        },
    })
}

/// "oct 2026": a month as an axis has room for it.
fn short_month(date: chrono::NaiveDate) -> String {
    let name = month_name(date);
    format!(
        "{} {}",
        name.chars().take(3).collect::<String>(),
        chrono::Datelike::year(&date)
    )
}

/// A time group's key ("2026-10", "2026-10-05") as an axis label.
fn short_key(group: GroupBy, key: &str) -> String {
    let date = chrono::NaiveDate::parse_from_str(key, "%Y-%m-%d")
        .or_else(|_| chrono::NaiveDate::parse_from_str(&format!("{key}-01"), "%Y-%m-%d"));
    match (group, date) {
        (GroupBy::Month, Ok(date)) => short_month(date),
        (_, Ok(date)) => format!(
            "{} {}",
            chrono::Datelike::day(&date),
            &month_name(date)[..3]
        ),
        (_, Err(_)) => key.to_owned(),
    }
}

/// The chart's title and every figure it shows, in words.
pub fn caption(chart: &Chart) -> String {
    let (title, parts): (&str, Vec<String>) = match chart {
        Chart::Bars { title, bars }
        | Chart::Line {
            title,
            points: bars,
        } => (
            title,
            bars.iter()
                .map(|b| format!("{}: {}", b.label, b.shown))
                .collect(),
        ),
        Chart::Progress { title, items } => (
            title,
            items
                .iter()
                .map(|i| format!("{}: {}", i.label, i.shown))
                .collect(),
        ),
    };
    let mut caption = format!("📊 {title}.");
    for (i, part) in parts.iter().enumerate() {
        let next = format!(" {part}{}", if i + 1 == parts.len() { "." } else { ";" });
        if caption.chars().count() + next.chars().count() > MAX_CAPTION {
            caption.push_str(" …");
            break;
        }
        caption.push_str(&next);
    }
    caption
}

/// The picture for a result, drawn, or `None` when there is nothing to show.
pub fn draw(output: &ToolOutput) -> Option<Drawn> {
    let chart = of(output)?;
    let png = render(&chart)?;
    let (kind, values) = match &chart {
        Chart::Bars { bars, .. } => ("bars", bars.len()),
        Chart::Line { points, .. } => ("line", points.len()),
        Chart::Progress { items, .. } => ("progress", items.len()),
    };
    Some(Drawn {
        png,
        filename: format!("grafica-{}.png", output.tool().as_str()),
        caption: caption(&chart),
        kind,
        values,
    })
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;
    use crate::finance::core::output::{MonthTotal, QueryGroup, Source, Trend, Trends};
    use crate::finance::core::query::{QueryPlan, Span};
    use crate::text::numbers_in_hundredths;

    fn day(m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, m, d).unwrap()
    }

    fn grouped(groups: Vec<QueryGroup>) -> ToolOutput {
        let total = groups.iter().map(|g| g.total_cents).sum();
        let count = groups.iter().map(|g| g.count).sum();
        ToolOutput::Query(Box::new(QueryResult {
            plan: QueryPlan {
                group_by: Some(GroupBy::Weekday),
                span: Span::LastMonth,
                ..QueryPlan::default()
            },
            period: "el mes pasado (octubre de 2026)".into(),
            source: Source {
                transactions: count,
                from: day(10, 1),
                to: day(10, 31),
            },
            total_cents: total,
            count,
            average_cents: total / count.max(1),
            rows: Vec::new(),
            groups,
            compare: None,
            relaxed: Vec::new(),
        }))
    }

    fn group(label: &str, total_cents: i64) -> QueryGroup {
        QueryGroup {
            key: label.into(),
            label: label.into(),
            total_cents,
            count: 2,
        }
    }

    #[test]
    fn the_caption_carries_exactly_the_figures_drawn() {
        let output = grouped(vec![
            group("sábado", 812_550),
            group("miércoles", 403_500),
            group("lunes", 121_000),
        ]);
        let drawn = draw(&output).expect("three groups are drawn");
        assert!(drawn.png.starts_with(b"\x89PNG"));
        assert_eq!((drawn.kind, drawn.values), ("bars", 3));
        let ToolOutput::Query(q) = &output else {
            unreachable!()
        };
        // The amounts shown: what follows each "$".
        let mut shown: Vec<i64> = drawn
            .caption
            .split('$')
            .skip(1)
            .filter_map(|t| {
                numbers_in_hundredths(t.split([' ', ';']).next()?)
                    .first()
                    .copied()
            })
            .collect();
        shown.sort();
        let mut results: Vec<i64> = q.groups.iter().map(|g| g.total_cents).collect();
        results.sort();
        assert_eq!(shown, results, "{}", drawn.caption);
        assert!(
            drawn.caption.contains("sábado: $8,125.50"),
            "{}",
            drawn.caption
        );
        assert!(drawn.filename.ends_with(".png"));
    }

    #[test]
    fn the_trend_is_a_line_in_time_and_a_budget_its_tracks() {
        let trend = ToolOutput::Trends(Trends {
            source: Source {
                transactions: 90,
                from: day(8, 1),
                to: day(10, 31),
            },
            category: None,
            months: vec![
                MonthTotal {
                    month: day(8, 1),
                    total_cents: 2_330_500,
                },
                MonthTotal {
                    month: day(9, 1),
                    total_cents: 2_214_900,
                },
                MonthTotal {
                    month: day(10, 1),
                    total_cents: 2_306_400,
                },
            ],
            direction: Trend::Stable,
            change_bp: 0,
        });
        let drawn = draw(&trend).unwrap();
        assert_eq!((drawn.kind, drawn.values), ("line", 3));
        assert!(
            drawn.caption.contains("ago 2026: $23,305.00"),
            "{}",
            drawn.caption
        );
        let budget = ToolOutput::BudgetStatus(crate::finance::core::output::BudgetStatus {
            source: Source {
                transactions: 40,
                from: day(11, 1),
                to: day(11, 25),
            },
            month: day(11, 1),
            category: None,
            spent_cents: 1_480_000,
            cap: Some(crate::finance::core::output::Cap {
                cap_cents: 1_800_000,
                remaining_cents: 320_000,
                used_bp: 8_222,
                status: crate::finance::core::output::BudgetLevel::Warning,
            }),
            by_category: Vec::new(),
            projected_cents: 1_776_000,
        });
        let drawn = draw(&budget).unwrap();
        assert_eq!((drawn.kind, drawn.values), ("progress", 2));
        assert!(
            drawn.caption.contains("Gastado: $14,800.00 de $18,000.00"),
            "{}",
            drawn.caption
        );
        // A budget without a cap has nothing to draw against.
        let ToolOutput::BudgetStatus(mut open) = budget else {
            unreachable!()
        };
        open.cap = None;
        assert!(draw(&ToolOutput::BudgetStatus(open)).is_none());
    }

    #[test]
    fn nothing_to_draw_draws_nothing() {
        assert!(draw(&grouped(vec![group("sábado", 0), group("lunes", 0)])).is_none());
        assert!(draw(&grouped(vec![group("sábado", 5_000)])).is_none());
        let flat = ToolOutput::Trends(Trends {
            source: Source {
                transactions: 0,
                from: day(8, 1),
                to: day(10, 31),
            },
            category: None,
            months: vec![MonthTotal {
                month: day(10, 1),
                total_cents: 0,
            }],
            direction: Trend::Stable,
            change_bp: 0,
        });
        assert!(draw(&flat).is_none());
    }

    #[test]
    fn a_long_caption_stops_whole_before_the_limit() {
        let many: Vec<QueryGroup> = (0..200)
            .map(|i| group(&format!("lugar {i}"), 10_000 + i))
            .collect();
        let caption = draw(&grouped(many)).unwrap().caption;
        assert!(
            caption.chars().count() <= MAX_CAPTION + 2,
            "{}",
            caption.len()
        );
        assert!(caption.ends_with('…'));
    }
}
