//! Sample history for demo bots: four months of a realistic Mexico City budget
//! (rent, quincenas, weekly groceries, tacos, Uber, subscriptions, one unusual
//! dinner), dated back from today so every feature has something to show.

use chrono::{Datelike, Duration, NaiveDate};
use sqlx::PgPool;

use super::core::category;
use super::core::date::month_start;
use super::core::draft::TxKind;
use super::ledger::{NewTransaction, UserScope};
use super::{budgets, debts, ledger};

/// Days of sample history.
pub const DAYS: i64 = 120;

/// One sample movement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub kind: TxKind,
    pub amount_cents: i64,
    pub category: &'static str,
    pub description: &'static str,
    pub merchant: Option<&'static str>,
    pub date: NaiveDate,
}

/// A small deterministic generator, so every demo user sees the same history.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    /// Pesos between `low` and `high`, in cents, on whole pesos.
    fn pesos(&mut self, low: i64, high: i64) -> i64 {
        (low + (self.next() as i64) % (high - low + 1)) * 100
    }

    fn pick<T: Copy>(&mut self, options: &[T]) -> T {
        options[(self.next() as usize) % options.len()]
    }
}

pub fn history(today: NaiveDate) -> Vec<Sample> {
    let mut dice = Dice(20_261_123);
    let mut out = Vec::new();
    let mut push = |kind, amount_cents, category, description, merchant, date| {
        out.push(Sample {
            kind,
            amount_cents,
            category,
            description,
            merchant,
            date,
        })
    };
    let expense = TxKind::Expense;
    for back in (0..DAYS).rev() {
        let date = today - Duration::days(back);
        let day = date.day();
        let weekday = date.weekday().num_days_from_monday();
        if day == 1 {
            push(expense, 750_000, "vivienda", "Renta depa", None, date);
        }
        if day == 15 || date == super::core::date::month_end(date) {
            push(TxKind::Income, 950_000, "salario", "Quincena", None, date);
        }
        if day == 3 {
            push(
                expense,
                59_900,
                "suscripciones",
                "Gimnasio",
                Some("gimnasio"),
                date,
            );
        }
        if day == 5 {
            push(
                expense,
                54_900,
                "servicios",
                "Internet Izzi",
                Some("izzi"),
                date,
            );
        }
        if day == 8 {
            push(
                expense,
                21_900,
                "suscripciones",
                "Netflix",
                Some("netflix"),
                date,
            );
        }
        if day == 10 && date.month().is_multiple_of(2) {
            push(
                expense,
                dice.pesos(420, 560),
                "servicios",
                "Luz CFE",
                Some("cfe"),
                date,
            );
        }
        if day == 12 {
            push(
                expense,
                12_900,
                "suscripciones",
                "Spotify",
                Some("spotify"),
                date,
            );
        }
        if day == 18 {
            push(
                expense,
                dice.pesos(380, 470),
                "servicios",
                "Gas",
                None,
                date,
            );
        }
        if day == 22 {
            push(
                expense,
                dice.pesos(150, 420),
                "salud",
                "Farmacia",
                Some("farmacia"),
                date,
            );
        }
        if weekday == 5 {
            let (description, merchant) = dice.pick(&[
                ("Walmart", "walmart"),
                ("Soriana", "soriana"),
                ("Chedraui", "chedraui"),
            ]);
            push(
                expense,
                dice.pesos(900, 1_600),
                "supermercado",
                description,
                Some(merchant),
                date,
            );
        }
        if back % 3 == 0 {
            let (description, low, high) = dice.pick(&[
                ("Tortillería", 30, 60),
                ("Panadería", 45, 90),
                ("Fruta y verdura", 80, 160),
            ]);
            push(
                expense,
                dice.pesos(low, high),
                "comida",
                description,
                None,
                date,
            );
        }
        if matches!(weekday, 2 | 5) {
            let (description, merchant, low, high) = dice.pick(&[
                ("Tacos El Güero", "tacos el guero", 120, 220),
                ("Starbucks", "starbucks", 85, 120),
                ("Pizza", "pizza", 250, 380),
                ("Sushi", "sushi", 300, 420),
            ]);
            push(
                expense,
                dice.pesos(low, high),
                "restaurantes",
                description,
                Some(merchant),
                date,
            );
        }
        if matches!(weekday, 0 | 2 | 4) {
            let (description, merchant) = dice.pick(&[("Uber", "uber"), ("DiDi", "didi")]);
            push(
                expense,
                dice.pesos(80, 180),
                "transporte",
                description,
                Some(merchant),
                date,
            );
        }
        if day == 6 || day == 20 {
            push(
                expense,
                dice.pesos(650, 800),
                "transporte",
                "Gasolina",
                Some("pemex"),
                date,
            );
        }
        if weekday == 6 && back % 14 < 7 {
            push(
                expense,
                dice.pesos(200, 280),
                "entretenimiento",
                "Cinépolis",
                Some("cinepolis"),
                date,
            );
        }
        if back == 70 {
            push(
                expense,
                129_900,
                "ropa",
                "Liverpool",
                Some("liverpool"),
                date,
            );
        }
        if back == 45 {
            push(
                expense,
                80_000,
                "regalos",
                "Regalo de cumpleaños",
                None,
                date,
            );
        }
        if back == 9 {
            // The unusual one: far above a usual restaurant bill.
            push(
                expense,
                260_000,
                "restaurantes",
                "Cena aniversario",
                None,
                date,
            );
        }
    }
    out
}

