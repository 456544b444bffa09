//! Table-driven tests over every (state, action) pair of the finance matrix, the
//! checks behind each rejection, patch mode, confirmations, and a property test
//! over random proposal sequences.

use chrono::NaiveDate;
use proptest::prelude::*;

use super::category::{self, CategoryType};
use super::confirm::{Answer, answer};
use super::matrix::{LastTransaction, LearnedRule};
use super::tools::{ToolName, ToolRequest};
use super::*;
use crate::shop::core::{MAX_ACTIONS, Param};

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
}

fn facts() -> Facts {
    Facts {
        today: today(),
        stated: vec![25_000, 800_000, 300_000, 50_000, 180_000, 1_200_000, 0],
        message: String::new(),
        has_balance: true,
        debts: vec!["juan".into()],
        owed_to_me: vec!["Lucía Pérez".into()],
        last_transaction: Some(LastTransaction {
            id: 7,
            category: "comida".into(),
            description: "uber".into(),
            merchant: Some("uber".into()),
            amount_cents: 12_000,
            date: today(),
        }),
        category_budgets: false,
        rules: Vec::new(),
    }
}

fn cat(key: &str) -> &'static category::Category {
    category::by_key(key).unwrap()
}

/// A proposal of `kind` with every parameter it needs.
fn complete(kind: FinanceActionKind) -> FinanceAction {
    use FinanceActionKind as K;
    FinanceAction::of(kind).with(|p| match kind {
        K::LogTransaction => {
            p.amount = Param::Given(25_000);
            p.category = Param::Given(cat("comida"));
        }
        K::QueryData => {
            p.tools = vec![Param::Given(ToolRequest::new(
                ToolName::AnalyzeSpendingPattern,
            ))]
        }
        K::SetBudget => p.amount = Param::Given(800_000),
        K::ManageDebt => {
            p.debt_name = Param::Given("Juan".into());
            p.debt_balance = Param::Given(300_000);
        }
        K::SimulatePurchase => p.amount = Param::Given(180_000),
        K::SetBankBalance => p.amount = Param::Given(1_200_000),
        K::CorrectCategory => p.category = Param::Given(cat("transporte")),
        K::PatchDraft => p.category = Param::Given(cat("comida")),
        K::EraseMyData | K::Cancel | K::Reply | K::Clarify | K::Escalate => {}
    })
}

/// The draft a conversation realistically holds in each state.
fn draft_for(state: FinanceState) -> Option<Draft> {
    match state {
        FinanceState::Clarifying => {
            let mut draft = Draft::new(Intent::LogTransaction);
            draft.amount_cents = Some(25_000);
            draft.date = Some(today());
            draft.questions = vec![Field::Category];
            Some(draft)
        }
        FinanceState::AwaitingConfirmation => {
            let mut draft = Draft::new(Intent::LogTransaction);
            draft.amount_cents = Some(25_000);
            draft.date = Some(today());
            draft.set_category(cat("comida"));
            Some(draft)
        }
        _ => None,
    }
}

fn state_code(code: &str) -> Option<FinanceState> {
    Some(match code {
        "IDLE" => FinanceState::Idle,
        "CLAR" => FinanceState::Clarifying,
        "CONF" => FinanceState::AwaitingConfirmation,
        "HUMAN" => FinanceState::HumanTakeover,
        "-" => return None,
        other => panic!("bad code {other}"),
    })
}

/// The finance matrix written out: the state after each (complete) action, or `-`
/// where it is invalid. Columns: the state the action is validated in.
const MATRIX: &str = "
                   IDLE  CLAR  CONF  HUMAN
LOG_TRANSACTION    CONF  -     -     -
QUERY_DATA         IDLE  -     -     -
SET_BUDGET         CONF  -     -     -
MANAGE_DEBT        CONF  -     -     -
SIMULATE_PURCHASE  IDLE  -     -     -
SET_BANK_BALANCE   CONF  -     -     -
CORRECT_CATEGORY   CONF  -     -     -
ERASE_MY_DATA      CONF  -     -     -
PATCH_DRAFT        -     CONF  -     -
CANCEL             -     IDLE  IDLE  -
REPLY              IDLE  CLAR  CONF  HUMAN
CLARIFY            IDLE  CLAR  CONF  HUMAN
ESCALATE           HUMAN HUMAN HUMAN HUMAN
";

