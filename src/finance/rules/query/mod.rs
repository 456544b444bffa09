//! Free-form questions about one's own money read into a query plan («¿cuánto le
//! he metido a Uber en octubre?», «mis 3 gastos más caros», «¿qué día gasto
//! más?», «¿gasté más en restaurantes este mes que el pasado?», «¿y solo en
//! tacos?»). The message is read piece by piece — the periods it names, what it
//! measures, how it groups, the amounts that bound it, the place or category it
//! is about — and a follow-up refines the plan before it. The plan goes out as
//! the same JSON a model would send, and the backend validates it the same way.

mod words;

use chrono::{Datelike, Duration, NaiveDate};
use serde_json::{Value, json};

use super::Message;
use super::words::any;
use crate::finance::core::amount;
use crate::finance::core::category;
use crate::finance::core::date::month_named;
use crate::finance::core::query::{
    Flow, GroupBy, Measure, Order, QueryPlan, Span, resembles, weekday_named,
};
use crate::finance::core::tools::ToolName;
use crate::text::{contains_phrase, number_word};
use words::*;

/// What a message asks of the data, read into a plan; `None` when it is not a
/// question about one's movements.
/// A question read: the tool request, and whether it refines the one before
/// (then only this tool can answer it).
pub(super) struct Read {
    pub request: Value,
    /// Further plans compared with the first, answered side by side.
    pub others: Vec<Value>,
    pub plan: QueryPlan,
    pub follow_up: bool,
    /// The message (or the question it follows) named a period.
    pub said_span: bool,
    /// The message itself named a period («este mes», «el mes pasado»).
    pub named_span: bool,
}

pub(super) fn read(
    message: &Message,
    merchants: &[String],
    last: Option<&QueryPlan>,
) -> Option<Read> {
    let norm = super::words::chat_spelled(&message.norm);
    let words: Vec<&str> = norm.split(' ').filter(|w| !w.is_empty()).collect();
    let spans = spans(&words, message.today);
    let measure = measure(&norm, &words);
    let group = group_by(&norm);
    let bounds = bounds(message);
    if !amounts_explained(message, bounds) {
        return None;
    }
    let comparing = any(&norm, COMPARE) || any(&norm, &["mas que", "menos que"]);
    // A span of several days with no amount: «lo que se me fue en didi en
    // octubre» asks, even without a question mark.
    let over_days = spans
        .iter()
        .any(|s| !matches!(s, Span::Today | Span::Yesterday | Span::Between(..)));
    // «mándame una gráfica de eso»: the question before, drawn.
    let drawn = any(
        &norm,
        &[
            "grafica",
            "grafico",
            "graficame",
            "graficalo",
            "chart",
            "diagrama",
        ],
    );
    let asks = message.question()
        || drawn
        || any(&norm, ASKING)
        || measure.is_some()
        || group.is_some()
        || bounds != (None, None)
        || comparing
        || (over_days && message.amounts.is_empty())
        || (last.is_some() && is_follow_up(&words));
    if !asks {
        return None;
    }
    let flow = if any(&norm, INCOME) {
        Some(Flow::Income)
    } else if any(&norm, crate::finance::rules::words::SPEND)
        || any(
            &norm,
            &[
                "gastado", "gastando", "gastar", "spent", "spend", "spending",
            ],
        )
    {
        Some(Flow::Expense)
    } else {
        None
    };
    let weekday = weekday_filter(&words);
    let Subject {
        category,
        place,
        places,
        kinds,
    } = subject(&norm, &words, merchants);
    // A follow-up must say something new of its own.
    let says_something = !spans.is_empty()
        || place.is_some()
        || category.is_some()
        || measure.is_some()
        || group.is_some()
        || bounds != (None, None)
        || flow.is_some()
        || weekday.is_some();
    let follow = last.filter(|_| (says_something && is_follow_up(&words)) || drawn);
    let about_money = flow.is_some()
        || any(
            &norm,
            &[
                "gasto",
                "gastos",
                "movimientos",
                "compras",
                "lana",
                "dinero",
                "varo",
                "feria",
                "total",
            ],
        )
        || measure.is_some()
        || group.is_some()
        || bounds != (None, None)
        || place.is_some()
        || category.is_some();
    if follow.is_none() && !about_money {
        return None;
    }
    let mut plan = match follow {
        Some(previous) => previous.clone(),
        None => QueryPlan::default(),
    };
    if follow.is_some() {
        let narrowing = any(&norm, NARROW);
        match (&place, category) {
            (Some(text), _) => {
                plan.text = Some(text.clone());
                if !narrowing {
                    plan.category = category.map(str::to_owned);
                }
            }
            (None, Some(c)) => {
                plan.category = Some(c.to_owned());
                if !narrowing {
                    plan.text = None;
                }
            }
            (None, None) => {}
        }
        if measure.is_some() || group.is_some() {
            plan.group_by = None;
            plan.order = Order::AmountDesc;
        }
        if !spans.is_empty() {
            plan.compare = None;
        }
    } else {
        plan.text = place.clone();
        plan.category = category.map(str::to_owned);
    }
    if let Some(flow) = flow {
        plan.flow = flow;
    }
    if let Some((measure, order, limit)) = measure {
        plan.measure = measure;
        plan.order = order;
        plan.limit = limit;
    }
    if let Some(mut group) = group {
        // Within one category, «¿en qué se me va más?» is by place.
        if group == GroupBy::Category && plan.category.is_some() && !kinds.len().ge(&2) {
            group = GroupBy::Merchant;
        }
        plan.group_by = Some(group);
        if matches!(plan.measure, Measure::List) {
            plan.measure = Measure::Sum;
        }
    }
    if bounds != (None, None) {
        plan.min_cents = bounds.0;
        plan.max_cents = bounds.1;
    }
    if weekday.is_some() {
        plan.weekday = weekday;
    }
    match spans.as_slice() {
        [] => {}
        [one] if follow.is_some() && comparing => plan.compare = Some(*one),
        [one] => plan.span = *one,
        [first, second, ..] => {
            plan.span = *first;
            plan.compare = Some(*second);
        }
    }
    if plan.compare == Some(plan.span) {
        plan.compare = None;
    }
    let named_span = !spans.is_empty();
    // «¿cuánto llevo en uber?»: so far this month.
    let said_span = !spans.is_empty()
        || follow.is_some()
        || any(
            &norm,
            &[
                "en total",
                "desde que",
                "historial",
                "siempre",
                "todo el tiempo",
                "de todo",
                "todo lo que llevo",
                "desde el inicio",
                "ever",
                "apuntado",
                "registrado",
            ],
        );
    if spans.is_empty()
        && any(&norm, &["llevo", "llevamos", "lleva", "llevas"])
        && !any(&norm, &["todo lo que llevo", "en total", "desde que"])
    {
        plan.span = Span::ThisMonth;
    }
    // «¿Más en pizza o en sushi?», «¿el súper o los restaurantes?», «¿gané más
    // de lo que gasté?»: one plan per thing compared, answered side by side.
    let alternatives = any(
        &norm,
        &[
            " o ",
            "vs",
            "versus",
            "comparado",
            "compara",
            "contra",
            "mas que",
            "menos que",
        ],
    ) || norm.contains(" o ")
        || any(&norm, &["mas en", "mas de lo que", "o en"]);
    let mut others = Vec::new();
    // «¿Qué me come más, el súper o los restaurantes?» compares the two named.
    if alternatives && kinds.len() >= 2 && plan.group_by == Some(GroupBy::Category) {
        plan.group_by = None;
    }
    if alternatives && plan.group_by.is_none() {
        if places.len() >= 2 {
            plan.text = Some(places[0].clone());
            plan.category = None;
            for other in places.iter().skip(1).take(2) {
                others.push(QueryPlan {
                    text: Some(other.clone()),
                    ..plan.clone()
                });
            }
        } else if kinds.len() >= 2 && place.is_none() {
            plan.category = Some(kinds[0].to_owned());
            for other in kinds.iter().skip(1).take(2) {
                others.push(QueryPlan {
                    category: Some((*other).to_owned()),
                    ..plan.clone()
                });
            }
        } else if any(&norm, INCOME)
            && (any(&norm, crate::finance::rules::words::SPEND)
                || any(&norm, &["gastado", "gastos", "spent"]))
        {
            plan.flow = Flow::Income;
            others.push(QueryPlan {
                flow: Flow::Expense,
                category: None,
                ..plan.clone()
            });
        }
    }
    Some(Read {
        others: others.iter().map(to_request).collect(),
        request: to_request(&plan),
        said_span: said_span || plan.span == Span::ThisMonth,
        named_span,
        plan,
        follow_up: follow.is_some(),
    })
}

