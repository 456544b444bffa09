//! The closed query plan behind `queryTransactions` (seed 004: understand, build a
//! strategy, execute, relax when nothing is found, evaluate before answering).
//! A plan is what a question asks of the person's own rows — a measure, filters,
//! a grouping, a comparison period, an order and a limit — filled by the rules or
//! by a model and checked here against a whitelist. Nothing in it is SQL: the
//! backend builds the statement from these enums and binds every value.

use chrono::{Datelike, Duration, NaiveDate};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::category;
use super::date::{month_end, month_start, previous_month};
use crate::text::{MONTHS, normalize};

/// Most rows a plan lists.
pub const MAX_LIMIT: u32 = 50;
/// The longest merchant or text filter kept.
pub const MAX_TEXT: usize = 40;
/// The furthest back a plan looks, in days (five years).
pub const MAX_DAYS_BACK: i64 = 5 * 366;

/// What a question measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    Sum,
    Count,
    Average,
    /// The rows themselves, ordered and limited ("mis 3 gastos más grandes").
    List,
}

/// Money out or money in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flow {
    Expense,
    Income,
}

impl Flow {
    pub fn as_str(self) -> &'static str {
        match self {
            Flow::Expense => "expense",
            Flow::Income => "income",
        }
    }
}

/// How rows are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    Day,
    Weekday,
    Week,
    Month,
    Category,
    Merchant,
}

/// How listed rows are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    AmountDesc,
    AmountAsc,
    DateDesc,
    DateAsc,
}

/// A stretch of time as it was asked, resolved against today when the plan runs,
/// so a plan read in the morning means the same at night.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Span {
    Today,
    Yesterday,
    ThisWeek,
    LastWeek,
    ThisMonth,
    LastMonth,
    ThisYear,
    LastYear,
    /// The last N days, today included.
    LastDays(u16),
    /// A named month, by its first day.
    Month(NaiveDate),
    /// Two dates, both included.
    Between(NaiveDate, NaiveDate),
    /// Everything the person has.
    All,
}

/// First and last day, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    pub from: NaiveDate,
    pub to: NaiveDate,
}

impl Span {
    /// Reads the names a model or the rules use: `today`, `this_week`,
    /// `last_month`, `last_30_days`, `2026-10`, `all`…
    pub fn parse(raw: &str) -> Option<Span> {
        let raw = raw.trim().to_ascii_lowercase();
        Some(match raw.as_str() {
            "today" => Span::Today,
            "yesterday" => Span::Yesterday,
            "this_week" | "week" => Span::ThisWeek,
            "last_week" | "previous_week" => Span::LastWeek,
            "this_month" | "current_month" | "month" => Span::ThisMonth,
            "last_month" | "previous_month" => Span::LastMonth,
            "this_year" | "year" => Span::ThisYear,
            "last_year" | "previous_year" => Span::LastYear,
            "all" | "all_time" | "everything" => Span::All,
            other => {
                if let Some(days) = other
                    .strip_prefix("last_")
                    .and_then(|r| r.strip_suffix("_days"))
                {
                    let days: u16 = days.parse().ok()?;
                    return (1..=MAX_DAYS_BACK as u16)
                        .contains(&days)
                        .then_some(Span::LastDays(days));
                }
                let first = NaiveDate::parse_from_str(&format!("{other}-01"), "%Y-%m-%d").ok()?;
                plausible(first).then_some(Span::Month(first))?
            }
        })
    }

    /// Whether the dates asked lie wholly after today or before the furthest
    /// look back: then nothing is measured (a clamp would show other days).
    pub fn outside(self, today: NaiveDate) -> bool {
        let floor = today - Duration::days(MAX_DAYS_BACK);
        match self {
            Span::Month(first) => month_start(first) > today || month_end(first) < floor,
            Span::Between(from, to) => from.min(to) > today || from.max(to) < floor,
            _ => false,
        }
    }

