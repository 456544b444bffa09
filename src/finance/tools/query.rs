//! queryTransactions: a validated plan run as one parameterised statement the
//! backend builds from whitelisted fragments (the plan's enums pick them; every
//! value is bound). When the plan as asked finds nothing it is relaxed, at most
//! three times, each step recorded: the words matched against the person's own
//! descriptions with typos and accents forgiven, then the whole history instead
//! of the period asked, then both. Still nothing is an honest empty result.

use chrono::NaiveDate;
use sqlx::types::Json;

use super::ToolContext;
use crate::finance::core::category;
use crate::finance::core::output::{
    ExpenseLine, QueryComparison, QueryGroup, QueryResult, Relaxation, Source, ToolError,
    ToolOutput,
};
use crate::finance::core::query::{
    GroupBy, Order, QueryPlan, Range, Span, WEEKDAY_LABELS, month_name, resembles,
};
use crate::finance::core::tools::{ToolName, ToolRequest};
use crate::text::normalize;

/// Relaxed retries at most (seed 004's loop protection).
pub const MAX_RETRIES: usize = 3;

/// The grouping key, from a closed list.
fn group_key(group: GroupBy) -> &'static str {
    match group {
        GroupBy::Day => "occurred_on::text",
        GroupBy::Weekday => "(extract(isodow FROM occurred_on)::int - 1)::text",
        GroupBy::Week => "to_char(date_trunc('week', occurred_on), 'YYYY-MM-DD')",
        GroupBy::Month => "to_char(occurred_on, 'YYYY-MM')",
        GroupBy::Category => "category",
        GroupBy::Merchant => "lower(coalesce(nullif(merchant, ''), description))",
    }
}

/// The rows' order, from a closed list.
fn order_by(order: Order) -> &'static str {
    match order {
        Order::AmountDesc => "amount_cents DESC, date DESC, id DESC",
        Order::AmountAsc => "amount_cents ASC, date DESC, id DESC",
        Order::DateDesc => "date DESC, id DESC",
        Order::DateAsc => "date ASC, id ASC",
    }
}

/// What one run of the statement found.
struct Found {
    total_cents: i64,
    count: i64,
    first: Option<NaiveDate>,
    last: Option<NaiveDate>,
    rows: Vec<ExpenseLine>,
    groups: Vec<QueryGroup>,
}

/// The filters a run applies besides the plan: exact descriptions found by the
/// spelling step replace the plan's words.
#[derive(Clone, Default)]
struct Matching {
    descriptions: Option<Vec<String>>,
}

