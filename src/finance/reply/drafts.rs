//! Drafts in Spanish: the questions still open, the single explicit
//! confirmation prompt of a pending write, and what was done once confirmed.

use super::super::core::amount::pesos;
use super::super::core::category;
use super::super::core::draft::{Draft, Field, Intent, TxKind, Write};
use super::super::core::matrix::Rejection;
use super::super::core::state::FinanceState;
use super::super::messages;

fn label(key: &str) -> &str {
    category::by_key(key).map_or(key, |c| c.label)
}

fn budget_scope(category: Option<&str>) -> String {
    category.map_or_else(|| "gastos variables".to_owned(), |k| label(k).to_owned())
}

/// The open questions of a draft, one per line.
pub fn questions(draft: &Draft) -> String {
    let income = draft.kind == Some(TxKind::Income);
    let mut lines: Vec<String> = Vec::new();
    if draft.intent == Intent::SetBankBalance
        && let Some(sim) = &draft.resume
        && let Some(amount) = sim.amount_cents
    {
        lines.push(format!(
            "Para saber si te alcanza la compra de {}, necesito tu saldo en el banco.",
            pesos(amount)
        ));
    }
    for field in &draft.questions {
        lines.push(match (&draft.debt.name, field) {
            // Money owed to the person: who owes it, and how much.
            (_, Field::DebtName) if draft.debt.owed_to_me => messages::WHO_OWES_YOU.into(),
            (Some(name), Field::DebtChange) if draft.debt.owed_to_me => {
                messages::owed_amount_question(name)
            }
            // «le debo a mi tía lo de los boletos»: what is asked is how much.
            (Some(name), Field::DebtChange) => messages::debt_amount_question(name),
            _ => messages::question(draft.intent, *field, income),
        });
    }
    lines.join("\n")
}