/// The older, fixed tool that answers this question as asked and more fully,
/// with its request: a category's total over a month with its trend, its parts
/// and its largest expenses (also «¿en qué gasto más?» and «un resumen» with no
/// period, which it answers for this month); anomalies, a projection, the
/// months' trend; a search for when something was bought.
pub(super) fn older_answer(tools: &[ToolName], read: &Read) -> Option<Vec<Value>> {
    let plan = &read.plan;
    let simple = plan.measure == Measure::Sum
        && plan.flow == Flow::Expense
        && plan.compare.is_none()
        && plan.min_cents.is_none()
        && plan.max_cents.is_none()
        && plan.weekday.is_none();
    let period = match plan.span {
        Span::ThisMonth => Some("current_month".to_owned()),
        Span::LastMonth => Some("last_month".to_owned()),
        Span::LastDays(30) => Some("last_30_days".to_owned()),
        Span::LastDays(90) => Some("last_90_days".to_owned()),
        Span::Month(first) => Some(first.format("%Y-%m").to_string()),
        Span::All if !read.said_span => None,
        // Only this tool reads other periods.
        _ => return Some(Vec::new()),
    };
    let request = |name: ToolName| {
        let mut request = json!({"name": name.as_str()});
        if let Some(c) = &plan.category {
            request["category"] = json!(c);
        }
        if let Some(p) = &period {
            request["period"] = json!(p);
        }
        request
    };
    match tools {
        [ToolName::AnalyzeSpendingPattern]
            if simple
                && plan.text.is_none()
                && matches!(plan.group_by, None | Some(GroupBy::Category)) =>
        {
            Some(vec![request(ToolName::AnalyzeSpendingPattern)])
        }
        // A search keeps the message's own words; it is not a refinement.
        [ToolName::SearchExpenses]
            if !read.follow_up && simple && plan.group_by.is_none() && plan.text.is_some() =>
        {
            None
        }
        _ if !read.follow_up && simple && plan.text.is_none() && plan.group_by.is_none() => None,
        _ => Some(Vec::new()),
    }
}

