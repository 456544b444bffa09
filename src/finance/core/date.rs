//! Dates as people say them ("ayer", "el lunes", "el 15", "15 de noviembre",
//! "15/11", "2026-11-15", "hace 3 días", "mañana"), read against the bot's today.
//! What a date phrase covers is cut out of the text, so "el 15" is never read as
//! fifteen pesos.

use chrono::{Datelike, Duration, NaiveDate, Weekday};
use regex::Regex;
use std::sync::LazyLock;

use crate::text::normalize;

/// Which way an ambiguous date points: an expense already happened, a planned
/// purchase is still to come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Past,
    Future,
}

/// Abbreviated months; the full names are `text::MONTHS`.
const MONTH_ABBREVIATIONS: [&str; 12] = [
    "ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic",
];

/// Spanish weekday names, folded, Monday first.
pub const WEEKDAYS: [(&str, Weekday); 7] = [
    ("lunes", Weekday::Mon),
    ("martes", Weekday::Tue),
    ("miercoles", Weekday::Wed),
    ("jueves", Weekday::Thu),
    ("viernes", Weekday::Fri),
    ("sabado", Weekday::Sat),
    ("domingo", Weekday::Sun),
];

static ISO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b").expect("valid regex"));
static SLASHED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b").expect("valid regex"));

/// A month number named by a Spanish month word.
pub fn month_named(word: &str) -> Option<u32> {
    crate::text::MONTHS
        .iter()
        .position(|m| *m == word)
        .or_else(|| MONTH_ABBREVIATIONS.iter().position(|m| *m == word))
        .map(|i| i as u32 + 1)
}

/// The date `text` names, if any, and the text with that phrase removed
/// (normalized). Numeric forms are tried on the raw text first.
pub fn take_date(
    text: &str,
    today: NaiveDate,
    direction: Direction,
) -> (Option<NaiveDate>, String) {
    if let Some(caps) = ISO.captures(text) {
        let date = NaiveDate::from_ymd_opt(
            caps[1].parse().unwrap_or(0),
            caps[2].parse().unwrap_or(0),
            caps[3].parse().unwrap_or(0),
        );
        let rest = ISO.replace(text, " ");
        return (date, normalize(&rest));
    }
    if let Some(caps) = SLASHED.captures(text) {
        let day: u32 = caps[1].parse().unwrap_or(0);
        let month: u32 = caps[2].parse().unwrap_or(0);
        let date = match caps.get(3) {
            Some(year) => {
                let mut year: i32 = year.as_str().parse().unwrap_or(0);
                if year < 100 {
                    year += 2000;
                }
                NaiveDate::from_ymd_opt(year, month, day)
            }
            None => day_month(today, day, month, direction),
        };
        let rest = SLASHED.replace(text, " ");
        return (date, normalize(&rest));
    }
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    for i in 0..words.len() {
        if let Some((date, len)) = phrase_at(&words, i, today, direction) {
            let rest: Vec<&str> = words[..i]
                .iter()
                .chain(&words[i + len..])
                .copied()
                .collect();
            return (Some(date), rest.join(" "));
        }
    }
    (None, normalized)
}

