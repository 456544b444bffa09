//! The tool output validator (KakeBot §4): totals are never negative, parts add up
//! to their whole within 5 %, labels agree with the numbers they label, and more
//! than twenty anomalies means the detection is broken. A result that fails is
//! turned into a validation error, never shown and never approximated.
//!
//! Labels (trend, budget status, severity, confidence) are closed enums, so an
//! unknown value cannot be built at all; what the validator checks instead is that
//! each label is the one its figures imply.

use super::output::{BudgetLevel, ToolOutput, Trend};

/// Most anomalies a sound detection reports at once.
pub const MAX_ANOMALIES: usize = 20;
/// How far parts may be from their whole, in basis points (5 %).
pub const TOLERANCE_BP: i64 = 500;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

fn check(ok: bool, why: impl FnOnce() -> String) -> Result<(), Invalid> {
    if ok { Ok(()) } else { Err(Invalid(why())) }
}

/// Parts add up to the whole within the tolerance (exactly, when the whole is 0).
fn sums_to(parts: i64, whole: i64) -> bool {
    let gap = (parts - whole).abs();
    gap * 10_000 <= whole.abs() * TOLERANCE_BP
}

pub fn validate(output: &ToolOutput) -> Result<(), Invalid> {
    match output {
        ToolOutput::SpendingPattern(p) => {
            check(p.total_cents >= 0, || "negative total".into())?;
            check(p.daily_average_cents >= 0, || "negative average".into())?;
            check(p.count >= 0 && p.previous_total_cents >= 0, || {
                "negative count or previous total".into()
            })?;
            check(p.top.iter().all(|l| l.amount_cents > 0), || {
                "a top expense is not positive".into()
            })?;
            let top: i64 = p.top.iter().map(|l| l.amount_cents).sum();
            check(
                top <= p.total_cents + p.total_cents * TOLERANCE_BP / 10_000,
                || format!("top expenses {top} exceed the total {}", p.total_cents),
            )?;
            let parts: i64 = p.by_category.iter().map(|c| c.total_cents).sum();
            check(sums_to(parts, p.total_cents), || {
                format!("categories add up to {parts}, not {}", p.total_cents)
            })?;
            check(
                p.trend == Trend::between(p.previous_total_cents, p.total_cents),
                || format!("trend {:?} does not match the totals", p.trend),
            )
        }
        ToolOutput::BudgetStatus(b) => {
            check(b.spent_cents >= 0, || "negative spending".into())?;
            check(b.projected_cents >= 0, || "negative projection".into())?;
            let parts: i64 = b.by_category.iter().map(|c| c.total_cents).sum();
            check(sums_to(parts, b.spent_cents), || {
                format!("categories add up to {parts}, not {}", b.spent_cents)
            })?;
            if let Some(cap) = &b.cap {
                check(cap.cap_cents > 0, || "the budget is not positive".into())?;
                check(cap.remaining_cents == cap.cap_cents - b.spent_cents, || {
                    "remaining is not budget minus spent".into()
                })?;
                check((0..=1_000_000).contains(&cap.used_bp), || {
                    format!("percentage {} out of range", cap.used_bp)
                })?;
                check(
                    (cap.used_bp - b.spent_cents * 10_000 / cap.cap_cents).abs() <= 1,
                    || "percentage does not match spent / budget".into(),
                )?;
                check(cap.status == BudgetLevel::of(cap.used_bp), || {
                    format!("status {:?} does not match {} bp", cap.status, cap.used_bp)
                })?;
            }
            Ok(())
        }
        ToolOutput::Anomalies(a) => {
            check(a.items.len() <= MAX_ANOMALIES, || {
                format!(
                    "{} anomalies: more than {MAX_ANOMALIES} means the detection failed",
                    a.items.len()
                )
            })?;
            check(
                a.items
                    .iter()
                    .all(|x| x.line.amount_cents > 0 && x.typical_cents >= 0),
                || "an anomaly without a valid amount".into(),
            )?;
            check(
                a.items
                    .iter()
                    .all(|x| x.line.amount_cents > x.typical_cents),
                || "an anomaly below its typical amount".into(),
            )
        }
        ToolOutput::Prediction(p) => {
            check(p.spent_so_far_cents >= 0, || "negative spending".into())?;
            check(p.predicted_cents >= p.spent_so_far_cents, || {
                "prediction below what is already spent".into()
            })
        }
        ToolOutput::Trends(t) => {
            check(t.months.iter().all(|m| m.total_cents >= 0), || {
                "a negative month".into()
            })?;
            check(t.months.len() >= 2, || "fewer than two months".into())?;
            let (first, last) = (
                t.months[0].total_cents,
                t.months[t.months.len() - 1].total_cents,
            );
            check(t.direction == Trend::between(first, last), || {
                format!("direction {:?} does not match the months", t.direction)
            })?;
            let expected = if first == 0 {
                0
            } else {
                (last - first) * 10_000 / first
            };
            check((t.change_bp - expected).abs() <= 1, || {
                "change does not match the months".into()
            })
        }
        ToolOutput::Search(s) => {
            check(s.items.iter().all(|f| f.line.amount_cents > 0), || {
                "a result without a valid amount".into()
            })?;
            check(
                s.items
                    .iter()
                    .all(|f| (0..=10_000).contains(&f.confidence_bp)),
                || "confidence out of range".into(),
            )?;
            check(
                s.items
                    .windows(2)
                    .all(|w| w[0].confidence_bp >= w[1].confidence_bp),
                || "results not ranked".into(),
            )
        }
        ToolOutput::Balance(b) => check(b.balance_cents >= 0, || "negative balance".into()),
        ToolOutput::Debts(d) => {
            check(d.items.iter().all(|x| x.balance_cents >= 0), || {
                "a negative debt".into()
            })?;
            let sum: i64 = d.items.iter().map(|x| x.balance_cents).sum();
            check(sum == d.total_cents, || {
                format!("debts add up to {sum}, not {}", d.total_cents)
            })?;
            check(d.owed_to_me.iter().all(|x| x.balance_cents >= 0), || {
                "a negative amount owed".into()
            })?;
            let owed: i64 = d.owed_to_me.iter().map(|x| x.balance_cents).sum();
            check(owed == d.owed_to_me_total_cents, || {
                format!(
                    "amounts owed add up to {owed}, not {}",
                    d.owed_to_me_total_cents
                )
            })
        }
        ToolOutput::Query(q) => query(q),
    }
}