    /// The dates it covers, never past today nor before the furthest look back.
    pub fn resolve(self, today: NaiveDate) -> Range {
        let monday = today - Duration::days(i64::from(today.weekday().num_days_from_monday()));
        let year_start = |year| NaiveDate::from_ymd_opt(year, 1, 1).unwrap_or(today);
        let (from, to) = match self {
            Span::Today => (today, today),
            Span::Yesterday => (today - Duration::days(1), today - Duration::days(1)),
            Span::ThisWeek => (monday, today),
            Span::LastWeek => (monday - Duration::days(7), monday - Duration::days(1)),
            Span::ThisMonth => (month_start(today), today),
            Span::LastMonth => {
                let start = previous_month(today);
                (start, month_end(start))
            }
            Span::ThisYear => (year_start(today.year()), today),
            Span::LastYear => (
                year_start(today.year() - 1),
                year_start(today.year()) - Duration::days(1),
            ),
            Span::LastDays(days) => (today - Duration::days(i64::from(days) - 1), today),
            Span::Month(first) => (month_start(first), month_end(first)),
            Span::Between(from, to) => (from.min(to), from.max(to)),
            Span::All => (today - Duration::days(MAX_DAYS_BACK), today),
        };
        let floor = today - Duration::days(MAX_DAYS_BACK);
        Range {
            from: from.max(floor).min(today),
            to: to.min(today).max(from.max(floor).min(today)),
        }
    }

    /// The span in the words of a reply ("en octubre de 2026", "la semana pasada").
    pub fn describe(self, today: NaiveDate) -> String {
        let range = self.resolve(today);
        match self {
            Span::Today => "hoy".into(),
            Span::Yesterday => "ayer".into(),
            Span::ThisWeek => "esta semana".into(),
            Span::LastWeek => format!("la semana pasada ({} a {})", range.from, range.to),
            Span::ThisMonth => format!("este mes ({})", month_name(range.from)),
            Span::LastMonth => format!("el mes pasado ({})", month_name(range.from)),
            Span::ThisYear => format!("en lo que va de {}", range.from.year()),
            Span::LastYear => format!("en {}", range.from.year()),
            Span::LastDays(days) => format!("en los últimos {days} días"),
            Span::Month(first) => format!("en {}", month_name(first)),
            Span::Between(..) => format!("del {} al {}", range.from, range.to),
            Span::All => "en todo tu historial".into(),
        }
    }
}

/// A date a plan may name: years 2000 to 2100 (chrono reads far wider ones,
/// whose month arithmetic overflows).
fn plausible(date: NaiveDate) -> bool {
    (2000..=2100).contains(&date.year())
}

/// "octubre de 2026".
pub fn month_name(date: NaiveDate) -> String {
    format!("{} de {}", MONTHS[date.month0() as usize], date.year())
}

/// A question about the person's rows, validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryPlan {
    pub measure: Measure,
    pub flow: Flow,
    /// A category key; an umbrella counts its neighbours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Words the description or merchant holds (normalized: lowercase, no accents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub span: Span,
    /// 0 = Monday.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekday: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_cents: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cents: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_by: Option<GroupBy>,
    /// A second period the same filters are measured over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Span>,
    pub order: Order,
    pub limit: u32,
}

impl Default for QueryPlan {
    fn default() -> Self {
        QueryPlan {
            measure: Measure::Sum,
            flow: Flow::Expense,
            category: None,
            text: None,
            span: Span::All,
            weekday: None,
            min_cents: None,
            max_cents: None,
            group_by: None,
            compare: None,
            order: Order::AmountDesc,
            limit: 5,
        }
    }
}

/// The keys a plan may carry besides the tool's `name`.
const KEYS: &[&str] = &[
    "name",
    "measure",
    "kind",
    "category",
    "text",
    "query",
    "period",
    "from",
    "to",
    "weekday",
    "min_amount",
    "max_amount",
    "group_by",
    "compare_period",
    "order",
    "limit",
];