/// Whether every amount in the message is part of the question (a bound, «los
/// últimos 7 días», «mis 3 gastos», a year): an amount that is not is a movement
/// being reported, not asked about.
fn amounts_explained(message: &Message, bounds: (Option<i64>, Option<i64>)) -> bool {
    let words: Vec<&str> = message.rest.split(' ').collect();
    message.amounts.iter().all(|f| {
        let next = words.get(f.end).copied().unwrap_or("");
        Some(f.cents) == bounds.0
            || Some(f.cents) == bounds.1
            || matches!(
                next,
                "dias"
                    | "semanas"
                    | "meses"
                    | "days"
                    | "weeks"
                    | "months"
                    | "gastos"
                    | "compras"
                    | "movimientos"
                    | "mas"
                    | "mayores"
                    | "pagos"
                    | "ultimos"
                    | "cosas"
                    | "veces"
            )
            || (200_000..=210_000).contains(&f.cents)
    })
}

/// The plan as the tool request a proposer sends.
fn to_request(plan: &QueryPlan) -> Value {
    let mut request = serde_json::Map::new();
    request.insert("name".into(), json!("queryTransactions"));
    let mut value = serde_json::to_value(plan).unwrap_or(Value::Null);
    let map = value
        .as_object_mut()
        .map(std::mem::take)
        .unwrap_or_default();
    for (key, v) in map {
        match key.as_str() {
            "flow" => {
                request.insert("kind".into(), v);
            }
            "span" => {
                request.insert("period".into(), json!(span_name(plan.span)));
                if let Span::Between(from, to) = plan.span {
                    request.remove("period");
                    request.insert("from".into(), json!(from));
                    request.insert("to".into(), json!(to));
                }
            }
            "compare" => {
                if let Some(span) = plan.compare {
                    request.insert("compare_period".into(), json!(span_name(span)));
                }
            }
            "min_cents" => {
                request.insert(
                    "min_amount".into(),
                    json!(plan.min_cents.map(|c| c as f64 / 100.0)),
                );
            }
            "max_cents" => {
                request.insert(
                    "max_amount".into(),
                    json!(plan.max_cents.map(|c| c as f64 / 100.0)),
                );
            }
            _ => {
                request.insert(key, v);
            }
        }
    }
    Value::Object(request)
}

/// The name `Span::parse` reads back.
fn span_name(span: Span) -> String {
    match span {
        Span::Today => "today".into(),
        Span::Yesterday => "yesterday".into(),
        Span::ThisWeek => "this_week".into(),
        Span::LastWeek => "last_week".into(),
        Span::ThisMonth => "this_month".into(),
        Span::LastMonth => "last_month".into(),
        Span::ThisYear => "this_year".into(),
        Span::LastYear => "last_year".into(),
        Span::LastDays(days) => format!("last_{days}_days"),
        Span::Month(first) => first.format("%Y-%m").to_string(),
        // Two dates travel as from/to; as a comparison, the whole history stands in.
        Span::Between(..) | Span::All => "all".into(),
    }
}

/// A follow-up opens with «y», «ahora», «de eso»…, or is a short fragment with
/// no question of its own («en didi?», «el mes pasado»).
fn is_follow_up(words: &[&str]) -> bool {
    let text = words.join(" ");
    let opens = FOLLOW
        .iter()
        .any(|f| text == *f || text.starts_with(&format!("{f} ")))
        || NARROW.iter().any(|n| text.starts_with(n));
    let fragment = words.len() <= 4 && !any(&text, crate::finance::rules::words::SPEND);
    // «en ese mes», «de eso», «cada vez»: the question before is referred to.
    let refers = any(
        &text,
        &[
            "ese mes",
            "esa semana",
            "ese dia",
            "ese periodo",
            "de eso",
            "de esos",
            "esas veces",
            "ahi mismo",
        ],
    );
    opens || fragment || refers
}