async fn run_once(
    context: &ToolContext<'_>,
    plan: &QueryPlan,
    range: Range,
    matching: &Matching,
) -> sqlx::Result<Found> {
    let categories: Option<Vec<&str>> = plan
        .category
        .as_deref()
        .and_then(category::by_key)
        .map(category::analysis_keys);
    let text = match &matching.descriptions {
        Some(_) => None,
        None => plan.text.clone(),
    };
    let group = plan.group_by.map_or("NULL::text", group_key);
    let sql = format!(
        "WITH rows AS (
             SELECT id, occurred_on, description, merchant, category, amount_cents
             FROM fin_transactions
             WHERE contact_id = $2 AND bot_id = $1 AND kind = $3
               AND occurred_on BETWEEN $4 AND $5
               AND ($6::text[] IS NULL OR category = ANY($6))
               AND ($7::text IS NULL OR translate(lower(description || ' ' || coalesce(merchant, '')),
                        'áéíóúüñ', 'aeiouun') LIKE '%' || $7 || '%')
               AND ($8::text[] IS NULL OR lower(description) = ANY($8))
               AND ($9::bigint IS NULL OR amount_cents >= $9)
               AND ($10::bigint IS NULL OR amount_cents <= $10)
               AND ($11::int IS NULL OR extract(isodow FROM occurred_on)::int = $11 + 1)
         )
         SELECT coalesce(sum(amount_cents), 0)::bigint, count(*), min(occurred_on), max(occurred_on),
           (SELECT coalesce(json_agg(r ORDER BY {order}), '[]')
              FROM (SELECT id, occurred_on AS date, description, category, amount_cents FROM rows
                    ORDER BY {order} LIMIT $12) r),
           (SELECT coalesce(json_agg(g ORDER BY g.total_cents DESC, g.key), '[]')
              FROM (SELECT {group} AS key, min(description) AS label,
                           sum(amount_cents)::bigint AS total_cents, count(*) AS count
                    FROM rows WHERE $13 GROUP BY 1 ORDER BY 3 DESC, 1 LIMIT $14) g)
         FROM rows",
        order = order_by(plan.order),
    );
    type Row = (
        i64,
        i64,
        Option<NaiveDate>,
        Option<NaiveDate>,
        Json<Vec<ExpenseLine>>,
        Json<Vec<QueryGroup>>,
    );
    let (total_cents, count, first, last, rows, groups): Row =
        sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(context.user.bot_id)
            .bind(context.user.contact_id)
            .bind(plan.flow.as_str())
            .bind(range.from)
            .bind(range.to)
            .bind(categories)
            .bind(text)
            .bind(matching.descriptions.clone())
            .bind(plan.min_cents)
            .bind(plan.max_cents)
            .bind(plan.weekday.map(i32::from))
            .bind(i64::from(plan.limit))
            .bind(plan.group_by.is_some())
            .bind(i64::from(crate::finance::core::query::MAX_LIMIT))
            .fetch_one(context.pool)
            .await?;
    let mut groups = groups.0;
    for g in &mut groups {
        g.label = group_label(plan.group_by, g);
    }
    Ok(Found {
        total_cents,
        count,
        first,
        last,
        rows: rows.0,
        groups,
    })
}

/// What a reply calls a group.
fn group_label(group: Option<GroupBy>, g: &QueryGroup) -> String {
    match group {
        Some(GroupBy::Weekday) => g
            .key
            .parse::<usize>()
            .ok()
            .and_then(|d| WEEKDAY_LABELS.get(d))
            .map_or_else(|| g.key.clone(), |d| (*d).to_owned()),
        Some(GroupBy::Month) => NaiveDate::parse_from_str(&format!("{}-01", g.key), "%Y-%m-%d")
            .map_or_else(|_| g.key.clone(), month_name),
        Some(GroupBy::Week) => format!("semana del {}", g.key),
        Some(GroupBy::Category) => {
            category::by_key(&g.key).map_or(g.key.clone(), |c| c.label.into())
        }
        Some(GroupBy::Merchant) => g.label.clone(),
        Some(GroupBy::Day) | None => g.key.clone(),
    }
}

/// What the spelling step found.
enum Close {
    /// One of the person's descriptions holds the words as written.
    Literal,
    /// Descriptions close to the words (none: nothing is).
    Found(Vec<String>),
}

/// The person's descriptions close to `text`: a word or the whole within one
/// edit (two for longer words), accents and case aside.
async fn close_descriptions(
    context: &ToolContext<'_>,
    plan: &QueryPlan,
    text: &str,
) -> sqlx::Result<Close> {
    let known: Vec<String> = sqlx::query_scalar(
        "SELECT DISTINCT lower(description) FROM fin_transactions
         WHERE contact_id = $2 AND bot_id = $1 AND kind = $3 AND description <> ''
         ORDER BY 1 LIMIT 500",
    )
    .bind(context.user.bot_id)
    .bind(context.user.contact_id)
    .bind(plan.flow.as_str())
    .fetch_all(context.pool)
    .await?;
    // Spelled as one of theirs already: the period, not the spelling, is why
    // nothing was found.
    if known.iter().any(|d| normalize(d).contains(text)) {
        return Ok(Close::Literal);
    }
    Ok(Close::Found(
        known
            .into_iter()
            .filter(|d| resembles(text, &normalize(d)))
            .collect(),
    ))
}