#[test]
fn every_state_and_action_pair_follows_the_matrix() {
    let mut lines = MATRIX.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<FinanceState> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|c| state_code(c).unwrap())
        .collect();
    let mut rows = 0;
    for line in lines {
        let mut cells = line.split_whitespace();
        let name = cells.next().unwrap();
        let kind = FinanceActionKind::ALL
            .into_iter()
            .find(|k| k.as_str() == name)
            .unwrap();
        rows += 1;
        for (state, cell) in header.iter().zip(cells) {
            let expected = state_code(cell);
            assert_eq!(
                valid_in(kind, *state),
                expected.is_some(),
                "{name} in {state}"
            );
            let eval = evaluate(
                *state,
                draft_for(*state).as_ref(),
                &facts(),
                &[complete(kind)],
            );
            match (expected, &eval.decisions[0].outcome) {
                (Some(to), Ok(accepted)) => {
                    assert_eq!(accepted.to, to, "{name} in {state}");
                    assert_eq!(eval.state, to);
                }
                (None, Err(Rejection::NotAllowedInState { .. })) => {
                    assert_eq!(eval.state, *state, "a rejection changes nothing");
                    assert_eq!(eval.draft, draft_for(*state));
                }
                (expected, outcome) => panic!("{name} in {state}: {expected:?} vs {outcome:?}"),
            }
        }
    }
    assert_eq!(rows, FinanceActionKind::ALL.len(), "every action has a row");
}

#[test]
fn forbidden_and_unknown_actions_are_rejected_in_every_state() {
    for state in FinanceState::ALL {
        for forbidden in FinanceForbidden::ALL {
            let action = FinanceAction {
                kind: FinanceActionType::Forbidden(forbidden),
                params: FinanceParams::default(),
            };
            let eval = evaluate(state, draft_for(state).as_ref(), &facts(), &[action]);
            assert_eq!(
                eval.decisions[0].outcome,
                Err(Rejection::Forbidden(forbidden))
            );
            assert_eq!(eval.state, state);
        }
        let unknown = FinanceAction {
            kind: FinanceActionType::parse("TRANSFER_MONEY"),
            params: FinanceParams::default(),
        };
        let eval = evaluate(state, None, &facts(), &[unknown]);
        assert!(matches!(
            eval.decisions[0].outcome,
            Err(Rejection::UnknownType(_))
        ));
    }
}

#[test]
fn missing_fields_become_questions_and_the_next_reply_patches_the_draft() {
    let gaste = FinanceAction::of(FinanceActionKind::LogTransaction)
        .with(|p| p.amount = Param::Given(25_000));
    let eval = evaluate(FinanceState::Idle, None, &facts(), &[gaste]);
    assert_eq!(eval.state, FinanceState::Clarifying);
    let draft = eval.draft.unwrap();
    assert_eq!(draft.questions, [Field::Category]);
    assert_eq!(draft.date, Some(today()), "the date defaults to today");

    // A new intent does not restart the draft while questions are open.
    let restart = complete(FinanceActionKind::SetBudget);
    let eval = evaluate(FinanceState::Clarifying, Some(&draft), &facts(), &[restart]);
    assert!(matches!(
        eval.decisions[0].outcome,
        Err(Rejection::NotAllowedInState { .. })
    ));
    assert_eq!(eval.draft.as_ref(), Some(&draft));

    // "fue ayer" patches the date; the category is still asked.
    let yesterday = today().pred_opt().unwrap();
    let patch =
        FinanceAction::of(FinanceActionKind::PatchDraft).with(|p| p.date = Param::Given(yesterday));
    let eval = evaluate(FinanceState::Clarifying, Some(&draft), &facts(), &[patch]);
    assert_eq!(eval.state, FinanceState::Clarifying);
    let draft = eval.draft.unwrap();
    assert_eq!(
        (draft.date, draft.amount_cents),
        (Some(yesterday), Some(25_000))
    );

    // "categoría comida" completes it.
    let patch = complete(FinanceActionKind::PatchDraft);
    let eval = evaluate(FinanceState::Clarifying, Some(&draft), &facts(), &[patch]);
    assert_eq!(eval.state, FinanceState::AwaitingConfirmation);
    let draft = eval.draft.unwrap();
    assert!(draft.questions.is_empty());
    assert_eq!(draft.category.as_deref(), Some("comida"));

    // A reply that changes nothing is rejected, and the draft stays.
    let nothing = FinanceAction::of(FinanceActionKind::PatchDraft);
    let mut open = draft_for(FinanceState::Clarifying).unwrap();
    open.questions = vec![Field::Category];
    let eval = evaluate(FinanceState::Clarifying, Some(&open), &facts(), &[nothing]);
    assert_eq!(eval.decisions[0].outcome, Err(Rejection::NothingToPatch));
    assert_eq!(eval.draft, Some(open));
}