/// A text filter as kept: normalized, letters, digits and spaces only, bounded.
pub fn clean_text(raw: &str) -> Option<String> {
    let kept: String = normalize(raw)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == ' ' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let words: Vec<&str> = kept.split_whitespace().collect();
    let mut text = words.join(" ");
    if text.len() > MAX_TEXT {
        text.truncate(MAX_TEXT);
        text = text.trim_end().to_owned();
    }
    (!text.is_empty()).then_some(text)
}

impl QueryPlan {
    /// Validates a plan as a proposer sent it. Any unknown key or value outside
    /// the whitelist refuses the whole plan with the reason; nothing is guessed.
    pub fn parse(map: &Map<String, Value>) -> Result<QueryPlan, String> {
        if let Some(unknown) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(format!("unknown field {unknown:?}"));
        }
        let field = |key: &str| map.get(key).filter(|v| !v.is_null());
        let string = |key: &str| -> Result<Option<&str>, String> {
            match field(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.as_str())),
                Some(other) => Err(format!("{key} must be text, not {other}")),
            }
        };
        let choice = |key: &str| -> Result<Option<Value>, String> {
            Ok(string(key)?.map(|s| Value::String(s.trim().to_ascii_lowercase())))
        };
        let enumerated = |key: &str| -> Result<Option<Value>, String> { choice(key) };
        let mut plan = QueryPlan::default();
        if let Some(v) = enumerated("measure")? {
            plan.measure = serde_json::from_value(v).map_err(|_| "unknown measure".to_owned())?;
        }
        if let Some(v) = enumerated("kind")? {
            plan.flow = serde_json::from_value(v).map_err(|_| "unknown kind".to_owned())?;
        }
        if let Some(name) = string("category")? {
            let found =
                category::named(name).ok_or_else(|| format!("unknown category {name:?}"))?;
            plan.category = Some(found.key.to_owned());
        }
        plan.text = match (string("text")?, string("query")?) {
            (Some(text), _) | (None, Some(text)) => clean_text(text),
            (None, None) => None,
        };
        let date = |key: &str| -> Result<Option<NaiveDate>, String> {
            string(key)?
                .map(|s| {
                    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
                        .ok()
                        .filter(|d| plausible(*d))
                        .ok_or_else(|| format!("{key} must be YYYY-MM-DD, years 2000 to 2100"))
                })
                .transpose()
        };
        plan.span = match (date("from")?, date("to")?, string("period")?) {
            (Some(from), Some(to), _) if from > to => return Err("from is after to".into()),
            (Some(from), Some(to), _) => Span::Between(from, to),
            (Some(_), None, _) | (None, Some(_), _) => {
                return Err("from and to go together".into());
            }
            (None, None, Some(period)) => {
                Span::parse(period).ok_or_else(|| format!("unknown period {period:?}"))?
            }
            (None, None, None) => Span::All,
        };
        if let Some(period) = string("compare_period")? {
            plan.compare =
                Some(Span::parse(period).ok_or_else(|| format!("unknown period {period:?}"))?);
        }
        plan.weekday = match field("weekday") {
            None => None,
            Some(Value::Number(n)) => Some(
                n.as_u64()
                    .filter(|d| *d < 7)
                    .ok_or("weekday is 0 (Monday) to 6")? as u8,
            ),
            Some(Value::String(s)) => Some(weekday_named(&normalize(s)).ok_or("unknown weekday")?),
            Some(_) => return Err("weekday is 0 (Monday) to 6".into()),
        };
        let amount = |key: &str| -> Result<Option<i64>, String> {
            match field(key) {
                None => Ok(None),
                Some(Value::Number(n)) => n
                    .as_f64()
                    .filter(|f| f.is_finite() && *f >= 0.0 && *f < 1e12)
                    .map(|f| Some((f * 100.0).round() as i64))
                    .ok_or_else(|| format!("{key} must be a positive amount")),
                Some(_) => Err(format!("{key} must be a number")),
            }
        };
        plan.min_cents = amount("min_amount")?;
        plan.max_cents = amount("max_amount")?;
        if let (Some(min), Some(max)) = (plan.min_cents, plan.max_cents)
            && min > max
        {
            return Err("min_amount is above max_amount".into());
        }
        if let Some(v) = enumerated("group_by")? {
            plan.group_by =
                Some(serde_json::from_value(v).map_err(|_| "unknown group_by".to_owned())?);
        }
        if let Some(v) = enumerated("order")? {
            plan.order = serde_json::from_value(v).map_err(|_| "unknown order".to_owned())?;
        }
        if let Some(limit) = field("limit") {
            let n = limit
                .as_u64()
                .filter(|n| (1..=u64::from(MAX_LIMIT)).contains(n))
                .ok_or_else(|| format!("limit is 1 to {MAX_LIMIT}"))?;
            plan.limit = n as u32;
        }
        Ok(plan)
    }
}

