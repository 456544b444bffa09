//! Tool results in Spanish. Every figure comes from the result itself, and every
//! result that has figures says what they are based on.

use super::super::core::amount::pesos;
use super::super::core::category;
use super::super::core::output::{
    BudgetLevel, BudgetStatus, Confidence, Severity, SpendingPattern, ToolOutput, Trend,
};
use super::super::core::simulate::{Simulation, Verdict};
use super::source::{percent, source_line};

fn label(key: &str) -> &str {
    category::by_key(key).map_or(key, |c| c.label)
}

fn scope(category: Option<&str>, variable: bool) -> String {
    match category {
        Some(key) => label(key).to_owned(),
        None if variable => "gastos variables".into(),
        None => "todas las categorías".into(),
    }
}

fn trend_words(trend: Trend) -> &'static str {
    match trend {
        Trend::Increasing => "subió",
        Trend::Decreasing => "bajó",
        Trend::Stable => "se mantuvo estable",
    }
}

pub fn render(output: &ToolOutput) -> String {
    match output {
        ToolOutput::Query(q) => super::query::render(q),
        ToolOutput::SpendingPattern(p) => pattern(p),
        ToolOutput::BudgetStatus(b) => budget(b),
        ToolOutput::Anomalies(a) => {
            let (from, to) = (
                a.source.from.format("%Y-%m-%d"),
                a.source.to.format("%Y-%m-%d"),
            );
            if a.items.is_empty() {
                return format!(
                    "No encontré gastos inusuales del {from} al {to}.\n{}",
                    source_line(&a.source)
                );
            }
            let mut lines = vec![format!(
                "Gastos inusuales del {from} al {to} (muy por encima de lo que sueles gastar en su categoría):"
            )];
            for x in &a.items {
                let severity = match x.severity {
                    Severity::High => "alta",
                    Severity::Medium => "media",
                    Severity::Low => "baja",
                };
                lines.push(format!(
                    "• {} {} ({}): {}; lo usual es {}. Severidad {severity}.",
                    x.line.date.format("%Y-%m-%d"),
                    x.line.description,
                    label(&x.line.category),
                    pesos(x.line.amount_cents),
                    pesos(x.typical_cents)
                ));
            }
            lines.push(source_line(&a.source));
            lines.join("\n")
        }
        ToolOutput::Prediction(p) => {
            let confidence = match p.confidence {
                Confidence::High => "alta",
                Confidence::Medium => "media",
                Confidence::Low => "baja",
            };
            format!(
                "A tu ritmo habitual, cerrarías {} con unos {} en {} (llevas {} hasta hoy). Confianza: {confidence}.\n{}",
                p.month.format("%Y-%m"),
                pesos(p.predicted_cents),
                scope(p.category.as_deref(), true),
                pesos(p.spent_so_far_cents),
                source_line(&p.source)
            )
        }
        ToolOutput::Trends(t) => {
            let mut lines = vec![format!(
                "Tus gastos por mes en {}:",
                scope(t.category.as_deref(), false)
            )];
            for m in &t.months {
                lines.push(format!(
                    "• {}: {}",
                    m.month.format("%Y-%m"),
                    pesos(m.total_cents)
                ));
            }
            let direction = match t.direction {
                Trend::Increasing => "van al alza",
                Trend::Decreasing => "van a la baja",
                Trend::Stable => "se mantienen estables",
            };
            let sign = if t.change_bp > 0 { "+" } else { "" };
            lines.push(format!(
                "Tus gastos {direction} ({sign}{} del primer al último mes).",
                percent(t.change_bp)
            ));
            lines.push(source_line(&t.source));
            lines.join("\n")
        }
        ToolOutput::Search(s) => {
            let mut head = format!("Los gastos que más se parecen a «{}»", s.query);
            if s.categories.len() > 1 {
                let names: Vec<&str> = s.categories.iter().map(|c| label(c)).collect();
                head.push_str(&format!(" (busqué en {})", names.join(", ")));
            }
            head.push(':');
            let mut lines = vec![head];
            for f in &s.items {
                lines.push(format!(
                    "• {} {} [{}]: {}",
                    f.line.date.format("%Y-%m-%d"),
                    f.line.description,
                    label(&f.line.category),
                    pesos(f.line.amount_cents)
                ));
            }
            lines.push(source_line(&s.source));
            lines.join("\n")
        }
        ToolOutput::Balance(b) => format!(
            "Tu saldo en el banco es {} (lo registraste el {}).",
            pesos(b.balance_cents),
            b.as_of.format("%Y-%m-%d")
        ),
        ToolOutput::Debts(d) => {
            let mut lines = Vec::new();
            if d.items.is_empty() {
                lines.push("No tienes deudas registradas.".to_string());
            } else {
                lines.push("Tus deudas:".to_string());
                for x in &d.items {
                    let mut line = format!("• {}: {}", x.name, pesos(x.balance_cents));
                    if let Some(min) = x.minimum_cents {
                        line.push_str(&format!(", pago mínimo {}", pesos(min)));
                    }
                    if let Some(day) = x.due_day {
                        line.push_str(&format!(", el día {day}"));
                    }
                    lines.push(line);
                }
                lines.push(format!("Total: {}", pesos(d.total_cents)));
            }
            if !d.owed_to_me.is_empty() {
                lines.push("Te deben:".to_string());
                for x in &d.owed_to_me {
                    lines.push(format!("• {}: {}", x.name, pesos(x.balance_cents)));
                }
                lines.push(format!(
                    "Total que te deben: {}",
                    pesos(d.owed_to_me_total_cents)
                ));
            }
            lines.join("\n")
        }
    }
}