/// The periods a message names, in the order it names them.
fn spans(words: &[&str], today: NaiveDate) -> Vec<Span> {
    // Each period found: where it starts, how many words it takes, what it is.
    let mut found: Vec<(usize, usize, Span)> = Vec::new();
    let text = words.join(" ");
    let at = |phrase: &str| -> Option<usize> {
        let padded = format!(" {text} ");
        padded
            .find(&format!(" {phrase} "))
            .map(|byte| padded[..byte].split(' ').filter(|w| !w.is_empty()).count())
    };
    let mut push = |phrases: &[&str], span: Span| {
        for phrase in phrases {
            if let Some(i) = at(phrase)
                && !found.iter().any(|(_, _, s)| *s == span)
            {
                found.push((i, phrase.split(' ').count(), span));
            }
        }
    };
    push(&["hoy", "el dia de hoy", "today"], Span::Today);
    push(&["ayer", "yesterday"], Span::Yesterday);
    push(&["this week"], Span::ThisWeek);
    push(&["last week"], Span::LastWeek);
    push(&["this month"], Span::ThisMonth);
    push(&["last month"], Span::LastMonth);
    push(&["this year"], Span::ThisYear);
    push(&["last 7 days", "past week"], Span::LastDays(7));
    push(&["last 30 days"], Span::LastDays(30));
    push(
        &["antier", "antes de ayer", "anteayer"],
        Span::Between(today - Duration::days(2), today - Duration::days(2)),
    );
    push(
        &["esta semana", "en la semana", "lo que va de la semana"],
        Span::ThisWeek,
    );
    push(
        &[
            "semana pasada",
            "semana anterior",
            "la otra semana",
            "pasada semana",
        ],
        Span::LastWeek,
    );
    push(
        &[
            "este mes",
            "en el mes",
            "del mes",
            "mes actual",
            "lo que va del mes",
            "este mes",
        ],
        Span::ThisMonth,
    );
    push(
        &["mes pasado", "mes anterior", "el otro mes", "pasado mes"],
        Span::LastMonth,
    );
    push(
        &[
            "este ano",
            "en el ano",
            "lo que va del ano",
            "en lo que va del ano",
            "ano actual",
        ],
        Span::ThisYear,
    );
    push(&["ano pasado", "ano anterior"], Span::LastYear);
    push(
        &["ultima semana", "ultimos 7 dias", "ultimos siete dias"],
        Span::LastDays(7),
    );
    push(
        &[
            "ultimos 15 dias",
            "ultimos quince dias",
            "ultima quincena",
            "ultimas dos semanas",
        ],
        Span::LastDays(15),
    );
    push(
        &[
            "ultimo mes",
            "ultimos 30 dias",
            "ultimos treinta dias",
            "ultimas semanas",
        ],
        Span::LastDays(30),
    );
    push(
        &[
            "ultimos 3 meses",
            "ultimos tres meses",
            "ultimos 90 dias",
            "trimestre",
        ],
        Span::LastDays(90),
    );
    // «los últimos N días / semanas / meses».
    for (i, w) in words.iter().enumerate() {
        if !matches!(
            *w,
            "ultimos" | "ultimas" | "pasados" | "pasadas" | "last" | "past"
        ) {
            continue;
        }
        let Some(n) = words
            .get(i + 1)
            .and_then(|n| n.parse::<i64>().ok().or_else(|| number_word(n)))
        else {
            continue;
        };
        let unit = match words.get(i + 2) {
            Some(&"dias") | Some(&"days") => 1,
            Some(&"semanas") | Some(&"weeks") => 7,
            Some(&"meses") | Some(&"months") => 30,
            _ => continue,
        };
        let days = n.clamp(1, 1830).saturating_mul(unit).clamp(1, 1830) as u16;
        if !found.iter().any(|(_, _, s)| *s == Span::LastDays(days)) {
            found.push((i, 3, Span::LastDays(days)));
        }
    }
    // Month names: this year's unless that is still to come.
    for (i, w) in words.iter().enumerate() {
        let Some(month) = month_named(w).filter(|_| w.len() > 3) else {
            continue;
        };
        // «15 de octubre» is a day, not the month.
        if i >= 2 && words[i - 1] == "de" && words[i - 2].parse::<u32>().is_ok() {
            continue;
        }
        let year = words
            .get(i + 1..i + 3)
            .and_then(|next| next.iter().find_map(|n| n.parse::<i32>().ok()))
            .filter(|y| (2000..=today.year()).contains(y))
            .unwrap_or(if month > today.month() {
                today.year() - 1
            } else {
                today.year()
            });
        if let Some(first) = NaiveDate::from_ymd_opt(year, month, 1)
            && !found.iter().any(|(_, _, s)| *s == Span::Month(first))
        {
            found.push((i, 1, Span::Month(first)));
        }
    }
    // «del mes pasado» is last month, not also «del mes»: a period inside a
    // longer one is part of it, and of two that overlap the later one says
    // what the first began.
    let all = found.clone();
    found.retain(|(i, len, _)| {
        !all.iter().any(|(j, other, _)| {
            (other > len && *j <= *i && i + len <= j + other) || (*j > *i && *j < i + len)
        })
    });
    // «el pasado», «la pasada» after a period: the one before it.
    if found.len() == 1
        && let Some(i) = at("el pasado")
            .or(at("la pasada"))
            .or(at("el anterior"))
            .or(at("la anterior"))
        && i > found[0].0
    {
        let before = match found[0].2 {
            Span::ThisWeek => Some(Span::LastWeek),
            Span::ThisMonth => Some(Span::LastMonth),
            Span::ThisYear => Some(Span::LastYear),
            _ => None,
        };
        if let Some(before) = before {
            found.push((i, 2, before));
        }
    }
    found.sort_by_key(|(i, _, _)| *i);
    found.into_iter().map(|(_, _, s)| s).collect()
}