#[test]
fn amounts_must_be_in_range_and_written_by_the_user() {
    let with_amount = |cents| {
        FinanceAction::of(FinanceActionKind::SetBankBalance)
            .with(|p| p.amount = Param::Given(cents))
    };
    let eval = evaluate(
        FinanceState::Idle,
        None,
        &facts(),
        &[with_amount(1_234_567)],
    );
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::AmountNotStated { cents: 1_234_567 })
    );
    let mut f = facts();
    f.stated.push(-5);
    f.stated.push(super::amount::MAX_AMOUNT_CENTS + 1);
    for cents in [-5, super::amount::MAX_AMOUNT_CENTS + 1] {
        let eval = evaluate(FinanceState::Idle, None, &f, &[with_amount(cents)]);
        assert_eq!(
            eval.decisions[0].outcome,
            Err(Rejection::AmountOutOfRange { cents })
        );
    }
    let zero_expense =
        FinanceAction::of(FinanceActionKind::LogTransaction).with(|p| p.amount = Param::Given(0));
    let eval = evaluate(FinanceState::Idle, None, &facts(), &[zero_expense]);
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::AmountOutOfRange { cents: 0 })
    );
    let invalid = FinanceAction::of(FinanceActionKind::LogTransaction)
        .with(|p| p.amount = Param::Invalid("mucho".into()));
    let eval = evaluate(FinanceState::Idle, None, &facts(), &[invalid]);
    assert!(matches!(
        eval.decisions[0].outcome,
        Err(Rejection::InvalidParam {
            field: "amount",
            ..
        })
    ));
}

