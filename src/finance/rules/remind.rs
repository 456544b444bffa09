//! Reminders asked for in words: «recuérdame pagar la tarjeta el 20», «avísame el
//! viernes que pague el gas», «mis recordatorios», «ya no me recuerdes lo de la
//! tarjeta».

use chrono::NaiveDate;

use super::words::any;
use crate::finance::core::date::{Direction, take_date};
use crate::text::normalize;

/// What a message asks of the person's reminders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// Remind `what` on `due_on` (`None`: the day was not said).
    Add {
        what: String,
        due_on: Option<NaiveDate>,
    },
    List,
    /// Cancel those about `about` (`None`: all).
    Cancel {
        about: Option<String>,
    },
}

const ADD: &[&str] = &[
    "recuerdame",
    "recuerdeme",
    "recordarme",
    "me recuerdas",
    "me recuerdes",
    "me recuerde",
    "avisame",
    "aviseme",
    "me avisas",
    "me avise",
    "hazme acuerdo",
    "haceme acuerdo",
    "hagame acuerdo",
    "no me dejes olvidar",
    "no me deje olvidar",
    "que no se me olvide",
    "no dejes que se me olvide",
    "ayudame a recordar",
    "remind me",
];

const CANCEL: &[&str] = &[
    "ya no me recuerdes",
    "no me recuerdes",
    "ya no me avises",
    "no me avises",
    "cancela",
    "cancelar",
    "borra",
    "borrar",
    "elimina",
    "quita",
    "quitar",
];

const LIST: &[&str] = &[
    "mis recordatorios",
    "que recordatorios",
    "cuales recordatorios",
    "tengo recordatorios",
    "mis avisos",
    "ver recordatorios",
];

/// Words left at the front of what to remember once the trigger and the date
/// are cut out («… el próximo viernes que pague…», «pa pagar…»).
const LEADS: &[&str] = &[
    "que",
    "q",
    "de",
    "lo de",
    "para",
    "pa",
    "a",
    "el",
    "la",
    "los",
    "las",
    "proximo",
    "proxima",
    "siguiente",
    "este",
    "esta",
    "por favor",
    "porfa",
    "favor",
];

/// A day given alone, answering «¿qué día te recuerdo «X»?» (the bot's last
/// message): the reminder it completes.
pub fn answers_when(text: &str, today: NaiveDate, last_bot: &str) -> Option<Ask> {
    let what = last_bot
        .strip_prefix("¿Qué día te recuerdo «")?
        .split_once('»')?
        .0
        .to_owned();
    let (due_on, rest) = take_date(text, today, Direction::Future);
    let due_on = ahead(due_on, today, text);
    let leftover = rest
        .split(' ')
        .filter(|w| {
            !w.is_empty()
                && !matches!(
                    *w,
                    "el" | "la" | "para" | "mejor" | "pues" | "ok" | "si" | "dia"
                )
        })
        .count();
    (due_on.is_some() && leftover == 0).then_some(Ask::Add { what, due_on })
}

/// A day that is today, unless «hoy» was said, means the next time it comes:
/// «el 25» on the 25th is next month's.
fn ahead(due_on: Option<NaiveDate>, today: NaiveDate, text: &str) -> Option<NaiveDate> {
    let said = normalize(text);
    let named_today = crate::text::contains_phrase(&said, "hoy")
        || said.contains(&today.format("%Y-%m-%d").to_string());
    match due_on {
        Some(day) if day == today && !named_today => day.checked_add_months(chrono::Months::new(1)),
        other => other,
    }
}