/// The confirmation prompt of a complete write. `debt_balance` is the current
/// balance of the debt a payment goes to.
pub fn prompt(draft: &Draft, debt_balance: Option<i64>) -> String {
    let mut lines = Vec::new();
    match draft.intent {
        Intent::LogTransaction => {
            let income = draft.kind == Some(TxKind::Income);
            lines.push(format!(
                "¿Registro este {}?",
                if income { "ingreso" } else { "gasto" }
            ));
            if let Some(amount) = draft.amount_cents {
                lines.push(format!("• Monto: {}", pesos(amount)));
            }
            if let Some(key) = &draft.category {
                let kind = draft.category_type.map_or(String::new(), |t| {
                    format!(" ({})", messages::category_type(t))
                });
                lines.push(format!("• Categoría: {}{kind}", label(key)));
            }
            if let Some(date) = draft.date {
                lines.push(format!("• Fecha: {}", date.format("%Y-%m-%d")));
            }
            if let Some(description) = draft.description.as_deref().filter(|d| !d.is_empty()) {
                lines.push(format!("• Concepto: {description}"));
            }
            if draft.learned_category {
                lines.push("(La categoría la aprendí de tus correcciones.)".into());
            }
            if let Some(dup) = &draft.duplicate {
                lines.push(format!(
                    "Ojo: ya registraste {} el {} («{}»). ¿Es un gasto distinto?",
                    pesos(dup.amount_cents),
                    dup.date.format("%Y-%m-%d"),
                    dup.description
                ));
            }
        }
        Intent::SetBudget => {
            if let (Some(amount), Some(date)) = (draft.amount_cents, draft.date) {
                lines.push(format!(
                    "¿Fijo tu presupuesto mensual de {} en {} a partir de {}?",
                    budget_scope(draft.category.as_deref()),
                    pesos(amount),
                    date.format("%Y-%m")
                ));
            }
        }
        Intent::ManageDebt if draft.debt.owed_to_me => {
            let name = draft.debt.name.as_deref().unwrap_or("");
            if let Some(payment) = draft.debt.payment_cents {
                let mut line = format!("¿Anoto que {name} te pagó {}?", pesos(payment));
                if let Some(balance) = debt_balance {
                    line.push_str(&format!(
                        " Te quedaría debiendo {}.",
                        pesos((balance - payment).max(0))
                    ));
                }
                lines.push(line);
            } else if let Some(balance) = draft.debt.balance_cents {
                lines.push(format!("¿Anoto que {name} te debe {}?", pesos(balance)));
            }
        }
        Intent::ManageDebt => {
            let name = draft.debt.name.as_deref().unwrap_or("");
            match draft.debt.payment_cents {
                Some(payment) => {
                    let mut line = format!(
                        "¿Registro un pago de {} a tu deuda con {name}?",
                        pesos(payment)
                    );
                    if let Some(balance) = debt_balance {
                        line.push_str(&format!(
                            " Te quedarían {}.",
                            pesos((balance - payment).max(0))
                        ));
                    }
                    lines.push(line);
                }
                None => {
                    lines.push(format!("¿Guardo tu deuda con {name}?"));
                    if let Some(balance) = draft.debt.balance_cents {
                        lines.push(format!("• Debes: {}", pesos(balance)));
                    }
                    if let Some(minimum) = draft.debt.minimum_cents {
                        lines.push(format!("• Pago mínimo: {}", pesos(minimum)));
                    }
                    if let Some(day) = draft.debt.due_day {
                        lines.push(format!("• Día de pago: {day}"));
                    }
                }
            }
        }
        Intent::SetBankBalance => {
            if let Some(amount) = draft.amount_cents {
                let mut line = format!("¿Registro tu saldo en el banco en {}?", pesos(amount));
                if let Some(amount) = draft.resume.as_ref().and_then(|s| s.amount_cents) {
                    line.push_str(&format!(" Después simulo tu compra de {}.", pesos(amount)));
                }
                lines.push(line);
            }
        }
        Intent::CorrectCategory => {
            if let (Some(from), Some(to)) = (&draft.from_category, &draft.category) {
                let mut what = format!("«{}»", draft.description.as_deref().unwrap_or(""));
                if let (Some(amount), Some(date)) = (draft.amount_cents, draft.date) {
                    what.push_str(&format!(
                        " ({}, {})",
                        pesos(amount),
                        date.format("%Y-%m-%d")
                    ));
                }
                lines.push(format!(
                    "¿Cambio la categoría de {what} de {} a {}?",
                    label(from),
                    label(to)
                ));
            }
        }
        Intent::EraseMyData => {
            lines.push("¿Borro todos tus datos de este asistente?".into());
            lines.push(
                "Se borran para siempre tus movimientos, presupuestos, deudas, tu saldo, lo que aprendí de tus categorías y esta conversación. No se puede deshacer."
                    .into(),
            );
        }
        Intent::QueryData | Intent::SimulatePurchase => {}
    }
    if let Some(next) = draft.then.as_deref() {
        let what = if next.kind == Some(TxKind::Income) {
            "ingreso"
        } else {
            "gasto"
        };
        // (One whose amount is still to ask — said in another currency — is
        // named without it.)
        lines.push(match next.amount_cents.map(pesos) {
            Some(amount) => format!("(Después te pregunto por el {what} de {amount}.)"),
            None => format!("(Después te pregunto por el otro {what}.)"),
        });
    }
    lines.push(messages::ANSWER_PROMPT.into());
    lines.join("\n")
}

