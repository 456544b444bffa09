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
    "recordarme",
    "me recuerdas",
    "me recuerdes",
    "avisame",
    "me avisas",
    "hazme acuerdo",
    "haceme acuerdo",
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

/// Words that start what to remember, cut off its front.
const LEADS: &[&str] = &["que", "de", "lo de", "para", "a", "q"];

pub fn read(text: &str, today: NaiveDate) -> Option<Ask> {
    let norm = normalize(text);
    let about_reminders = any(&norm, &["recordatorio", "recordatorios", "aviso", "avisos"]);
    let stop = any(
        &norm,
        &[
            "ya no me recuerdes",
            "no me recuerdes",
            "ya no me avises",
            "no me avises",
        ],
    );
    if stop || (about_reminders && any(&norm, CANCEL)) {
        let about = ["lo de ", "de ", "del "]
            .iter()
            .find_map(|lead| {
                norm.split_once(lead)
                    .map(|(_, rest)| rest.trim().to_owned())
            })
            .filter(|rest| {
                !rest.is_empty() && !rest.starts_with("recordatorio") && !rest.starts_with("nada")
            });
        return Some(Ask::Cancel { about });
    }
    if any(&norm, LIST)
        || (about_reminders && any(&norm, &["que tengo", "cuales", "tengo", "ver", "muestrame"]))
    {
        return Some(Ask::List);
    }
    let trigger = ADD
        .iter()
        .find(|t| crate::text::contains_phrase(&norm, t))?;
    let (due_on, rest) = take_date(text, today, Direction::Future);
    let after = rest
        .split_once(trigger)
        .map_or(rest.as_str(), |(_, after)| after)
        .trim();
    let mut what = after.to_owned();
    for lead in LEADS {
        if let Some(stripped) = what.strip_prefix(&format!("{lead} ")) {
            what = stripped.to_owned();
            break;
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
                about: Some("la tarjeta".into())
            })
        );
        assert_eq!(read("gasté 250 en el súper", today()), None);
        assert_eq!(read("recuérdame", today()), None);
    }
}