#[test]
fn dates_categories_debts_and_corrections_are_checked() {
    let old = NaiveDate::from_ymd_opt(2019, 1, 1).unwrap();
    let dated = complete(FinanceActionKind::LogTransaction).with(|p| p.date = Param::Given(old));
    let eval = evaluate(FinanceState::Idle, None, &facts(), &[dated]);
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::DateOutOfRange {
            date: old,
            planned: false
        })
    );
    let tomorrow = today().succ_opt().unwrap();
    let future =
        complete(FinanceActionKind::LogTransaction).with(|p| p.date = Param::Given(tomorrow));
    assert!(matches!(
        evaluate(FinanceState::Idle, None, &facts(), &[future]).decisions[0].outcome,
        Err(Rejection::DateOutOfRange { .. })
    ));
    let planned =
        complete(FinanceActionKind::SimulatePurchase).with(|p| p.date = Param::Given(tomorrow));
    assert!(
        evaluate(FinanceState::Idle, None, &facts(), &[planned]).decisions[0]
            .outcome
            .is_ok()
    );

    let income_as_food =
        complete(FinanceActionKind::LogTransaction).with(|p| p.kind = Param::Given(TxKind::Income));
    assert_eq!(
        evaluate(FinanceState::Idle, None, &facts(), &[income_as_food]).decisions[0].outcome,
        Err(Rejection::CategoryKindMismatch)
    );
    let salary = complete(FinanceActionKind::LogTransaction)
        .with(|p| p.category = Param::Given(cat("salario")));
    let eval = evaluate(FinanceState::Idle, None, &facts(), &[salary]);
    let draft = eval.draft.unwrap();
    assert_eq!(draft.kind, Some(TxKind::Income));
    assert_eq!(draft.category_type, Some(CategoryType::Ingreso));

    let pay_unknown = FinanceAction::of(FinanceActionKind::ManageDebt).with(|p| {
        p.debt_name = Param::Given("Pedro".into());
        p.debt_payment = Param::Given(50_000);
    });
    assert_eq!(
        evaluate(FinanceState::Idle, None, &facts(), &[pay_unknown]).decisions[0].outcome,
        Err(Rejection::DebtNotFound("Pedro".into()))
    );
    // Money owed to the person: its balance alone is kept (a payment day said
    // beside it is not a field of it, one out of range is still refused), and
    // a mark that is no boolean is refused.
    let late = FinanceAction::of(FinanceActionKind::ManageDebt).with(|p| {
        p.debt_name = Param::Given("Fer".into());
        p.debt_balance = Param::Given(50_000);
        p.debt_due_day = Param::Given(40);
        p.debt_owed_to_me = Param::Given(true);
    });
    assert_eq!(
        evaluate(FinanceState::Idle, None, &facts(), &[late]).decisions[0].outcome,
        Err(Rejection::DueDayOutOfRange(40))
    );
    let owed = FinanceAction::of(FinanceActionKind::ManageDebt).with(|p| {
        p.debt_name = Param::Given("Fer".into());
        p.debt_balance = Param::Given(50_000);
        p.debt_due_day = Param::Given(15);
        p.debt_owed_to_me = Param::Given(true);
    });
    let eval = evaluate(FinanceState::Idle, None, &facts(), &[owed]);
    assert!(eval.decisions[0].outcome.is_ok(), "{eval:?}");
    let draft = eval.draft.unwrap();
    assert!(draft.debt.owed_to_me);
    assert_eq!(draft.debt.due_day, None);
    assert_eq!(
        draft.write(),
        Some(Write::SetReceivable {
            name: "Fer".into(),
            balance_cents: 50_000
        })
    );
    // A sum paid back lowers what someone who owes the person owes (the name
    // said is matched to the stored one by its words; a balance said beside it
    // is not set); nobody by that name owes them: refused, said why.
    let back = FinanceAction::of(FinanceActionKind::ManageDebt).with(|p| {
        p.debt_name = Param::Given("lucia".into());
        p.debt_payment = Param::Given(50_000);
        p.debt_balance = Param::Given(300_000);
        p.debt_owed_to_me = Param::Given(true);
    });
    let eval = evaluate(FinanceState::Idle, None, &facts(), &[back]);
    assert!(eval.decisions[0].outcome.is_ok(), "{eval:?}");
    assert_eq!(
        eval.draft.unwrap().write(),
        Some(Write::ReceivablePayment {
            name: "Lucía Pérez".into(),
            amount_cents: 50_000
        })
    );
    let stranger = FinanceAction::of(FinanceActionKind::ManageDebt).with(|p| {
        p.debt_name = Param::Given("Pedro".into());
        p.debt_payment = Param::Given(50_000);
        p.debt_owed_to_me = Param::Given(true);
    });
    assert_eq!(
        evaluate(FinanceState::Idle, None, &facts(), &[stranger]).decisions[0].outcome,
        Err(Rejection::ReceivableNotFound("Pedro".into()))
    );
    let hostile = FinanceAction::of(FinanceActionKind::ManageDebt).with(|p| {
        p.debt_name = Param::Given("Fer".into());
        p.debt_balance = Param::Given(50_000);
        p.debt_owed_to_me = Param::Invalid("\"yes\"".into());
    });
    assert!(matches!(
        evaluate(FinanceState::Idle, None, &facts(), &[hostile]).decisions[0].outcome,
        Err(Rejection::InvalidParam {
            field: "debt_owed_to_me",
            ..
        })
    ));
    let bad_day =
        complete(FinanceActionKind::ManageDebt).with(|p| p.debt_due_day = Param::Given(40));
    assert_eq!(
        evaluate(FinanceState::Idle, None, &facts(), &[bad_day]).decisions[0].outcome,
        Err(Rejection::DueDayOutOfRange(40))
    );

    let same = FinanceAction::of(FinanceActionKind::CorrectCategory)
        .with(|p| p.category = Param::Given(cat("comida")));
    assert_eq!(
        evaluate(FinanceState::Idle, None, &facts(), &[same]).decisions[0].outcome,
        Err(Rejection::SameCategory)
    );
    let mut nothing_logged = facts();
    nothing_logged.last_transaction = None;
    let correction = complete(FinanceActionKind::CorrectCategory);
    assert_eq!(
        evaluate(FinanceState::Idle, None, &nothing_logged, &[correction]).decisions[0].outcome,
        Err(Rejection::NoTransactionToCorrect)
    );
    let no_tools = FinanceAction::of(FinanceActionKind::QueryData)
        .with(|p| p.tools = vec![Param::Invalid("dropTables".into())]);
    assert_eq!(
        evaluate(FinanceState::Idle, None, &facts(), &[no_tools]).decisions[0].outcome,
        Err(Rejection::NoTools)
    );
}