/// Measure, order and limit, when the message says them.
fn measure(n: &str, words: &[&str]) -> Option<(Measure, Order, u32)> {
    let limit_said = words.windows(2).find_map(|w| {
        let count = w[0].parse::<i64>().ok().or_else(|| number_word(w[0]))?;
        let noun = matches!(
            w[1],
            "gastos"
                | "compras"
                | "movimientos"
                | "mas"
                | "mayores"
                | "cosas"
                | "pagos"
                | "ultimos"
        );
        (noun && (1..=50).contains(&count)).then_some(count as u32)
    });
    let plural = words.iter().any(|w| {
        matches!(
            *w,
            "gastos"
                | "compras"
                | "movimientos"
                | "cuales"
                | "pagos"
                | "grandes"
                | "caros"
                | "caras"
        )
    });
    let default_limit = if plural { 5 } else { 1 };
    if any(n, LARGEST) {
        return Some((
            Measure::List,
            Order::AmountDesc,
            limit_said.unwrap_or(default_limit),
        ));
    }
    if any(n, SMALLEST) {
        return Some((
            Measure::List,
            Order::AmountAsc,
            limit_said.unwrap_or(default_limit),
        ));
    }
    if any(n, RECENT) {
        return Some((
            Measure::List,
            Order::DateDesc,
            limit_said.unwrap_or(default_limit.max(5)),
        ));
    }
    if any(n, SUM) {
        return Some((Measure::Sum, Order::AmountDesc, 5));
    }
    if any(n, AVERAGE) {
        return Some((Measure::Average, Order::AmountDesc, 5));
    }
    if any(n, COUNT)
        || words.windows(2).any(|w| {
            matches!(w[0], "cuantas" | "cuantos")
                && !matches!(w[1], "pesos" | "varos" | "dolares" | "lana")
        })
    {
        return Some((Measure::Count, Order::AmountDesc, 5));
    }
    if any(n, LISTING) {
        return Some((Measure::List, Order::DateDesc, limit_said.unwrap_or(10)));
    }
    None
}

fn group_by(n: &str) -> Option<GroupBy> {
    let words: Vec<&str> = n.split(' ').collect();
    // «¿en qué/cuál tienda…?», «¿qué lugar…?», «top place».
    let places = words.windows(2).any(|w| {
        matches!(w[0], "que" | "cual" | "cuales" | "top" | "which")
            && matches!(
                w[1],
                "tienda"
                    | "tiendas"
                    | "super"
                    | "supers"
                    | "lugar"
                    | "lugares"
                    | "comercio"
                    | "comercios"
                    | "restaurante"
                    | "restaurantes"
                    | "sitio"
                    | "sitios"
                    | "negocio"
                    | "negocios"
                    | "place"
                    | "places"
                    | "store"
                    | "stores"
            )
    });
    if places {
        return Some(GroupBy::Merchant);
    }
    if any(
        n,
        &[
            "dia de la semana",
            "dias de la semana",
            "que dia",
            "que dias",
            "por dia de la semana",
        ],
    ) {
        return Some(GroupBy::Weekday);
    }
    if any(
        n,
        &[
            "por mes",
            "cada mes",
            "mes a mes",
            "que mes",
            "por meses",
            "mensualmente",
        ],
    ) {
        return Some(GroupBy::Month);
    }
    if any(
        n,
        &["por semana", "cada semana", "semana a semana", "que semana"],
    ) {
        return Some(GroupBy::Week);
    }
    if any(
        n,
        &[
            "en que super",
            "que super",
            "en que tienda",
            "que tienda",
            "en que lugar",
            "que lugar",
            "donde gasto",
            "donde gaste",
            "donde spent",
            "where do i spend",
            "donde compro",
            "en donde",
            "por comercio",
            "por tienda",
            "por lugar",
            "que comercio",
            "en que restaurante",
            "que restaurante",
            "a quien le",
        ],
    ) {
        return Some(GroupBy::Merchant);
    }
    if any(
        n,
        &[
            "por categoria",
            "por categorias",
            "en que se me va",
            "en que se va",
            "en que gasto",
            "en que gaste",
            "en que categoria",
            "que categoria",
            "en que me gasto",
            "en que me gaste",
            "en que se me fue",
            "en que se fue",
            "a que se me va",
            "en que se me ha ido",
            "donde se me va",
            "donde se me fue",
            "donde se va",
            "donde se me van",
            "que me come mas",
            "en que me lo gasto",
            "en que se me van",
            "distribuido",
            "reparte",
            "repartido",
        ],
    ) {
        return Some(GroupBy::Category);
    }
    None
}

