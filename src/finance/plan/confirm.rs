//! A write waits for the user's own token. Only the exact allowlists confirm or
//! reject; anything else asks again and writes nothing. No proposer is consulted:
//! a model can never say "sí" for the user.

use serde_json::json;

use super::simulate;
use super::{Deps, FinancePlan};
use crate::audit::{Actor, Entry, Kind};
use crate::finance::context::UserContext;
use crate::finance::core::confirm::{self, Answer};
use crate::finance::core::{Confirmation, Draft, FinanceState, Write, on_answer};
use crate::finance::learning::CORRECTIONS_TO_LEARN;
use crate::finance::{messages, reply};
use crate::text::normalize;

pub async fn answer(
    deps: &Deps<'_>,
    plan: &mut FinancePlan,
    ctx: &UserContext,
    pending: &Draft,
    text: &str,
) -> anyhow::Result<()> {
    let answer = match confirm::answer(text) {
        Answer::Other if cancels(text) => Answer::Reject,
        answer => answer,
    };
    let heard = match answer {
        Answer::Confirm => "confirm",
        Answer::Reject => "reject",
        Answer::Other => "other",
    };
    plan.audit.push(
        Entry::new(Actor::Customer, Kind::ConfirmationAnswer)
            .action(pending.intent.as_str())
            .reason(heard),
    );
    match on_answer(pending, answer) {
        Confirmation::AskAgain => {
            // «No, eran 350»: the user's own figure replaces the draft's, and
            // the new draft is asked again; nothing is written.
            if let Some(fixed) = corrected_amount(pending, text) {
                plan.audit.push(
                    Entry::new(Actor::Customer, Kind::DraftPatched)
                        .action(pending.intent.as_str())
                        .detail(json!({"amount_cents": fixed
                            .amount_cents
                            .or(fixed.debt.balance_cents)
                            .or(fixed.debt.payment_cents)})),
                );
                plan.reply = Some(reply::prompt(&fixed, None));
                plan.move_to(
                    FinanceState::AwaitingConfirmation,
                    Some(fixed),
                    Actor::Customer,
                    "amount corrected",
                );
            } else {
                plan.reply = Some(messages::ASK_AGAIN.into());
            }
        }
        Confirmation::Cancelled { intent } => {
            plan.audit
                .push(Entry::new(Actor::Customer, Kind::WriteCancelled).action(intent.as_str()));
            plan.move_to(FinanceState::Idle, None, Actor::Customer, "rejected");
            // «cancela», «cancela todo»: the whole message's writes, not only
            // the one asked (a «no» or «olvídalo» answers this one).
            let mut queued = pending.then.as_deref();
            if queued.is_some() && cancels_all(text) {
                while let Some(next) = queued {
                    plan.audit.push(
                        Entry::new(Actor::Customer, Kind::WriteCancelled)
                            .action(next.intent.as_str())
                            .reason("queued"),
                    );
                    queued = next.then.as_deref();
                }
                plan.reply = Some(messages::CANCELLED_ALL.into());
            } else {
                plan.reply = Some(messages::CANCELLED.into());
                ask_next(plan, pending);
            }
        }
        Confirmation::Unusable => {
            plan.audit.push(
                Entry::new(Actor::Backend, Kind::DraftDiscarded).reason("not a complete write"),
            );
            plan.move_to(FinanceState::Idle, None, Actor::Backend, "unusable draft");
            plan.reply = Some(messages::NOT_UNDERSTOOD.into());
        }
        Confirmation::Execute {
            write,
            then_simulate,
        } => {
            let (text, debt_after) = executed(ctx, &write);
            let mut blocks = vec![text];
            plan.audit.push(
                Entry::new(Actor::Backend, Kind::WriteExecuted)
                    .action(write.name())
                    .detail(json!({"write": write, "debt_after": debt_after})),
            );
            plan.writes.push(write.clone());
            plan.move_to(FinanceState::Idle, None, Actor::Customer, "confirmed");
            if let (Some(purchase), Write::SetBankBalance { balance_cents }) =
                (then_simulate, &write)
            {
                let as_of = Some(ctx.today);
                let (sim, entry) =
                    simulate::run(deps, ctx, &purchase, Some(*balance_cents), as_of).await;
                plan.audit.push(entry);
                blocks.push(reply::simulation(&sim, as_of));
            }
            plan.reply = Some(blocks.join("\n\n"));
            ask_next(plan, pending);
        }
    }
    Ok(())
}