#[test]
fn a_simulation_without_a_balance_asks_confirms_it_and_then_runs_the_original() {
    let mut f = facts();
    f.has_balance = false;
    let tenis = complete(FinanceActionKind::SimulatePurchase)
        .with(|p| p.category = Param::Given(cat("ropa")));
    let eval = evaluate(FinanceState::Idle, None, &f, &[tenis]);
    assert_eq!(eval.state, FinanceState::Clarifying);
    let ask = eval.draft.unwrap();
    assert_eq!(ask.intent, Intent::SetBankBalance);
    assert_eq!(ask.questions, [Field::Amount]);
    let original = ask.resume.clone().unwrap();
    assert_eq!(original.amount_cents, Some(180_000));

    let balance = FinanceAction::of(FinanceActionKind::PatchDraft)
        .with(|p| p.amount = Param::Given(1_200_000));
    let eval = evaluate(FinanceState::Clarifying, Some(&ask), &f, &[balance]);
    assert_eq!(eval.state, FinanceState::AwaitingConfirmation);
    let pending = eval.draft.unwrap();
    match on_answer(&pending, answer("sí")) {
        Confirmation::Execute {
            write,
            then_simulate,
        } => {
            assert_eq!(
                write,
                Write::SetBankBalance {
                    balance_cents: 1_200_000
                }
            );
            assert_eq!(then_simulate, Some(original));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(on_answer(&pending, answer("claro")), Confirmation::AskAgain);
    assert_eq!(
        on_answer(&pending, Answer::Reject),
        Confirmation::Cancelled {
            intent: Intent::SetBankBalance
        }
    );
}

#[test]
fn a_learned_rule_sets_the_category_unless_the_message_names_one() {
    let mut f = facts();
    f.rules = vec![LearnedRule {
        merchant: "oxxo".into(),
        category: "comida".into(),
    }];
    let at_oxxo = FinanceAction::of(FinanceActionKind::LogTransaction).with(|p| {
        p.amount = Param::Given(25_000);
        p.category = Param::Given(cat("supermercado"));
        p.merchant = Some("OXXO".into());
    });
    let draft = evaluate(FinanceState::Idle, None, &f, std::slice::from_ref(&at_oxxo))
        .draft
        .unwrap();
    assert_eq!(draft.category.as_deref(), Some("comida"));
    assert!(draft.learned_category);
    f.message = "gaste 250 en oxxo supermercado".into();
    let draft = evaluate(FinanceState::Idle, None, &f, &[at_oxxo])
        .draft
        .unwrap();
    assert_eq!(draft.category.as_deref(), Some("supermercado"));
    assert!(!draft.learned_category);
}

#[test]
fn cancel_drops_the_draft_and_more_than_five_actions_are_refused() {
    let draft = draft_for(FinanceState::AwaitingConfirmation);
    let eval = evaluate(
        FinanceState::AwaitingConfirmation,
        draft.as_ref(),
        &facts(),
        &[FinanceAction::of(FinanceActionKind::Cancel)],
    );
    assert_eq!((eval.state, eval.draft), (FinanceState::Idle, None));
    let replies = vec![FinanceAction::of(FinanceActionKind::Reply); MAX_ACTIONS + 2];
    let eval = evaluate(FinanceState::Idle, None, &facts(), &replies);
    assert_eq!(eval.accepted().count(), MAX_ACTIONS);
    assert_eq!(eval.rejected().count(), 2);
}

fn any_action() -> impl Strategy<Value = FinanceAction> {
    let names = prop_oneof![
        proptest::sample::select(
            FinanceActionKind::ALL
                .map(|k| k.as_str().to_string())
                .to_vec()
        ),
        proptest::sample::select(
            FinanceForbidden::ALL
                .map(|k| k.as_str().to_string())
                .to_vec()
        ),
        "[A-Z_]{1,12}",
    ];
    let amount = prop_oneof![
        Just(Param::Missing),
        Just(Param::Invalid("x".to_string())),
        proptest::sample::select(vec![
            -100i64,
            0,
            25_000,
            180_000,
            1_200_000,
            999,
            5_000_000_000
        ])
        .prop_map(Param::Given),
    ];
    let category = prop_oneof![
        Just(Param::Missing),
        Just(Param::Invalid("cripto".to_string())),
        proptest::sample::select(category::CATEGORIES.iter().collect::<Vec<_>>())
            .prop_map(Param::Given),
    ];
    let day = prop_oneof![Just(Param::Missing), (0u32..40).prop_map(Param::Given)];
    let offset = prop_oneof![Just(None), (-800i64..400).prop_map(Some)];
    let name = prop_oneof![
        Just(Param::Missing),
        Just(Param::Given("Juan".to_string())),
        Just(Param::Given("Pedro".to_string())),
    ];
    (names, amount, category, day, offset, name).prop_map(
        |(name, amount, category, day, offset, debt_name)| FinanceAction {
            kind: FinanceActionType::parse(&name),
            params: FinanceParams {
                amount: amount.clone(),
                category,
                date: offset.map_or(Param::Missing, |d| {
                    Param::Given(today() + chrono::Duration::days(d))
                }),
                debt_name,
                debt_balance: amount.clone(),
                debt_payment: amount,
                debt_due_day: day,
                tools: vec![Param::Given(ToolRequest::new(ToolName::GetDebts))],
                ..FinanceParams::default()
            },
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_proposals_never_write_or_break_the_invariants(
        start in proptest::sample::select(FinanceState::ALL.to_vec()),
        has_balance in any::<bool>(),
        turns in proptest::collection::vec(proptest::collection::vec(any_action(), 0..8), 1..10),
    ) {
        let mut f = facts();
        f.has_balance = has_balance;
        let mut state = start;
        let mut draft = draft_for(start);
        for actions in turns {
            let eval = evaluate(state, draft.as_ref(), &f, &actions);
            prop_assert_eq!(eval.decisions.len(), actions.len());
            prop_assert!(eval.accepted().count() <= MAX_ACTIONS);
            let mut current = state;
            for decided in &eval.decisions {
                match (&decided.action.kind, &decided.outcome) {
                    (FinanceActionType::Forbidden(_) | FinanceActionType::Unknown(_), Ok(_)) => {
                        prop_assert!(false, "forbidden or unknown action accepted");
                    }
                    (FinanceActionType::Allowed(kind), Ok(accepted)) => {
                        prop_assert_eq!(accepted.from, current);
                        // A second LOG of the same message queues behind the
                        // first without moving the state.
                        let queued = matches!(accepted.effect, super::Effect::DraftQueued { .. })
                            && state == FinanceState::Idle
                            && accepted.to == current;
                        prop_assert!(valid_in(*kind, current) || queued);
                        current = accepted.to;
                    }
                    _ => {}
                }
            }
            prop_assert_eq!(current, eval.state);
            match eval.state {
                FinanceState::Idle | FinanceState::HumanTakeover => {
                    prop_assert!(eval.draft.is_none())
                }
                FinanceState::Clarifying => {
                    let d = eval.draft.as_ref().unwrap();
                    prop_assert!(!d.questions.is_empty());
                }
                FinanceState::AwaitingConfirmation => {
                    let d = eval.draft.as_ref().unwrap();
                    prop_assert!(d.questions.is_empty());
                    prop_assert!(d.write().is_some(), "only a complete write waits for confirmation");
                }
            }
            // Every amount a draft holds is one the user wrote.
            for d in eval.draft.iter().chain(eval.draft.as_ref().and_then(|d| d.then.as_deref())) {
                for cents in [d.amount_cents, d.debt.balance_cents, d.debt.payment_cents, d.debt.minimum_cents]
                    .into_iter()
                    .flatten()
                {
                    prop_assert!(f.stated.contains(&cents) || cents == 12_000 || cents == 25_000);
                }
            }
            state = eval.state;
            draft = eval.draft;
        }
    }
}
