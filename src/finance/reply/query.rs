//! A queryTransactions result in Spanish: what was looked for, the figure asked
//! (a total, a count, an average, the rows, the groups or a comparison), every
//! figure taken from the result, the steps taken when the question as asked
//! found nothing, and the source line.

use super::super::core::amount::pesos;
use super::super::core::category;
use super::super::core::output::{QueryResult, Relaxation};
use super::super::core::query::{Flow, GroupBy, Measure, Order, QueryPlan, WEEKDAY_LABELS};
use super::source::{percent, source_line};

/// "gastos en restaurantes con «uber» los sábados de $100.00 a $500.00".
pub fn subject(plan: &QueryPlan) -> String {
    let mut out = String::from(match plan.flow {
        Flow::Expense => "gastos",
        Flow::Income => "ingresos",
    });
    if let Some(c) = plan.category.as_deref().and_then(category::by_key) {
        out.push_str(&format!(" en {}", c.label));
    }
    if let Some(text) = &plan.text {
        out.push_str(&format!(" de «{text}»"));
    }
    if let Some(day) = plan.weekday.and_then(|d| WEEKDAY_LABELS.get(d as usize)) {
        out.push_str(&format!(" en {day}"));
    }
    match (plan.min_cents, plan.max_cents) {
        (Some(min), Some(max)) => out.push_str(&format!(" de {} a {}", pesos(min), pesos(max))),
        (Some(min), None) => out.push_str(&format!(" de {} o más", pesos(min))),
        (None, Some(max)) => out.push_str(&format!(" de hasta {}", pesos(max))),
        (None, None) => {}
    }
    out
}

fn noun(count: i64) -> &'static str {
    if count == 1 {
        "movimiento"
    } else {
        "movimientos"
    }
}

fn group_title(group: GroupBy) -> &'static str {
    match group {
        GroupBy::Day => "Por día",
        GroupBy::Weekday => "Por día de la semana",
        GroupBy::Week => "Por semana",
        GroupBy::Month => "Por mes",
        GroupBy::Category => "Por categoría",
        GroupBy::Merchant => "Por comercio",
    }
}

pub fn render(q: &QueryResult) -> String {
    let plan = &q.plan;
    let what = subject(plan);
    let mut lines = Vec::new();
    for step in &q.relaxed {
        lines.push(match step {
            Relaxation::Spelling { asked, found } => format!(
                "No encontré «{asked}» tal cual; busqué {}.",
                found
                    .iter()
                    .map(|f| format!("«{f}»"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Relaxation::Category { asked, category } => format!(
                "No encontré movimientos con «{asked}»; te muestro la categoría {category}."
            ),
            Relaxation::WiderRange { asked } => {
                format!("No encontré {what} {asked}; busqué en todo tu historial.")
            }
        });
    }
    if q.count == 0 {
        lines.push(format!(
            "No encontré {what} {}. No tengo ese dato en tus registros.",
            q.period
        ));
        if let Some(c) = &q.compare
            && c.count > 0
        {
            lines.push(period_line(c));
        }
        return lines.join("\n");
    }
    let total = format!("{} en {} {}", pesos(q.total_cents), q.count, noun(q.count));
    match plan.measure {
        Measure::Sum => lines.push(format!(
            "{} {}: {total}.",
            crate::text::capitalized(&what),
            q.period
        )),
        Measure::Count => lines.push(format!(
            "{} {}: {} {} (en total {}).",
            crate::text::capitalized(&what),
            q.period,
            q.count,
            noun(q.count),
            pesos(q.total_cents)
        )),
        Measure::Average => lines.push(format!(
            "{} {}: en promedio {} por movimiento ({total}).",
            crate::text::capitalized(&what),
            q.period,
            pesos(q.average_cents)
        )),
        Measure::List => {
            let kind = match (plan.order, q.rows.len()) {
                (Order::AmountDesc, 1) => "El más grande",
                (Order::AmountDesc, _) => "Los más grandes",
                (Order::AmountAsc, 1) => "El más pequeño",
                (Order::AmountAsc, _) => "Los más pequeños",
                (Order::DateDesc, _) => "Los más recientes",
                (Order::DateAsc, _) => "Los primeros",
            };
            lines.push(format!(
                "{} {} ({total}). {kind}:",
                crate::text::capitalized(&what),
                q.period
            ));
        }
    }
    if let Some(c) = &q.compare {
        let change = match c.change_bp {
            Some(bp) if bp > 0 => format!(", {} más", percent(bp)),
            Some(bp) if bp < 0 => format!(", {} menos", percent(-bp)),
            _ => String::new(),
        };
        let direction = if c.difference_cents > 0 {
            "más"
        } else {
            "menos"
        };
        lines.push(period_line(c));
        if c.difference_cents == 0 {
            lines.push("Es lo mismo en los dos periodos.".into());
        } else {
            lines.push(format!(
                "Diferencia: {} {direction} {}{change}.",
                pesos(c.difference_cents.abs()),
                q.period
            ));
        }
    }
    if let Some(group) = plan.group_by {
        if let Some(top) = q.groups.first() {
            lines.push(format!(
                "Donde más: {} con {} ({} {}).",
                top.label,
                pesos(top.total_cents),
                top.count,
                noun(top.count)
            ));
        }
        lines.push(format!("{}:", group_title(group)));
        for g in &q.groups {
            lines.push(format!(
                "• {}: {} ({})",
                g.label,
                pesos(g.total_cents),
                g.count
            ));
        }
    }
    let show_rows = plan.measure == Measure::List
        || (plan.group_by.is_none() && plan.compare.is_none() && q.count <= 3);
    if show_rows {
        for l in &q.rows {
            lines.push(format!(
                "• {} {} ({}): {}",
                l.date.format("%Y-%m-%d"),
                l.description,
                category::by_key(&l.category).map_or(l.category.as_str(), |c| c.label),
                pesos(l.amount_cents)
            ));
        }
    }
    lines.push(source_line(&q.source));
    lines.join("\n")
}

/// "El mes pasado (octubre de 2026): $1,234.00 en 8 movimientos."
fn period_line(c: &super::super::core::output::QueryComparison) -> String {
    format!(
        "{}: {} en {} {}.",
        crate::text::capitalized(&c.period),
        pesos(c.total_cents),
        c.count,
        noun(c.count)
    )
}