/// Whether `text` answers the pending prompt here: a yes or a no (exact
/// tokens; a no may also be said in words, since rejecting writes nothing), or a
/// new amount. Anything else goes to the proposer as a correction or a new request.
pub fn settles(pending: &Draft, text: &str) -> bool {
    confirm::answer(text) != Answer::Other
        || cancels(text)
        || corrected_amount(pending, text).is_some()
}

/// «no, cancela», «mejor no lo anotes», «olvídalo»: a rejection in words, with no
/// amount in it (an amount makes it a correction).
fn cancels(text: &str) -> bool {
    use crate::finance::core::amount::amounts_in;
    let folded = normalize(text);
    let words: Vec<&str> = folded.split(' ').collect();
    let cancel_word = words.iter().any(|w| {
        matches!(
            *w,
            "cancela"
                | "cancelar"
                | "cancelalo"
                | "cancelala"
                | "olvidalo"
                | "olvidala"
                | "borralo"
                | "borrala"
                | "descartalo"
                | "descartala"
        )
    });
    let dont = [
        "no lo anotes",
        "no lo registres",
        "no la anotes",
        "no la registres",
        "mejor no",
    ]
    .iter()
    .any(|p| crate::text::contains_phrase(&folded, p));
    // «no, todavía no la pago»: a no, and why — the thing has not happened yet.
    let not_yet = words.first() == Some(&"no")
        && [
            "todavia no",
            "aun no",
            "no he",
            "no lo he",
            "no la he",
            "no los he",
        ]
        .iter()
        .any(|p| crate::text::contains_phrase(&folded, p));
    (cancel_word || dont || not_yet) && amounts_in(&folded).is_empty()
}

/// «cancela», «cancelar», «cancela todo», «no, mejor nada»: every write of the
/// message dropped — a bare cancel, or one that says all; «no», «olvídalo»,
/// «cancela ese» answer the one asked.
fn cancels_all(text: &str) -> bool {
    let folded = normalize(text);
    let words: Vec<&str> = folded.split(' ').filter(|w| !w.is_empty()).collect();
    // («ese no lo anotes, todo lo demás sí»: the rest is kept.)
    let the_rest = [
        "lo demas",
        "los demas",
        "las demas",
        "el resto",
        "lo otro",
        "los otros",
    ]
    .iter()
    .any(|p| crate::text::contains_phrase(&folded, p));
    let all = !the_rest
        && words.iter().any(|w| {
            matches!(
                *w,
                "todo" | "todos" | "todas" | "nada" | "ninguno" | "ninguna"
            )
        });
    let bare = words.iter().all(|w| {
        matches!(
            *w,
            "cancela" | "cancelar" | "mejor" | "no" | "porfa" | "por" | "favor" | "ya"
        )
    }) && words.iter().any(|w| w.starts_with("cancel"));
    bare || all && (cancels(text) || words.first() == Some(&"no"))
}

/// The write queued behind the one just answered, asked now.
fn ask_next(plan: &mut FinancePlan, answered: &Draft) {
    let Some(next) = answered.then.as_deref() else {
        return;
    };
    plan.audit.push(
        Entry::new(Actor::Backend, Kind::ConfirmationAsked)
            .action(next.intent.as_str())
            .detail(json!({"draft": next, "queued": true})),
    );
    let (state, asked) = if next.questions.is_empty() {
        (
            FinanceState::AwaitingConfirmation,
            reply::prompt(next, None),
        )
    } else {
        (FinanceState::Clarifying, reply::questions(next))
    };
    plan.reply = Some(match plan.reply.take() {
        Some(done) => format!("{done}\n\n{asked}"),
        None => asked,
    });
    plan.move_to(
        state,
        Some(next.clone()),
        Actor::Backend,
        "the next write of the message",
    );
}