pub async fn query(
    context: &ToolContext<'_>,
    request: &ToolRequest,
) -> Result<ToolOutput, ToolError> {
    let tool = ToolName::QueryTransactions;
    let db = |e| context.database(tool, e);
    let asked = request
        .plan
        .clone()
        .ok_or_else(|| context.error(tool, super::ToolErrorKind::Validation, "no plan"))?;
    let today = context.today;
    let mut plan = asked.clone();
    let mut matching = Matching::default();
    let mut relaxed = Vec::new();
    let mut found = if plan.span.outside(today) {
        // A month still to come, or older than the look back: nothing to say.
        Found {
            total_cents: 0,
            count: 0,
            first: None,
            last: None,
            rows: Vec::new(),
            groups: Vec::new(),
        }
    } else {
        run_once(context, &plan, plan.span.resolve(today), &matching)
            .await
            .map_err(db)?
    };
    // The ladder: spelling, then the name's category, then the whole history;
    // each step once.
    let mut spelled = false;
    let mut categorised = false;
    // The words are one of theirs: widen the period, never swap the name.
    let mut literal = false;
    let mut widened = false;
    while found.count == 0 && relaxed.len() < MAX_RETRIES {
        if !spelled && let Some(text) = plan.text.clone() {
            spelled = true;
            let close = match close_descriptions(context, &plan, &text)
                .await
                .map_err(db)?
            {
                Close::Literal => {
                    literal = true;
                    continue;
                }
                Close::Found(close) if close.is_empty() => continue,
                Close::Found(close) => close,
            };
            relaxed.push(Relaxation::Spelling {
                asked: text,
                found: close.clone(),
            });
            matching.descriptions = Some(close);
        } else if !categorised
            && !literal
            && plan.category.is_none()
            && matching.descriptions.is_none()
            && let Some((named, _)) = plan.text.as_deref().and_then(category::mentioned)
        {
            categorised = true;
            relaxed.push(Relaxation::Category {
                asked: plan.text.take().unwrap_or_default(),
                category: named.label.to_owned(),
            });
            plan.category = Some(named.key.to_owned());
        } else if !widened && plan.span != Span::All && plan.compare.is_none() {
            widened = true;
            relaxed.push(Relaxation::WiderRange {
                asked: plan.span.describe(today),
            });
            plan.span = Span::All;
        } else {
            break;
        }
        found = run_once(context, &plan, plan.span.resolve(today), &matching)
            .await
            .map_err(db)?;
    }
    if found.count == 0 {
        // Nothing anywhere: the answer is the plan as asked, empty.
        plan = asked;
        relaxed.clear();
        matching = Matching::default();
    }
    let range = plan.span.resolve(today);
    let source_range = |found: &Found, range: Range| match (plan.span, found.first, found.last) {
        (Span::All, Some(first), Some(last)) => (first, last),
        _ => (range.from, range.to),
    };
    let (from, to) = source_range(&found, range);
    let compare = match plan.compare {
        Some(span) => {
            let other_range = span.resolve(today);
            let other = run_once(context, &plan, other_range, &matching)
                .await
                .map_err(db)?;
            Some(QueryComparison {
                period: span.describe(today),
                source: Source {
                    transactions: other.count,
                    from: other_range.from,
                    to: other_range.to,
                },
                total_cents: other.total_cents,
                count: other.count,
                difference_cents: found.total_cents - other.total_cents,
                change_bp: (other.total_cents > 0).then(|| {
                    ((found.total_cents - other.total_cents) as f64 * 10_000.0
                        / other.total_cents as f64)
                        .round() as i64
                }),
            })
        }
        None => None,
    };
    let average_cents = if found.count > 0 {
        (found.total_cents as f64 / found.count as f64).round() as i64
    } else {
        0
    };
    Ok(ToolOutput::Query(Box::new(QueryResult {
        period: plan.span.describe(today),
        plan,
        source: Source {
            transactions: found.count,
            from,
            to,
        },
        total_cents: found.total_cents,
        count: found.count,
        average_cents,
        rows: found.rows,
        groups: found.groups,
        compare,
        relaxed,
    })))
}