/// 0 = Monday, from a Spanish weekday word (singular or plural).
pub fn weekday_named(word: &str) -> Option<u8> {
    let word = word.trim();
    super::date::WEEKDAYS
        .iter()
        .position(|(d, _)| word == *d || word.strip_suffix('s') == Some(d))
        .map(|i| i as u8)
}

/// As a reply writes them.
pub const WEEKDAY_LABELS: [&str; 7] = [
    "lunes",
    "martes",
    "miércoles",
    "jueves",
    "viernes",
    "sábado",
    "domingo",
];

/// Whether `asked` is a misspelling of `description` or of one of its words.
pub fn resembles(asked: &str, description: &str) -> bool {
    let close = |a: &str, b: &str| {
        let limit = match a.chars().count().min(b.chars().count()) {
            0..=2 => 0,
            3..=6 => 1,
            _ => 2,
        };
        limit > 0 && strsim::damerau_levenshtein(a, b) <= limit
    };
    if asked.is_empty() {
        return false;
    }
    if close(asked, description) || description.replace(' ', "") == asked.replace(' ', "") {
        return true;
    }
    let words: Vec<&str> = description.split(' ').filter(|w| w.len() >= 3).collect();
    asked.split(' ').filter(|w| w.len() >= 3).all(|a| {
        words
            .iter()
            .any(|w| close(a, w) || (a.len() >= 4 && w.starts_with(a)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn today() -> NaiveDate {
        // A Wednesday.
        NaiveDate::from_ymd_opt(2026, 11, 25).unwrap()
    }

    fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn parse(value: Value) -> Result<QueryPlan, String> {
        QueryPlan::parse(value.as_object().unwrap())
    }

    #[test]
    fn spans_resolve_against_today() {
        let r = |s: Span| {
            let r = s.resolve(today());
            (r.from, r.to)
        };
        assert_eq!(r(Span::ThisWeek), (ymd(2026, 11, 23), today()));
        assert_eq!(r(Span::LastWeek), (ymd(2026, 11, 16), ymd(2026, 11, 22)));
        assert_eq!(r(Span::LastMonth), (ymd(2026, 10, 1), ymd(2026, 10, 31)));
        assert_eq!(r(Span::ThisYear), (ymd(2026, 1, 1), today()));
        assert_eq!(r(Span::LastYear), (ymd(2025, 1, 1), ymd(2025, 12, 31)));
        assert_eq!(r(Span::LastDays(7)), (ymd(2026, 11, 19), today()));
        assert_eq!(
            r(Span::Month(ymd(2026, 9, 1))),
            (ymd(2026, 9, 1), ymd(2026, 9, 30))
        );
        // Never past today, never further back than the limit.
        assert_eq!(r(Span::Month(ymd(2026, 11, 1))).1, today());
        assert_eq!(r(Span::Month(ymd(2027, 3, 1))), (today(), today()));
        assert_eq!(
            r(Span::Between(ymd(1990, 1, 1), ymd(2026, 1, 1))).0,
            today() - Duration::days(MAX_DAYS_BACK)
        );
        assert_eq!(Span::parse("last_7_days"), Some(Span::LastDays(7)));
        assert_eq!(Span::parse("2026-10"), Some(Span::Month(ymd(2026, 10, 1))));
        assert_eq!(Span::parse("last_0_days"), None);
        assert_eq!(Span::parse("forever"), None);
        assert!(Span::Month(ymd(2026, 12, 1)).outside(today()));
        assert!(Span::Month(ymd(2020, 10, 1)).outside(today()));
        assert!(!Span::Month(ymd(2026, 11, 1)).outside(today()));
        assert_eq!(
            Span::Month(ymd(2026, 10, 1)).describe(today()),
            "en octubre de 2026"
        );
    }

    #[test]
    fn a_full_plan_parses_and_round_trips() {
        let plan = parse(json!({
            "name": "queryTransactions", "measure": "average", "kind": "expense",
            "category": "Restaurantes", "text": "Tacos  El Güero!", "period": "last_month",
            "weekday": "sábado", "min_amount": 100, "max_amount": 500.5, "group_by": "weekday",
            "compare_period": "2026-09", "order": "date_desc", "limit": 10
        }))
        .unwrap();
        assert_eq!(plan.measure, Measure::Average);
        assert_eq!(plan.category.as_deref(), Some("restaurantes"));
        assert_eq!(plan.text.as_deref(), Some("tacos el guero"));
        assert_eq!(plan.weekday, Some(5));
        assert_eq!(
            (plan.min_cents, plan.max_cents),
            (Some(10_000), Some(50_050))
        );
        assert_eq!(plan.group_by, Some(GroupBy::Weekday));
        assert_eq!(plan.compare, Some(Span::Month(ymd(2026, 9, 1))));
        let stored = serde_json::to_value(&plan).unwrap();
        assert_eq!(serde_json::from_value::<QueryPlan>(stored).unwrap(), plan);
        let dates = parse(json!({"from": "2026-10-05", "to": "2026-10-20", "kind": null})).unwrap();
        assert_eq!(
            dates.span,
            Span::Between(ymd(2026, 10, 5), ymd(2026, 10, 20))
        );
    }

    #[test]
    fn anything_outside_the_whitelist_refuses_the_plan() {
        for hostile in [
            json!({"sql": "DROP TABLE fin_transactions"}),
            json!({"measure": "median"}),
            json!({"measure": 3}),
            json!({"group_by": "contact_id"}),
            json!({"order": "amount_cents; DELETE"}),
            json!({"limit": 51}),
            json!({"limit": 0}),
            json!({"limit": -1}),
            json!({"period": "1=1"}),
            json!({"from": "2026-10-31", "to": "2026-10-01"}),
            json!({"from": "2026-10-01"}),
            json!({"category": "criptomonedas"}),
            json!({"weekday": 7}),
            json!({"min_amount": -5}),
            json!({"min_amount": 500, "max_amount": 100}),
            json!({"kind": "transfer"}),
            json!({"period": "+262142-12"}),
            json!({"from": "1500-01-01", "to": "2026-01-01"}),
        ] {
            assert!(parse(hostile.clone()).is_err(), "{hostile}");
        }
        // Text is kept as words only, bounded.
        let plan = parse(json!({"text": "uber'; DROP TABLE x; --".repeat(10)})).unwrap();
        let text = plan.text.unwrap();
        assert!(
            text.len() <= MAX_TEXT && text.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ')
        );
        assert_eq!(parse(json!({"text": "¡¿!?"})).unwrap().text, None);
    }

    #[test]
    fn misspellings_resemble_what_the_person_wrote_before() {
        for (asked, description) in [
            ("ubr", "uber"),
            ("starbuks", "starbucks"),
            ("walmar", "walmart"),
            ("liverpul", "liverpool"),
            ("cinepolis", "cinepolis"),
            ("guero", "tacos el guero"),
            ("tacos guero", "tacos el guero"),
            ("netflx", "netflix"),
        ] {
            assert!(resembles(asked, description), "{asked} ~ {description}");
        }
        for (asked, description) in [
            ("amazon", "uber"),
            ("oxxo", "soriana"),
            ("rappi", "pizza"),
            ("gas", "gasolina"),
            ("", "uber"),
        ] {
            assert!(!resembles(asked, description), "{asked} !~ {description}");
        }
    }
}