fn pattern(p: &SpendingPattern) -> String {
    let mut lines = vec![format!(
        "Gastos en {} del {} al {}: {} en {} movimientos (promedio diario {}).",
        scope(p.category.as_deref(), false),
        p.source.from.format("%Y-%m-%d"),
        p.source.to.format("%Y-%m-%d"),
        pesos(p.total_cents),
        p.count,
        pesos(p.daily_average_cents)
    )];
    lines.push(format!(
        "Frente al periodo anterior ({}), tu gasto {}.",
        pesos(p.previous_total_cents),
        trend_words(p.trend)
    ));
    if p.by_category.len() > 1 {
        lines.push("Por categoría:".into());
        for c in &p.by_category {
            lines.push(format!(
                "• {}: {}",
                label(&c.category),
                pesos(c.total_cents)
            ));
        }
    }
    if !p.top.is_empty() {
        lines.push("Los más grandes:".into());
        for l in &p.top {
            lines.push(format!(
                "• {} {} ({}): {}",
                l.date.format("%Y-%m-%d"),
                l.description,
                label(&l.category),
                pesos(l.amount_cents)
            ));
        }
    }
    lines.push(source_line(&p.source));
    lines.join("\n")
}

fn budget(b: &BudgetStatus) -> String {
    let what = scope(b.category.as_deref(), true);
    let month = b.month.format("%Y-%m");
    let mut lines = Vec::new();
    match &b.cap {
        Some(cap) => {
            let status = match cap.status {
                BudgetLevel::Safe => "vas bien",
                BudgetLevel::Warning => "estás cerca del límite",
                BudgetLevel::Exceeded => "ya te pasaste del límite",
            };
            lines.push(format!(
                "Presupuesto de {what} en {month}: llevas {} de {} ({}), {status}.",
                pesos(b.spent_cents),
                pesos(cap.cap_cents),
                percent(cap.used_bp)
            ));
            if cap.remaining_cents >= 0 {
                lines.push(format!("Te quedan {}.", pesos(cap.remaining_cents)));
            } else {
                lines.push(format!("Te pasaste por {}.", pesos(-cap.remaining_cents)));
            }
        }
        None => lines.push(format!(
            "En {month} llevas {} en {what}. No tienes presupuesto definido; puedes ponerlo con «pon mi presupuesto en 8000».",
            pesos(b.spent_cents)
        )),
    }
    if b.projected_cents != b.spent_cents {
        lines.push(format!(
            "A este ritmo cerrarías el mes en {}.",
            pesos(b.projected_cents)
        ));
    }
    lines.push(source_line(&b.source));
    lines.join("\n")
}

pub fn simulation(sim: &Simulation, balance_as_of: Option<chrono::NaiveDate>) -> String {
    let (amount, balance) = (pesos(sim.amount_cents), pesos(sim.balance_cents));
    let mut lines = vec![match sim.verdict {
        Verdict::Affordable if sim.upcoming_cents > 0 => format!(
            "Sí te alcanza: con tu saldo de {balance}, después de la compra de {amount} te quedarían {}, y {} tras tus pagos mínimos pendientes de {}.",
            pesos(sim.after_purchase_cents),
            pesos(sim.free_cents),
            pesos(sim.upcoming_cents)
        ),
        Verdict::Affordable => format!(
            "Sí te alcanza: con tu saldo de {balance}, después de la compra de {amount} te quedarían {}.",
            pesos(sim.after_purchase_cents)
        ),
        Verdict::TightWithPayments => format!(
            "Te alcanza para la compra de {amount}, pero te quedarían {} y tienes pagos mínimos pendientes de {} este mes: te faltarían {}.",
            pesos(sim.after_purchase_cents),
            pesos(sim.upcoming_cents),
            pesos(-sim.free_cents)
        ),
        Verdict::NotAffordable => format!(
            "No te alcanza: tu saldo es {balance} y la compra es de {amount}; te faltarían {}.",
            pesos(-sim.after_purchase_cents)
        ),
    }];
    if let Some(budget) = &sim.budget {
        let what = scope(budget.category.as_deref(), true);
        lines.push(format!(
            "Tu presupuesto de {what} del mes es {}: llevas {} y con esta compra llegarías a {}{}.",
            pesos(budget.cap_cents),
            pesos(budget.spent_cents),
            pesos(budget.spent_after_cents),
            if budget.exceeded {
                ", por encima del límite"
            } else {
                ""
            }
        ));
    }
    let mut basis = "(el efectivo disponible es solo tu saldo en el banco".to_string();
    if let Some(date) = balance_as_of {
        basis.push_str(&format!(", registrado el {}", date.format("%Y-%m-%d")));
    }
    basis.push(')');
    lines.push(basis);
    lines.join("\n")
}