/// Amount bounds: «más de 1000», «menores a 100», «entre 200 y 500».
fn bounds(message: &Message) -> (Option<i64>, Option<i64>) {
    let words: Vec<&str> = message.rest.split(' ').collect();
    let before = |f: &amount::Found, phrases: &[&str]| {
        let lead = words[f.start.saturating_sub(3)..f.start].join(" ");
        phrases.iter().any(|p| lead.ends_with(p))
    };
    // «1,000 pesos o más», «100 o menos».
    let after = |f: &amount::Found, phrases: &[&str]| {
        let mut at = f.end;
        while words
            .get(at)
            .is_some_and(|w| matches!(*w, "pesos" | "peso" | "varos" | "mxn"))
        {
            at += 1;
        }
        let tail = words[at.min(words.len())..words.len().min(at + 2)].join(" ");
        phrases.iter().any(|p| tail.starts_with(p))
    };
    let mut min = None;
    let mut max = None;
    for (i, f) in message.amounts.iter().enumerate() {
        if before(f, &["entre", "entre los", "de entre"])
            && let Some(next) = message.amounts.get(i + 1)
        {
            min = Some(f.cents.min(next.cents));
            max = Some(f.cents.max(next.cents));
            break;
        }
        if before(
            f,
            &[
                "mas de",
                "mayor a",
                "mayores a",
                "mayor de",
                "mayores de",
                "arriba de",
                "encima de",
                "superior a",
                "superiores a",
                "sobre",
                "minimo",
                "al menos",
                "de mas de",
                "por arriba de",
                "por encima de",
                "pasan de",
                "pasen de",
                "rebasan",
                "que pasen de",
                "que superen",
            ],
        ) {
            min = Some(f.cents);
        } else if before(
            f,
            &[
                "menos de",
                "menor a",
                "menores a",
                "menor de",
                "menores de",
                "debajo de",
                "abajo de",
                "inferior a",
                "inferiores a",
                "maximo",
                "hasta",
                "por debajo de",
                "no pasan de",
                "bajo",
            ],
        ) {
            max = Some(f.cents);
        } else if after(
            f,
            &[
                "o mas",
                "pa arriba",
                "para arriba",
                "en adelante",
                "or more",
                "y mas",
            ],
        ) {
            min = Some(f.cents);
        } else if after(
            f,
            &["o menos", "pa abajo", "para abajo", "or less", "y menos"],
        ) {
            max = Some(f.cents);
        }
    }
    (min, max)
}

fn weekday_filter(words: &[&str]) -> Option<u8> {
    words.windows(2).find_map(|w| {
        let day = weekday_named(w[1])?;
        // «los sábados», «en sábado», «cada sábado»; «el sábado» is a date.
        matches!(w[0], "los" | "en" | "cada" | "puros" | "solo").then_some(day)
    })
}

fn is_money_word(word: &str) -> bool {
    any(word, crate::finance::rules::words::SPEND)
        || any(word, INCOME)
        || any(word, AVERAGE)
        || any(word, LARGEST)
        || any(word, SMALLEST)
        || any(word, ASKING)
        || any(word, COMPARE)
        || matches!(
            word,
            "grande"
                | "grandes"
                | "caro"
                | "caros"
                | "cara"
                | "caras"
                | "alto"
                | "altos"
                | "fuerte"
                | "fuertes"
                | "mayor"
                | "mayores"
                | "menor"
                | "menores"
                | "chico"
                | "chicos"
                | "barato"
                | "baratos"
                | "recientes"
                | "reciente"
                | "comparando"
                | "comparar"
                | "meti"
                | "metido"
                | "metiendo"
                | "entrado"
                | "entro"
                | "ganancias"
                | "general"
                | "cuenta"
                | "cuentas"
                | "semana"
                | "diario"
                | "diaria"
                | "mensual"
                | "dinero"
                | "categoria"
                | "categorias"
                | "compras"
                | "compra"
                | "gastar"
                | "gastado"
                | "gastaste"
                | "fin"
                | "fines"
                | "mayoria"
                | "parte"
                | "veces"
                | "seguido"
                | "frecuencia"
                | "frecuente"
                | "dejo"
                | "deje"
                | "dejado"
                | "dejando"
                | "fijate"
                | "fijese"
                | "desglosame"
                | "desglosa"
                | "desglosar"
                | "indicar"
                | "indica"
                | "podria"
                | "podrias"
                | "montonal"
                | "monton"
                | "siento"
                | "bien"
                | "cuenteme"
                | "digame"
                | "tendero"
                | "registrar"
                | "registre"
                | "empece"
                | "empezar"
                | "apunte"
                | "anote"
                | "vez"
                | "salido"
                | "gastos"
                | "gasto"
                | "sume"
                | "suma"
                | "sumale"
                | "total"
                | "totales"
                | "todos"
                | "todas"
                | "dias"
                | "cuanto"
        )
}

/// Words only a question's grammar or its money words explain.
fn is_filler(word: &str) -> bool {
    NOT_A_PLACE.contains(&word) || is_money_word(word) || word.chars().any(|c| c.is_ascii_digit())
}

/// What the message is about: a category, and a place or item by name. A
/// category named by a kind word («súper», «restaurantes») is the category; a
/// name the person's own movements carry («uber», «starbuks» for Starbucks) is
/// the place; a name after «en», «de» or «a» that none of their movements
/// carries («Amazon», «mercado libre») is kept as the place, so the answer can
/// say honestly that it is not there.
/// What a message is about: the category and place it asks, and every place
/// and kind of spending it names (two of them: «¿más en pizza o en sushi?»).
struct Subject {
    category: Option<&'static str>,
    place: Option<String>,
    places: Vec<String>,
    kinds: Vec<&'static str>,
}