pub fn read(text: &str, today: NaiveDate) -> Option<Ask> {
    let norm = normalize(text);
    let about_reminders = any(&norm, &["recordatorio", "recordatorios", "aviso", "avisos"]);
    let stop = any(
        &norm,
        &[
            "ya no me recuerdes",
            "no me recuerdes",
            "ya no me recuerde",
            "no me recuerde",
            "ya no me avises",
            "no me avises",
            "ya no me avise",
        ],
    );
    if stop || (about_reminders && any(&norm, CANCEL)) {
        let padded = format!(" {norm} ");
        let about = [" lo del ", " lo de ", " del ", " de "]
            .iter()
            .find_map(|lead| {
                padded.split_once(lead).map(|(_, rest)| {
                    let rest = rest.trim();
                    ["la ", "el ", "los ", "las "]
                        .iter()
                        .find_map(|a| rest.strip_prefix(a))
                        .unwrap_or(rest)
                        .to_owned()
                })
            })
            .filter(|rest| {
                !rest.is_empty() && !rest.starts_with("recordatorio") && !rest.starts_with("nada")
            });
        return Some(Ask::Cancel { about });
    }
    if any(&norm, LIST)
        || any(
            &norm,
            &[
                "pendiente por recordar",
                "pendientes por recordar",
                "algo que recordar",
            ],
        )
        || (about_reminders && any(&norm, &["que tengo", "cuales", "tengo", "ver", "muestrame"]))
    {
        return Some(Ask::List);
    }
    let trigger = ADD
        .iter()
        .find(|t| crate::text::contains_phrase(&norm, t))?;
    // «¿me avisas cuánto gasté?» asks, it does not set a reminder.
    let next = norm
        .split_once(trigger)
        .map_or("", |(_, after)| after)
        .split_whitespace()
        .next()
        .unwrap_or("");
    if matches!(
        next,
        "cuanto" | "cuanta" | "cuantos" | "cuantas" | "cual" | "cuales" | "si" | "como" | "donde"
    ) {
        return None;
    }
    let (due_on, rest) = take_date(text, today, Direction::Future);
    let due_on = ahead(due_on, today, text);
    let after = rest
        .split_once(trigger)
        .map_or(rest.as_str(), |(_, after)| after)
        .trim();
    let mut what = after.to_owned();
    while let Some(stripped) = LEADS
        .iter()
        .find_map(|lead| what.strip_prefix(&format!("{lead} ")))
    {
        what = stripped.to_owned();
    }
    for tail in [
        " por favor",
        " porfa",
        " porfis",
        " gracias",
        " xfa",
        " pls",
    ] {
        if let Some(stripped) = what.strip_suffix(tail) {
            what = stripped.to_owned();
        }
    }
    let what: String = what
        .trim_end_matches([' ', '.', '!', '?'])
        .chars()
        .take(200)
        .collect();
    if what.is_empty() {
        return None;
    }
    Some(Ask::Add { what, due_on })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 25).unwrap()
    }

    fn day(m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, m, d).unwrap()
    }

    #[test]
    fn what_and_when_are_read_from_the_words() {
        assert_eq!(
            read("recuérdame pagar la tarjeta el 20", today()),
            Some(Ask::Add {
                what: "pagar la tarjeta".into(),
                due_on: Some(day(12, 20))
            })
        );
        assert_eq!(
            read("Avísame el viernes que pague el gas", today()),
            Some(Ask::Add {
                what: "pague el gas".into(),
                due_on: Some(day(11, 27))
            })
        );
        assert_eq!(
            read("recuérdame llamar al banco", today()),
            Some(Ask::Add {
                what: "llamar al banco".into(),
                due_on: None
            })
        );
        assert_eq!(read("¿qué recordatorios tengo?", today()), Some(Ask::List));
        assert_eq!(read("mis recordatorios", today()), Some(Ask::List));
        assert_eq!(
            read("ya no me recuerdes", today()),
            Some(Ask::Cancel { about: None })
        );
        assert_eq!(
            read("ya no me recuerdes lo de la tarjeta", today()),
            Some(Ask::Cancel {
                about: Some("tarjeta".into())
            })
        );
        assert_eq!(
            read(
                "Le encargo que me recuerde el día 3 pagar la cuota del condominio.",
                today()
            ),
            Some(Ask::Add {
                what: "pagar la cuota del condominio".into(),
                due_on: Some(day(12, 3))
            })
        );
        assert_eq!(
            read("avísame el próximo viernes que vence el seguro", today()),
            Some(Ask::Add {
                what: "vence el seguro".into(),
                due_on: Some(day(11, 27))
            })
        );
        assert_eq!(
            answers_when(
                "el viernes",
                today(),
                "¿Qué día te recuerdo «pagar el gas»? Por ejemplo…"
            ),
            Some(Ask::Add {
                what: "pagar el gas".into(),
                due_on: Some(day(11, 27))
            })
        );
        assert_eq!(
            answers_when("gasté 200 el viernes", today(), "¿Qué día te recuerdo «x»?"),
            None
        );
        assert_eq!(answers_when("el viernes", today(), "Listo."), None);
        assert_eq!(
            answers_when("el 25", today(), "¿Qué día te recuerdo «la tenencia»?"),
            Some(Ask::Add {
                what: "la tenencia".into(),
                due_on: Some(day(12, 25))
            }),
            "today's day of the month is next month's"
        );
        assert_eq!(
            read(
                "Pensándolo bien, ya no me recuerde lo del condominio.",
                today()
            ),
            Some(Ask::Cancel {
                about: Some("condominio".into())
            })
        );
        assert_eq!(read("¿me avisas cuánto gasté este mes?", today()), None);
        assert_eq!(
            read("recuérdame hoy pagar la luz", today()),
            Some(Ask::Add {
                what: "pagar la luz".into(),
                due_on: Some(today())
            }),
            "today said is today (then refused as too late), not next month"
        );
        assert_eq!(read("gasté 250 en el súper", today()), None);
        assert_eq!(read("recuérdame", today()), None);
    }
}