/// What an executed write did. `debt_after` is a paid debt's balance afterwards;
/// `learned` the merchant whose rule this correction taught.
pub fn executed(write: &Write, debt_after: Option<i64>, learned: Option<&str>) -> String {
    match write {
        Write::LogTransaction {
            kind,
            amount_cents,
            category,
            date,
            ..
        } => format!(
            "Listo, registré tu {} de {} en {} ({}).",
            if *kind == TxKind::Income {
                "ingreso"
            } else {
                "gasto"
            },
            pesos(*amount_cents),
            label(category),
            date.format("%Y-%m-%d")
        ),
        Write::SetBudget {
            category,
            starts_on,
            cap_cents,
        } => format!(
            "Listo, tu presupuesto mensual de {} es {} desde {}.",
            budget_scope(*category),
            pesos(*cap_cents),
            starts_on.format("%Y-%m")
        ),
        Write::SetDebt { name, .. } => format!("Listo, guardé tu deuda con {name}."),
        Write::SetReceivable {
            name,
            balance_cents,
        } => format!("Listo, anoté que {name} te debe {}.", pesos(*balance_cents)),
        Write::ReceivablePayment { name, amount_cents } => {
            let mut text = format!(
                "Listo, anoté que {name} te pagó {}.",
                pesos(*amount_cents)
            );
            match debt_after {
                Some(0) => text.push_str(" Ya no te debe nada."),
                Some(after) => text.push_str(&format!(" Todavía te debe {}.", pesos(after))),
                None => {}
            }
            text
        }
        Write::DebtPayment { name, amount_cents } => {
            let mut text = format!(
                "Listo, registré tu pago de {} a {name}.",
                pesos(*amount_cents)
            );
            if let Some(after) = debt_after {
                text.push_str(&format!(" Saldo restante: {}.", pesos(after)));
            }
            text
        }
        Write::SetBankBalance { balance_cents } => format!(
            "Listo, tu saldo en el banco quedó en {}.",
            pesos(*balance_cents)
        ),
        Write::CorrectCategory { to, .. } => {
            let mut text = format!("Listo, lo cambié a {}.", label(to));
            if let Some(merchant) = learned {
                text.push_str(&format!(
                    " Aprendí que «{merchant}» va en {}: así lo registraré la próxima vez.",
                    label(to)
                ));
            }
            text
        }
        Write::EraseMyData => "Listo, borré todos tus datos de este asistente. Si vuelves a escribir, empiezas de cero.".into(),
    }
}

/// The answer to an action the matrix refused.
pub fn rejection(rejection: &Rejection, state: FinanceState, draft: Option<&Draft>) -> String {
    match rejection {
        Rejection::Forbidden(_) => messages::FORBIDDEN.into(),
        Rejection::UnknownType(_) | Rejection::TooManyActions | Rejection::InvalidParam { .. } => {
            messages::NOT_UNDERSTOOD.into()
        }
        Rejection::NotAllowedInState { state: at, .. } => match (at, draft) {
            (FinanceState::Clarifying, Some(draft)) => {
                format!("{}\n{}", questions(draft), messages::RESTART_HINT)
            }
            (FinanceState::AwaitingConfirmation, _) => messages::ASK_AGAIN.into(),
            _ if state == FinanceState::Idle => messages::NOTHING_TO_CANCEL.into(),
            _ => messages::NOT_UNDERSTOOD.into(),
        },
        Rejection::AmountOutOfRange { .. } => messages::AMOUNT_RANGE.into(),
        Rejection::AmountNotStated { .. } => messages::STATE_AMOUNT.into(),
        Rejection::DateOutOfRange { planned: true, .. } => messages::DATE_RANGE_FUTURE.into(),
        Rejection::DateOutOfRange { planned: false, .. } => messages::DATE_RANGE_PAST.into(),
        Rejection::CategoryKindMismatch => messages::KIND_MISMATCH.into(),
        Rejection::ReceivableNotFound(name) => format!(
            "No tengo anotado que {name} te deba dinero. Para anotarlo dime cuánto te debe, por ejemplo «{name} me debe 500»."
        ),
        Rejection::DebtNotFound(name) => format!(
            "No tienes una deuda registrada con {name}. Para guardarla dime cuánto le debes, por ejemplo «le debo 3000 a {name}»."
        ),
        Rejection::DueDayOutOfRange(_) => messages::DUE_DAY_RANGE.into(),
        Rejection::NoTransactionToCorrect => messages::NOTHING_TO_CORRECT.into(),
        Rejection::SameCategory => "Ese movimiento ya está en esa categoría.".into(),
        Rejection::NoTools => messages::NO_TOOLS.into(),
        Rejection::NothingToPatch => match draft {
            Some(draft) => format!("{}\n{}", questions(draft), messages::RESTART_HINT),
            None => messages::NOT_UNDERSTOOD.into(),
        },
    }
}