/// A date phrase starting at word `i`, and how many words it takes.
fn phrase_at(
    words: &[&str],
    i: usize,
    today: NaiveDate,
    direction: Direction,
) -> Option<(NaiveDate, usize)> {
    let at = |k: usize| words.get(i + k).copied();
    match words[i] {
        "hoy" => return Some((today, 1)),
        "ayer" => return Some((today - Duration::days(1), 1)),
        "antier" | "anteayer" => return Some((today - Duration::days(2), 1)),
        "antes" if at(1) == Some("de") && at(2) == Some("ayer") => {
            return Some((today - Duration::days(2), 3));
        }
        "pasado" if at(1) == Some("manana") => return Some((today + Duration::days(2), 2)),
        // "mañana" is also "morning" ("en la mañana").
        "manana" if direction == Direction::Future && (i == 0 || words[i - 1] != "la") => {
            return Some((today + Duration::days(1), 1));
        }
        "hace" => {
            let (n, unit_at) = match at(1) {
                Some("un" | "una") => (1, 2),
                Some(word) => (crate::text::token_number(word)?, 2),
                None => return None,
            };
            let days = match at(unit_at)? {
                "dia" | "dias" => n,
                "semana" | "semanas" => n * 7,
                _ => return None,
            };
            return Some((today - Duration::days(days), unit_at + 1));
        }
        _ => {}
    }
    // "el lunes", "el martes pasado", "este viernes", or a bare weekday.
    let (skip, word) = match words[i] {
        "el" | "este" | "esta" => (1, at(1)?),
        word => (0, word),
    };
    if let Some((_, weekday)) = WEEKDAYS.iter().find(|(w, _)| *w == word) {
        let mut len = skip + 1;
        let mut dir = direction;
        match at(len) {
            Some("pasado") => {
                dir = Direction::Past;
                len += 1;
            }
            Some("que" | "proximo")
                if at(len + 1) == Some("viene") || at(len) == Some("proximo") =>
            {
                dir = Direction::Future;
                len += if at(len) == Some("que") { 2 } else { 1 };
            }
            _ => {}
        }
        return Some((weekday_near(today, *weekday, dir), len));
    }
    // "el 15", "el día 15", "15 de noviembre", "el 3 de nov de 2026".
    let (skip, day_word) = match (words[i], at(1)) {
        ("el", Some("dia")) => (2, at(2)?),
        ("el", Some(word)) => (1, word),
        ("dia", Some(word)) => (1, word),
        (word, _) => (0, word),
    };
    let day: u32 = day_word
        .parse()
        .ok()
        .filter(|d| (1..=31).contains(d) && day_word.len() <= 2)?;
    let mut len = skip + 1;
    if at(len) == Some("de")
        && let Some(month) = at(len + 1).and_then(month_named)
    {
        len += 2;
        if at(len) == Some("de")
            && let Some(year) = at(len + 1).and_then(|y| y.parse::<i32>().ok())
            && (2000..=2100).contains(&year)
        {
            return NaiveDate::from_ymd_opt(year, month, day).map(|d| (d, len + 2));
        }
        return day_month(today, day, month, direction).map(|d| (d, len));
    }
    if skip == 0 {
        // A bare number is an amount, not a day.
        return None;
    }
    day_of_month(today, day, direction).map(|d| (d, len))
}

fn weekday_near(today: NaiveDate, weekday: Weekday, direction: Direction) -> NaiveDate {
    let today_n = today.weekday().num_days_from_monday() as i64;
    let target = weekday.num_days_from_monday() as i64;
    match direction {
        Direction::Past => {
            let back = (today_n - target).rem_euclid(7);
            today - Duration::days(if back == 0 { 7 } else { back })
        }
        Direction::Future => {
            let ahead = (target - today_n).rem_euclid(7);
            today + Duration::days(if ahead == 0 { 7 } else { ahead })
        }
    }
}

/// Day `day` of this month, or of the month before (past) or after (future) when
/// this month's is on the wrong side of today.
fn day_of_month(today: NaiveDate, day: u32, direction: Direction) -> Option<NaiveDate> {
    let this = NaiveDate::from_ymd_opt(today.year(), today.month(), day);
    match (direction, this) {
        (Direction::Past, Some(date)) if date <= today => Some(date),
        (Direction::Future, Some(date)) if date >= today => Some(date),
        (Direction::Past, _) => {
            let prev = today.with_day(1)? - Duration::days(1);
            NaiveDate::from_ymd_opt(prev.year(), prev.month(), day)
        }
        (Direction::Future, _) => {
            let next = (today.with_day(1)? + Duration::days(32)).with_day(1)?;
            NaiveDate::from_ymd_opt(next.year(), next.month(), day)
        }
    }
}