/// A query's figures agree with each other and with its plan: the rows are
/// inside its period and amount bounds and within its limit, the groups add up to
/// no more than the total, the average is the total over the count, and a
/// comparison's difference is the two totals'.
fn query(q: &super::output::QueryResult) -> Result<(), Invalid> {
    check(q.total_cents >= 0 && q.count >= 0, || {
        "negative total or count".into()
    })?;
    check(q.source.transactions == q.count, || {
        "the source does not count the rows".into()
    })?;
    let average = if q.count > 0 {
        (q.total_cents as f64 / q.count as f64).round() as i64
    } else {
        0
    };
    check(q.average_cents == average, || {
        format!("average {} is not {average}", q.average_cents)
    })?;
    check(q.rows.len() <= q.plan.limit as usize, || {
        "more rows than the limit".into()
    })?;
    let inside = |l: &super::output::ExpenseLine| {
        l.amount_cents > 0
            && (q.source.from..=q.source.to).contains(&l.date)
            && q.plan.min_cents.is_none_or(|m| l.amount_cents >= m)
            && q.plan.max_cents.is_none_or(|m| l.amount_cents <= m)
    };
    check(q.rows.iter().all(inside), || {
        "a row outside the plan's period or amounts".into()
    })?;
    let rows: i64 = q.rows.iter().map(|l| l.amount_cents).sum();
    check(rows <= q.total_cents, || "rows exceed the total".into())?;
    let parts: i64 = q.groups.iter().map(|g| g.total_cents).sum();
    let counted: i64 = q.groups.iter().map(|g| g.count).sum();
    check(parts <= q.total_cents && counted <= q.count, || {
        format!("groups add up to {parts}, over the total {}", q.total_cents)
    })?;
    check(
        q.groups
            .windows(2)
            .all(|w| w[0].total_cents >= w[1].total_cents),
        || "groups not ordered".into(),
    )?;
    if let Some(c) = &q.compare {
        check(c.total_cents >= 0 && c.count >= 0, || {
            "negative comparison".into()
        })?;
        check(c.difference_cents == q.total_cents - c.total_cents, || {
            "the difference is not the totals'".into()
        })?;
        let change = (c.total_cents > 0).then(|| {
            ((q.total_cents - c.total_cents) as f64 * 10_000.0 / c.total_cents as f64).round()
                as i64
        });
        check(c.change_bp == change, || {
            "the change is not the totals'".into()
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;
    use crate::finance::core::output::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    fn source() -> Source {
        Source {
            transactions: 3,
            from: day(1),
            to: day(22),
        }
    }

    fn line(id: i64, amount_cents: i64) -> ExpenseLine {
        ExpenseLine {
            id,
            date: day(3),
            description: "súper".into(),
            category: "supermercado".into(),
            amount_cents,
        }
    }

    fn pattern() -> SpendingPattern {
        SpendingPattern {
            source: source(),
            category: None,
            total_cents: 100_000,
            count: 3,
            daily_average_cents: 4_545,
            previous_total_cents: 100_000,
            trend: Trend::Stable,
            top: vec![line(1, 60_000), line(2, 30_000)],
            by_category: vec![
                CategoryTotal {
                    category: "supermercado".into(),
                    total_cents: 70_000,
                    count: 2,
                },
                CategoryTotal {
                    category: "comida".into(),
                    total_cents: 30_000,
                    count: 1,
                },
            ],
        }
    }

    fn budget(spent: i64, cap: i64, used_bp: i64, status: BudgetLevel) -> BudgetStatus {
        BudgetStatus {
            source: source(),
            month: day(1),
            category: None,
            spent_cents: spent,
            cap: Some(Cap {
                cap_cents: cap,
                remaining_cents: cap - spent,
                used_bp,
                status,
            }),
            by_category: vec![CategoryTotal {
                category: "comida".into(),
                total_cents: spent,
                count: 1,
            }],
            projected_cents: spent,
        }
    }

    #[test]
    fn a_sound_result_passes() {
        assert_eq!(validate(&ToolOutput::SpendingPattern(pattern())), Ok(()));
        let ok = budget(85_000, 100_000, 8_500, BudgetLevel::Warning);
        assert_eq!(validate(&ToolOutput::BudgetStatus(ok)), Ok(()));
    }

    #[test]
    fn negative_totals_and_parts_that_do_not_add_up_are_invalid() {
        let mut negative = pattern();
        negative.total_cents = -1;
        assert!(validate(&ToolOutput::SpendingPattern(negative)).is_err());
        let mut parts = pattern();
        parts.by_category[0].total_cents = 80_000; // 110 % of the total
        let err = validate(&ToolOutput::SpendingPattern(parts)).unwrap_err();
        assert!(err.0.contains("add up"), "{err}");
        let mut within = pattern();
        within.by_category[0].total_cents = 74_000; // 104 %: rounding, accepted
        assert_eq!(validate(&ToolOutput::SpendingPattern(within)), Ok(()));
        let mut top = pattern();
        top.top.push(line(3, 50_000));
        assert!(validate(&ToolOutput::SpendingPattern(top)).is_err());
    }

    #[test]
    fn labels_must_match_their_figures() {
        let mut trend = pattern();
        trend.trend = Trend::Increasing;
        assert!(validate(&ToolOutput::SpendingPattern(trend)).is_err());
        let wrong_status = budget(85_000, 100_000, 8_500, BudgetLevel::Safe);
        assert!(validate(&ToolOutput::BudgetStatus(wrong_status)).is_err());
        let wrong_percent = budget(85_000, 100_000, 5_000, BudgetLevel::Safe);
        assert!(validate(&ToolOutput::BudgetStatus(wrong_percent)).is_err());
        let absurd = budget(85_000_000, 1, 850_000_000, BudgetLevel::Exceeded);
        assert!(validate(&ToolOutput::BudgetStatus(absurd)).is_err());
    }

    #[test]
    fn more_than_twenty_anomalies_means_the_detection_failed() {
        let anomaly = |id| Anomaly {
            line: line(id, 90_000),
            typical_cents: 20_000,
            severity: Severity::High,
        };
        let ok = Anomalies {
            source: source(),
            items: (0..20).map(anomaly).collect(),
        };
        assert_eq!(validate(&ToolOutput::Anomalies(ok)), Ok(()));
        let too_many = Anomalies {
            source: source(),
            items: (0..21).map(anomaly).collect(),
        };
        let err = validate(&ToolOutput::Anomalies(too_many)).unwrap_err();
        assert!(err.0.contains("21 anomalies"));
        let below = Anomalies {
            source: source(),
            items: vec![Anomaly {
                typical_cents: 100_000,
                ..anomaly(1)
            }],
        };
        assert!(validate(&ToolOutput::Anomalies(below)).is_err());
    }

    #[test]
    fn predictions_trends_searches_and_debts_are_checked() {
        let prediction = Prediction {
            source: source(),
            month: day(1),
            category: None,
            spent_so_far_cents: 50_000,
            predicted_cents: 40_000,
            confidence: Confidence::Low,
        };
        assert!(validate(&ToolOutput::Prediction(prediction)).is_err());
        let months = vec![
            MonthTotal {
                month: day(1),
                total_cents: 100_000,
            },
            MonthTotal {
                month: day(1),
                total_cents: 150_000,
            },
        ];
        let trends = Trends {
            source: source(),
            category: None,
            months: months.clone(),
            direction: Trend::Increasing,
            change_bp: 5_000,
        };
        assert_eq!(validate(&ToolOutput::Trends(trends.clone())), Ok(()));
        let wrong = Trends {
            direction: Trend::Decreasing,
            ..trends
        };
        assert!(validate(&ToolOutput::Trends(wrong)).is_err());
        let unranked = Search {
            source: source(),
            query: "comida".into(),
            categories: vec![],
            items: vec![
                Found {
                    line: line(1, 100),
                    confidence_bp: 3_000,
                },
                Found {
                    line: line(2, 100),
                    confidence_bp: 9_000,
                },
            ],
        };
        assert!(validate(&ToolOutput::Search(unranked)).is_err());
        let debts = Debts {
            items: vec![DebtLine {
                name: "Juan".into(),
                balance_cents: 300_000,
                minimum_cents: None,
                due_day: None,
            }],
            total_cents: 250_000,
            owed_to_me: Vec::new(),
            owed_to_me_total_cents: 0,
        };
        assert!(validate(&ToolOutput::Debts(debts)).is_err());
    }
}