/// What the user reads once the write is done, with what the backend knows now,
/// and a paid debt's balance afterwards.
fn executed(ctx: &UserContext, write: &Write) -> (String, Option<i64>) {
    let mut debt_after = None;
    let mut learned = None;
    match write {
        Write::DebtPayment { name, amount_cents } => {
            debt_after = ctx
                .balance_of(name, false)
                .map(|balance| (balance - amount_cents).max(0));
        }
        Write::ReceivablePayment { name, amount_cents } => {
            debt_after = ctx
                .balance_of(name, true)
                .map(|balance| (balance - amount_cents).max(0));
        }
        Write::CorrectCategory {
            to,
            merchant: Some(merchant),
            ..
        } => {
            let before = ctx.corrections_of(merchant, to);
            if before + 1 >= CORRECTIONS_TO_LEARN {
                learned = Some(merchant.as_str());
            }
        }
        _ => {}
    }
    (reply::executed(write, debt_after, learned), debt_after)
}

/// The pending draft with its amount replaced, when `text` corrects only the
/// amount («no, eran 350», «fueron 1200», «perdón, 80 pesos»): one amount, a
/// word that corrects, and nothing a write could be read from besides.
fn corrected_amount(pending: &Draft, text: &str) -> Option<Draft> {
    use crate::finance::core::amount::{self, MAX_AMOUNT_CENTS, amounts_in};
    use crate::finance::core::draft::Intent;
    // The one figure the draft holds: a debt's balance or payment when only
    // one of them is set («le debo 350 a Rosa» → «no, eran 380»).
    let debt = &pending.debt;
    let held = match pending.intent {
        Intent::LogTransaction | Intent::SetBudget | Intent::SetBankBalance => pending.amount_cents,
        Intent::ManageDebt if debt.minimum_cents.is_none() => {
            match (debt.balance_cents, debt.payment_cents) {
                (Some(held), None) | (None, Some(held)) => Some(held),
                _ => None,
            }
        }
        _ => None,
    };
    let held = held?;
    let folded = normalize(text);
    let corrects = [
        "no", "eran", "era", "fueron", "fue", "son", "perdon", "mejor", "corrijo", "espera",
    ]
    .iter()
    .any(|w| folded.split(' ').any(|t| t == *w));
    let words = folded.split(' ').count();
    // «no espera, fueron 350 de los tacos, no 300»: the old figure, denied
    // beside the new one, is not a second amount; a day («fue el día 15») or a
    // count of things («fueron 2 bolsas») is no amount at all.
    let tokens: Vec<&str> = folded.split(' ').collect();
    let found: Vec<_> = amounts_in(&folded)
        .into_iter()
        .filter(|f| {
            let before = f.start.checked_sub(1).and_then(|k| tokens.get(k)).copied();
            let after = tokens.get(f.end).copied();
            let denied_old = f.cents == held && before == Some("no");
            let a_day = matches!(before, Some("dia" | "el"));
            // «eran 300 cerrados»: a round figure, not a count of things.
            let a_count = after.is_some_and(|w| {
                w.len() > 2
                    && w.ends_with('s')
                    && !crate::finance::rules::is_money_word(w)
                    && !matches!(w, "cerrados" | "exactos" | "justos" | "redondos" | "nomas")
            });
            !denied_old && !a_day && !a_count
        })
        .collect();
    // «tengo 14,300 en el banco» while a purchase waits is a request of its own.
    let another_intent =
        pending.intent != Intent::SetBankBalance && crate::finance::rules::says_a_balance(&folded);
    // A debt's figure is corrected only said as the figure («no, eran 380»),
    // never a payment or loans told («no, ya le pagué 100», «fueron 2
    // préstamos de 100»).
    let as_the_figure = |f: &amount::Found| {
        pending.intent != Intent::ManageDebt
            || (f.start > 0
                && matches!(
                    tokens[f.start - 1],
                    "eran" | "era" | "son" | "fueron" | "es" | "no" | "perdon"
                )
                && !tokens.iter().any(|w| {
                    w.starts_with("pag")
                        || w.starts_with("prest")
                        || w.starts_with("abon")
                        || w.starts_with("devolv")
                }))
    };
    match found.as_slice() {
        [one]
            if corrects
                && as_the_figure(one)
                && !another_intent
                && words <= 10
                && (1..=MAX_AMOUNT_CENTS).contains(&one.cents) =>
        {
            let mut fixed = pending.clone();
            if pending.intent == Intent::ManageDebt {
                if fixed.debt.payment_cents.is_some() {
                    fixed.debt.payment_cents = Some(one.cents);
                } else {
                    fixed.debt.balance_cents = Some(one.cents);
                }
            } else {
                fixed.amount_cents = Some(one.cents);
            }
            Some(fixed)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finance::core::draft::Intent;

    /// «no espera, fueron 350 de los tacos, no 300»: the old figure beside the
    /// new one; «tengo 14,300 en el banco» is no correction of a purchase.
    #[test]
    fn a_correction_names_the_new_figure_and_a_balance_is_no_correction() {
        let mut pending = Draft::new(Intent::LogTransaction);
        pending.amount_cents = Some(30_000);
        let fixed = corrected_amount(&pending, "no espera fueron 350 de los tacos no 300");
        assert_eq!(fixed.and_then(|d| d.amount_cents), Some(35_000));
        assert!(corrected_amount(&pending, "no, tengo 14,300 en el banco").is_none());
        // A second movement, a day, a count of things: no new figure.
        for said in [
            "no, son 300 de tacos y 50 de refresco",
            "no espera, la fecha está mal, fue el día 15",
            "no, mejor anótalo para mañana, fueron 2 bolsas",
        ] {
            assert!(corrected_amount(&pending, said).is_none(), "{said}");
        }
        let mut budget = Draft::new(Intent::SetBudget);
        budget.amount_cents = Some(2_500_000);
        let fixed = corrected_amount(&budget, "mejor ponle 22 mil de tope general");
        assert_eq!(fixed.and_then(|d| d.amount_cents), Some(2_200_000));
        // «eran 300 cerrados»: a round figure, not 300 things.
        let fixed = corrected_amount(&pending, "no perdon eran 300 cerrados");
        assert_eq!(fixed.and_then(|d| d.amount_cents), Some(30_000));
    }

    /// «le debo 350 a Rosa» → «no, eran 380»: a debt's one figure is corrected
    /// the same way; a debt with a balance and a minimum is not guessed at.
    #[test]
    fn a_debt_s_one_figure_is_corrected_at_the_prompt() {
        let mut owed = Draft::new(Intent::ManageDebt);
        owed.debt.name = Some("Rosa".into());
        owed.debt.balance_cents = Some(35_000);
        let fixed = corrected_amount(&owed, "no, eran 380").expect("corrected");
        assert_eq!(fixed.debt.balance_cents, Some(38_000));
        assert_eq!(fixed.debt.payment_cents, None);
        let mut paid = owed.clone();
        paid.debt.balance_cents = None;
        paid.debt.payment_cents = Some(20_000);
        let fixed = corrected_amount(&paid, "perdón, fueron 250").expect("corrected");
        assert_eq!(fixed.debt.payment_cents, Some(25_000));
        let mut both = owed.clone();
        both.debt.minimum_cents = Some(5_000);
        assert!(corrected_amount(&both, "no, eran 380").is_none());
        // A payment or loans told are no new figure of the debt.
        for said in [
            "no, ya le pagué 100",
            "no, el pago fue de 100",
            "no, fueron 2 préstamos de 100",
        ] {
            assert!(corrected_amount(&owed, said).is_none(), "{said}");
        }
    }

    /// A bare «cancela» or one that says all drops every write of the message;
    /// «no» and «olvídalo» answer the one asked.
    #[test]
    fn a_bare_cancel_or_one_that_says_all_drops_the_whole_message() {
        for said in [
            "cancela",
            "Cancelar por favor",
            "no, cancela todo",
            "mejor no, nada",
            "olvídalo todo",
        ] {
            assert!(cancels_all(said), "{said}");
        }
        for said in [
            "no",
            "olvídalo",
            "cancela ese",
            "cancélalo",
            "no lo anotes",
            "ese no lo anotes, todo lo demás sí",
        ] {
            assert!(!cancels_all(said), "{said}");
        }
    }
}