/// Seeds a new user of a demo bot (no movements yet): the sample history, a
/// variable-spending budget and a credit-card debt. The bank balance is left
/// unset, so the first "¿me alcanza?" shows how it is asked for. Returns whether
/// it seeded; a user with any movement is left alone.
pub async fn seed_if_new(
    pool: &PgPool,
    user: UserScope,
    currency: &str,
    today: NaiveDate,
) -> sqlx::Result<bool> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1::text, 7))")
        .bind(user.contact_id)
        .execute(&mut *tx)
        .await?;
    if ledger::count(&mut *tx, user).await? > 0 {
        return Ok(false);
    }
    let samples = history(today);
    let rows: Vec<NewTransaction<'_>> = samples
        .iter()
        .map(|s| NewTransaction {
            kind: s.kind,
            amount_cents: s.amount_cents,
            currency,
            category: s.category,
            category_type: category::by_key(s.category)
                .map(|c| c.kind)
                .expect("sample categories exist"),
            description: s.description,
            merchant: s.merchant,
            date: s.date,
        })
        .collect();
    ledger::insert_samples(&mut tx, user, &rows).await?;
    let since = month_start(today - Duration::days(DAYS));
    budgets::set(&mut tx, user, None, since, 1_800_000, None).await?;
    debts::set(
        &mut tx,
        user,
        "Tarjeta BBVA",
        Some(850_000),
        Some(85_000),
        Some(20),
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finance::core::tools::{DataQuality, History};

    #[test]
    fn the_sample_is_rich_enough_for_every_tool_and_holds_one_unusual_dinner() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        let samples = history(today);
        let first = samples.iter().map(|s| s.date).min().unwrap();
        let history = History {
            days: (today - first).num_days() + 1,
            transactions: samples.len() as i64,
        };
        assert_eq!(history.quality(), DataQuality::Excellent);
        assert!(
            samples
                .iter()
                .all(|s| s.amount_cents > 0 && s.date <= today)
        );
        assert!(
            samples
                .iter()
                .all(|s| category::by_key(s.category).is_some())
        );
        let dinner = samples
            .iter()
            .filter(|s| s.category == "restaurantes")
            .max_by_key(|s| s.amount_cents)
            .unwrap();
        assert_eq!(dinner.description, "Cena aniversario");
        assert_eq!(
            history,
            History {
                days: DAYS,
                transactions: samples.len() as i64
            }
        );
        assert_eq!(samples, super::history(today), "deterministic");
    }
}