fn day_month(today: NaiveDate, day: u32, month: u32, direction: Direction) -> Option<NaiveDate> {
    let this = NaiveDate::from_ymd_opt(today.year(), month, day)?;
    Some(match direction {
        Direction::Past if this > today => NaiveDate::from_ymd_opt(today.year() - 1, month, day)?,
        Direction::Future if this < today => NaiveDate::from_ymd_opt(today.year() + 1, month, day)?,
        _ => this,
    })
}

/// The first day of the month `date` falls in.
pub fn month_start(date: NaiveDate) -> NaiveDate {
    date.with_day(1).expect("day 1 exists")
}

/// The last day of the month `date` falls in.
pub fn month_end(date: NaiveDate) -> NaiveDate {
    let next = (month_start(date) + Duration::days(32))
        .with_day(1)
        .expect("day 1 exists");
    next - Duration::days(1)
}

/// The first day of the month before the one `date` falls in.
pub fn previous_month(date: NaiveDate) -> NaiveDate {
    month_start(month_start(date) - Duration::days(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        // A Monday.
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
    }

    fn past(text: &str) -> Option<NaiveDate> {
        take_date(text, today(), Direction::Past).0
    }

    fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn relative_words_read_against_today() {
        assert_eq!(past("fue ayer"), Some(ymd(2026, 11, 22)));
        assert_eq!(past("hoy"), Some(today()));
        assert_eq!(past("antier en el súper"), Some(ymd(2026, 11, 21)));
        assert_eq!(past("hace 3 días"), Some(ymd(2026, 11, 20)));
        assert_eq!(past("hace una semana"), Some(ymd(2026, 11, 16)));
        assert_eq!(past("el viernes"), Some(ymd(2026, 11, 20)));
        assert_eq!(past("el lunes"), Some(ymd(2026, 11, 16)));
        let future = take_date("el viernes", today(), Direction::Future).0;
        assert_eq!(future, Some(ymd(2026, 11, 27)));
        let tomorrow = take_date("mañana", today(), Direction::Future).0;
        assert_eq!(tomorrow, Some(ymd(2026, 11, 24)));
    }

    #[test]
    fn numeric_and_named_dates_pick_the_right_side_of_today() {
        assert_eq!(past("el 15"), Some(ymd(2026, 11, 15)));
        assert_eq!(past("el día 28"), Some(ymd(2026, 10, 28)));
        assert_eq!(past("15 de noviembre"), Some(ymd(2026, 11, 15)));
        assert_eq!(past("3 de diciembre"), Some(ymd(2025, 12, 3)));
        assert_eq!(past("15/11"), Some(ymd(2026, 11, 15)));
        assert_eq!(past("1/2/2025"), Some(ymd(2025, 2, 1)));
        assert_eq!(past("2026-11-02"), Some(ymd(2026, 11, 2)));
        assert_eq!(past("el 31 de febrero"), None);
        assert_eq!(past("gasté 250"), None);
    }

    #[test]
    fn the_date_phrase_is_cut_from_the_text() {
        let (date, rest) = take_date("gasté 250 el 15 en tacos", today(), Direction::Past);
        assert_eq!(date, Some(ymd(2026, 11, 15)));
        assert_eq!(rest, "gaste 250 en tacos");
        let (_, rest) = take_date("ayer 300 de uber", today(), Direction::Past);
        assert_eq!(rest, "300 de uber");
    }

    #[test]
    fn month_bounds() {
        assert_eq!(month_start(today()), ymd(2026, 11, 1));
        assert_eq!(month_end(today()), ymd(2026, 11, 30));
        assert_eq!(month_end(ymd(2028, 2, 3)), ymd(2028, 2, 29));
        assert_eq!(previous_month(ymd(2026, 1, 15)), ymd(2025, 12, 1));
    }
}