fn subject(norm: &str, words: &[&str], merchants: &[String]) -> Subject {
    // Income words say the flow, not a category («¿cuánto me entró?»).
    let topic = words
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "ingreso" | "ingresos"))
        .collect::<Vec<_>>()
        .join(" ");
    let named: Vec<(&'static category::Category, &'static str)> = category::CATEGORIES
        .iter()
        .filter_map(|c| {
            c.words
                .iter()
                .chain([&c.key])
                .filter(|w| contains_phrase(&topic, w))
                .max_by_key(|w| w.len())
                .map(|w| (c, *w))
        })
        .collect();
    // «salir a comer» is restaurants, not the «comer» of food in general.
    let named: Vec<(&'static category::Category, &'static str)> = named
        .iter()
        .copied()
        .filter(|(c, w)| {
            !named.iter().any(|(o, longer)| {
                o.key != c.key && longer.len() > w.len() && contains_phrase(longer, w)
            })
        })
        .collect();
    let kind = |w: &str| KIND_WORDS.contains(&w) || category::titled(w).is_some();
    // What is left once the kind words are taken out is where a name may be.
    let mut residual = format!(" {topic} ");
    for (_, w) in named.iter().filter(|(_, w)| kind(w)) {
        residual = residual.replace(&format!(" {w} "), " ");
    }
    let residual: Vec<&str> = residual.split(' ').filter(|w| !w.is_empty()).collect();
    // An umbrella named with its own parts is the umbrella («comida en general:
    // súper, restaurantes…»); a category named outright wins over its items.
    let by_kind: Vec<&'static category::Category> = named
        .iter()
        .filter(|(_, w)| kind(w))
        .map(|(c, _)| *c)
        .collect();
    let category = by_kind
        .iter()
        .find(|c| {
            c.umbrella
                && by_kind
                    .iter()
                    .all(|o| o.key == c.key || c.related.contains(&o.key))
        })
        .or(by_kind.first())
        .copied();
    let places = own_places(&topic, words, merchants);
    let place = places
        .first()
        .cloned()
        .or_else(|| {
            named
                .iter()
                .find(|(_, w)| !kind(w))
                .map(|(_, w)| (*w).to_owned())
        })
        .or_else(|| unknown_place(&residual));
    let kinds: Vec<&'static str> = by_kind
        .iter()
        .filter(|c| {
            !category.is_some_and(|u| u.umbrella && u.key != c.key && u.related.contains(&c.key))
        })
        .map(|c| c.key)
        .collect();
    let (category, place) = match (category, place) {
        // «servicios (luz, gas, internet)»: the category named outright is asked.
        (Some(c), Some(p)) if category::mentioned(&p).is_some_and(|(pc, _)| pc.key == c.key) => {
            let outright = contains_phrase(norm, c.key)
                || contains_phrase(norm, &crate::text::normalize(c.label));
            if outright {
                (Some(c.key), None)
            } else {
                (None, Some(p))
            }
        }
        (c, p) => (c.map(|c| c.key), p),
    };
    Subject {
        category,
        place,
        places,
        kinds,
    }
}

/// The person's own descriptions the message names, as they spell them, in
/// the order it names them.
fn own_places(topic: &str, words: &[&str], merchants: &[String]) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    let padded = format!(" {topic} ");
    for merchant in merchants {
        let merchant = crate::text::normalize(merchant);
        if merchant.len() >= 3
            && contains_phrase(topic, &merchant)
            && !KIND_WORDS.contains(&merchant.as_str())
        {
            let at = padded.find(&format!(" {merchant} ")).unwrap_or(0);
            found.push((at, merchant));
        }
    }
    let content = words
        .iter()
        .filter(|w| w.len() >= 4 && !is_filler(w) && !KIND_WORDS.contains(w))
        .filter(|w| month_named(w).is_none() && weekday_named(w).is_none());
    for word in content {
        'word: for merchant in merchants {
            let merchant = crate::text::normalize(merchant);
            for part in merchant.split(' ').filter(|p| p.len() >= 4) {
                if (part == *word || resembles(word, part))
                    && !found
                        .iter()
                        .any(|(_, f)| f.contains(part) || part.contains(f.as_str()))
                {
                    let at = padded.find(&format!(" {word} ")).unwrap_or(0);
                    found.push((at, part.to_owned()));
                    break 'word;
                }
            }
        }
    }
    found.sort();
    found.dedup_by(|a, b| a.1 == b.1);
    found.into_iter().map(|(_, f)| f).collect()
}

/// A name after «en», «de», «a» or «con» that nothing else explains: the
/// words up to the next grammar word («a mercado libre en…» → «mercado libre»).
fn unknown_place(words: &[&str]) -> Option<String> {
    for (i, w) in words.iter().enumerate() {
        if !matches!(*w, "en" | "de" | "a" | "con" | "al" | "del" | "para") {
            continue;
        }
        let mut j = i + 1;
        while words
            .get(j)
            .is_some_and(|n| matches!(*n, "el" | "la" | "los" | "las" | "mi" | "mis"))
        {
            j += 1;
        }
        let name: Vec<&str> = words[j.min(words.len())..]
            .iter()
            .copied()
            .take_while(|n| !is_filler(n) && month_named(n).is_none() && weekday_named(n).is_none())
            .take(3)
            .collect();
        if name.is_empty()
            || name
                .iter()
                .all(|n| KIND_WORDS.contains(n) || category::titled(n).is_some())
        {
            continue;
        }
        if name.iter().any(|n| n.len() >= 3) {
            return Some(name.join(" "));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finance::core::date::Direction;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 25).unwrap()
    }

    fn merchants() -> Vec<String> {
        [
            "Uber",
            "DiDi",
            "Starbucks",
            "Tacos El Güero",
            "Walmart",
            "Cinépolis",
            "Liverpool",
            "Renta depa",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    }

    fn plan(text: &str, last: Option<&QueryPlan>) -> Option<QueryPlan> {
        let message = Message::read(text, today(), Direction::Past);
        let request = read(&message, &merchants(), last)?.request;
        Some(QueryPlan::parse(request.as_object().unwrap()).expect("the rules send valid plans"))
    }

    fn ymd(m: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, m, 1).unwrap()
    }

    #[test]
    fn a_place_a_period_and_a_measure_are_read_from_one_question() {
        let p = plan("¿cuánto le he metido a Uber en octubre?", None).unwrap();
        assert_eq!(
            (p.text.as_deref(), p.category.as_deref()),
            (Some("uber"), None)
        );
        assert_eq!((p.measure, p.span), (Measure::Sum, Span::Month(ymd(10))));
        let p = plan("cuantas veces fui al cinepolis el mes pasado", None).unwrap();
        assert_eq!(
            (p.measure, p.text.as_deref()),
            (Measure::Count, Some("cinepolis"))
        );
        assert_eq!(p.span, Span::LastMonth);
        let p = plan("mis 3 gastos más caros de septiembre", None).unwrap();
        assert_eq!(
            (p.measure, p.order, p.limit),
            (Measure::List, Order::AmountDesc, 3)
        );
        let p = plan("en promedio cuanto gasto en el super", None).unwrap();
        assert_eq!(
            (p.measure, p.category.as_deref()),
            (Measure::Average, Some("supermercado"))
        );
        let p = plan("¿qué día de la semana gasto más?", None).unwrap();
        assert_eq!(p.group_by, Some(GroupBy::Weekday));
        let p = plan("gastos de más de 1000 en octubre", None).unwrap();
        assert_eq!(p.min_cents, Some(100_000));
        let p = plan("¿cuánto me entró el mes pasado?", None).unwrap();
        assert_eq!(p.flow, Flow::Income);
        let p = plan(
            "¿gasté más en restaurantes en octubre que en septiembre?",
            None,
        )
        .unwrap();
        assert_eq!(
            (p.span, p.compare),
            (Span::Month(ymd(10)), Some(Span::Month(ymd(9))))
        );
        let p = plan("cuanto en starbuks", None).unwrap();
        assert_eq!(p.text.as_deref(), Some("starbucks"));
        let p = plan("¿cuánto he gastado en Amazon?", None).unwrap();
        assert_eq!(p.text.as_deref(), Some("amazon"));
    }

    #[test]
    fn a_follow_up_refines_the_plan_before() {
        let first = plan("¿cuánto gasté en restaurantes en octubre?", None).unwrap();
        let p = plan("¿y en septiembre?", Some(&first)).unwrap();
        assert_eq!(
            (p.category.as_deref(), p.span),
            (Some("restaurantes"), Span::Month(ymd(9)))
        );
        let p = plan("¿y de eso cuánto fue en tacos?", Some(&first)).unwrap();
        assert_eq!(
            (p.category.as_deref(), p.text.as_deref()),
            (Some("restaurantes"), Some("tacos"))
        );
        let p = plan("y en uber", Some(&first)).unwrap();
        assert_eq!((p.category, p.text.as_deref()), (None, Some("uber")));
        assert_eq!(p.span, Span::Month(ymd(10)));
    }

    #[test]
    fn a_period_inside_a_longer_one_is_part_of_it() {
        let p = plan("mis 3 gastos más caros del mes pasado", None).unwrap();
        assert_eq!((p.span, p.compare), (Span::LastMonth, None));
        let p = plan("cuanto gasté esta semana vs la pasada", None).unwrap();
        assert_eq!((p.span, p.compare), (Span::ThisWeek, Some(Span::LastWeek)));
        let p = plan("gastos de 1,000 pesos o más en los last 30 days", None).unwrap();
        assert_eq!((p.span, p.min_cents), (Span::LastDays(30), Some(100_000)));
    }

    #[test]
    fn two_places_or_two_kinds_are_compared_side_by_side() {
        let message = Message::read("¿gasté más en pizza o en sushi?", today(), Direction::Past);
        let merchants: Vec<String> = vec!["Pizza".into(), "Sushi".into()];
        let first = read(&message, &merchants, None).unwrap();
        assert_eq!(first.request["text"], "pizza");
        assert_eq!(first.others.len(), 1);
        assert_eq!(first.others[0]["text"], "sushi");
        let message = Message::read(
            "¿qué me come más, el súper o los restaurantes?",
            today(),
            Direction::Past,
        );
        let second = read(&message, &merchants, None).unwrap();
        assert_eq!(second.request["category"], "supermercado");
        assert_eq!(second.others[0]["category"], "restaurantes");
    }

    #[test]
    fn reports_of_spending_are_not_questions() {
        assert!(plan("gasté 250 en uber", None).is_none());
        assert!(plan("hola", None).is_none());
    }
}
