//! Everything the finance bot says that is not built from figures: fixed Spanish
//! text in one place.

use super::core::category::CategoryType;
use super::core::draft::Field;
use super::core::draft::Intent;
use super::core::output::ToolErrorKind;
use super::core::tools::{DataQuality, History, ToolName};

/// Financial Agent v1: the only reply to anything that is not a token.
pub const ASK_AGAIN: &str = "Responde exactamente: sí / no";
pub const ANSWER_PROMPT: &str = "Responde: sí / no";
pub const CANCELLED: &str = "Listo, cancelé. No registré nada.";
/// «cancela (todo)» while more writes of the same message wait behind this one.
pub const CANCELLED_ALL: &str =
    "Listo, cancelé este y los que faltaban por confirmar. No registré ninguno de ellos.";
/// A complete new request while a draft waited for an answer: the draft goes.
pub const DRAFT_SET_ASIDE: &str =
    "Dejé de lado lo que estábamos anotando (no registré nada) y voy con lo nuevo.";
pub const NOTHING_TO_CANCEL: &str = "No hay nada pendiente que cancelar.";
pub const RESTART_HINT: &str = "Si prefieres empezar de nuevo, escribe «cancelar».";
pub const NOT_UNDERSTOOD: &str =
    "Hubo parte de tu mensaje que no pude hacer; ¿me lo dices de otra forma?";
pub const FORBIDDEN: &str =
    "Eso no lo puedo hacer por aquí: no borro tu historial ni cambio datos sin tu confirmación.";
pub const STATE_AMOUNT: &str = "Dime el monto exacto con número, por ejemplo 250.";
pub const AMOUNT_RANGE: &str = "El monto debe ser mayor que 0 y menor que $10,000,000.00.";
pub const DATE_RANGE_PAST: &str =
    "Esa fecha no me cuadra: puedo registrar movimientos de hasta dos años atrás y hasta hoy.";
pub const DATE_RANGE_FUTURE: &str =
    "Esa fecha no me cuadra: puedo simular compras de hoy a un año.";
pub const KIND_MISMATCH: &str = "Esa categoría no corresponde: los ingresos van en salario u otros ingresos, y los gastos en las demás categorías.";
pub const DUE_DAY_RANGE: &str = "El día de pago debe ser del 1 al 31.";
pub const NOTHING_TO_CORRECT: &str =
    "Aún no tienes movimientos registrados por aquí para corregir.";
pub const NO_TOOLS: &str = "No entendí qué quieres consultar. Puedes preguntar, por ejemplo, «¿cuánto llevo en comida este mes?».";
pub const UNSUPPORTED_MEDIA: &str =
    "Por ahora solo leo texto. Escríbeme, por ejemplo, «gasté 250 en el súper».";
pub const ESCALATED: &str =
    "Te comunico con una persona del equipo; en breve te responde por aquí.";
pub const DRAFT_EXPIRED: &str =
    "Como no respondiste, descarté lo que estaba pendiente; no registré nada.";
pub const HELP: &str = "Soy tu asistente de finanzas. Puedo:\n\
• Registrar gastos e ingresos: «gasté 250 en el súper»\n\
• Decirte cuánto llevas: «¿cuánto llevo en comida este mes?»\n\
• Cuidar tu presupuesto: «pon mi presupuesto en 8000»\n\
• Simular compras: «¿me alcanza para unos tenis de 1800?»\n\
• Llevar tus deudas: «le debo 3000 a Juan, pago mínimo 500 el día 15»\n\
• Buscar gastos, detectar gastos inusuales y ver tendencias.";
pub const GREETING: &str = "¡Hola!";

/// Money owed to the person, told paid back: no new sum is written.
pub const REPAID_OWED: &str = "No registré nada nuevo. Para actualizar lo que te deben, dime cuánto queda, por ejemplo «Fer me debe 70», o escribe «¿quién me debe?» para verlo.";

/// Money owed to the person, whose debtor was not said.
pub const WHO_OWES_YOU: &str = "¿Quién te debe ese dinero?";

/// Money owed to the person by `name`, whose amount was not said.
pub fn owed_amount_question(name: &str) -> String {
    format!("¿Cuánto te debe {name}? Escribe el monto, por ejemplo 500.")
}

/// The question for an open field, worded for the intent.
pub fn question(intent: Intent, field: Field, income: bool) -> String {
    match (intent, field) {
        (Intent::SetBudget, Field::Amount) => {
            "¿De cuánto quieres tu presupuesto mensual? Escribe el monto, por ejemplo 8000.".into()
        }
        (Intent::SetBankBalance, Field::Amount) => {
            "¿Cuál es tu saldo actual en el banco (MXN)? Escribe el monto, por ejemplo 12000.".into()
        }
        (Intent::SimulatePurchase, Field::Amount) => "¿De cuánto sería la compra?".into(),
        (_, Field::Amount) if income => {
            "¿De cuánto fue el ingreso? Escríbelo en pesos, por ejemplo 2500.".into()
        }
        (_, Field::Amount) => "¿Cuánto fue? Escríbelo en pesos, por ejemplo 250.".into(),
        (_, Field::Category) if income => format!(
            "¿Qué tipo de ingreso fue? Por ejemplo: {}.",
            super::core::category::labels(true).join(", ")
        ),
        (_, Field::Category) => {
            "¿En qué categoría va? Por ejemplo: comida, supermercado, restaurantes, transporte, servicios, salud, ropa, entretenimiento u otros.".into()
        }
        (_, Field::DebtName) => "¿Con quién es la deuda?".into(),
        (_, Field::DebtChange) => {
            "¿Qué cambia: cuánto debes, el pago mínimo, el día de pago, o hiciste un pago?".into()
        }
    }
}

/// Cash said where the bank balance was asked: it is not what is available.
pub const CASH_IS_NOT_BALANCE: &str =
    "Para ver si te alcanza solo cuento el saldo de tu cuenta de banco, no el efectivo que traes.";

/// The open question of a debt named without an amount.
pub fn debt_amount_question(name: &str) -> String {
    format!("¿Cuánto le debes a {name}? Si fue un pago, dime de cuánto fue.")
}

pub fn category_type(kind: CategoryType) -> &'static str {
    kind.as_str()
}

/// The user-safe message of each error class (KakeBot §5).
pub fn tool_error(kind: ToolErrorKind) -> &'static str {
    match kind {
        ToolErrorKind::Database => {
            "No pude acceder a tu información en este momento. Inténtalo de nuevo."
        }
        ToolErrorKind::Validation => "Los datos no se pudieron procesar correctamente.",
        ToolErrorKind::NotFound => {
            "No encontré datos. Esto puede ser normal si no has registrado gastos."
        }
        ToolErrorKind::Permission => "No tengo permiso. Verifica tu sesión.",
        ToolErrorKind::Unknown => {
            "Ocurrió un error inesperado y no puedo calcularlo de forma segura ahora."
        }
    }
}

/// What a tool does, in words, for refusals.
pub fn tool_purpose(tool: ToolName) -> &'static str {
    match tool {
        ToolName::AnalyzeSpendingPattern => "analizar tus gastos",
        ToolName::GetBudgetStatus => "revisar tu presupuesto",
        ToolName::DetectAnomalies => "detectar gastos inusuales",
        ToolName::PredictMonthlySpending => "proyectar tu gasto del mes",
        ToolName::GetSpendingTrends => "ver tendencias de varios meses",
        ToolName::SearchExpenses => "buscar gastos",
        ToolName::GetBankBalance => "ver tu saldo",
        ToolName::GetDebts => "ver tus deudas",
        ToolName::QueryTransactions => "consultar tus movimientos",
    }
}

/// An honest refusal of a tool the user's history cannot support yet.
pub fn needs_history(tool: ToolName, days: i64, has: i64) -> String {
    format!(
        "Para {} necesito al menos {days} días de historial, y por ahora tengo {has}.",
        tool_purpose(tool)
    )
}

/// The data-quality disclaimer analysis replies carry (KakeBot layer 1).
pub fn disclaimer(history: History) -> Option<String> {
    let (days, n) = (history.days, history.transactions);
    match history.quality() {
        DataQuality::Poor => Some(format!(
            "Nota: aún tengo poco historial tuyo ({days} días, {n} movimientos), así que este análisis es limitado."
        )),
        DataQuality::Fair => Some(format!(
            "Nota: con {days} días de historial, las estimaciones tienen confianza baja."
        )),
        DataQuality::Good => Some("Nota: con más historial el análisis sería más preciso.".into()),
        DataQuality::Excellent => None,
    }
}

/// Every fixed text the finance bot may say, for checks that every number a user
/// reads has a source (the eval counts numbers nobody can account for).
pub fn fixed_texts() -> Vec<String> {
    use super::core::draft::Field;
    let mut texts: Vec<String> = [
        ASK_AGAIN,
        ANSWER_PROMPT,
        CANCELLED,
        CANCELLED_ALL,
        NOTHING_TO_CANCEL,
        RESTART_HINT,
        NOT_UNDERSTOOD,
        FORBIDDEN,
        STATE_AMOUNT,
        AMOUNT_RANGE,
        DATE_RANGE_PAST,
        DATE_RANGE_FUTURE,
        KIND_MISMATCH,
        DUE_DAY_RANGE,
        NOTHING_TO_CORRECT,
        NO_TOOLS,
        UNSUPPORTED_MEDIA,
        ESCALATED,
        DRAFT_EXPIRED,
        HELP,
        GREETING,
        REMINDER_EXAMPLE,
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    let intents = [
        Intent::LogTransaction,
        Intent::SetBudget,
        Intent::SetBankBalance,
        Intent::SimulatePurchase,
        Intent::ManageDebt,
        Intent::CorrectCategory,
    ];
    for intent in intents {
        for field in [
            Field::Amount,
            Field::Category,
            Field::DebtName,
            Field::DebtChange,
        ] {
            for income in [false, true] {
                texts.push(question(intent, field, income));
            }
        }
    }
    texts
}

/// «Mándame mis datos» with nothing recorded.
pub const EXPORT_EMPTY: &str =
    "Todavía no tienes movimientos registrados, así que no hay datos que enviarte.";

/// The caption of a person's data as CSV.
pub fn export_ready(rows: usize) -> String {
    let what = if rows == 1 {
        "tu movimiento".to_owned()
    } else {
        format!("tus {rows} movimientos")
    };
    format!(
        "Aquí tienes {what} en un archivo CSV (se abre con Excel o Google Sheets). El enlace vence en 24 horas."
    )
}

/// A reminder scheduled (the day before, at the hour reminders go out).
pub fn reminder_set(what: &str, due_on: chrono::NaiveDate, today: chrono::NaiveDate) -> String {
    let remind_on = due_on.pred_opt().unwrap_or(due_on);
    let when = if remind_on <= today {
        format!("en unos momentos, porque es para el {due_on}")
    } else {
        format!(
            "el día anterior, {remind_on} a las {}:00, para el {due_on}",
            crate::finance::reminders::HOUR
        )
    };
    format!("Listo: te recordaré «{what}» {when}. Para cancelarlo escribe «ya no me recuerdes».")
}

/// Said after a reminder when a draft still waits for its «sí» or «no».
pub const STILL_PENDING: &str = "Sigue pendiente lo que te pregunté antes: responde sí o no.";

/// The example a reminder's question gives.
pub const REMINDER_EXAMPLE: &str = "el 20";

/// The same reminder was already scheduled.
pub fn reminder_already(what: &str, due_on: chrono::NaiveDate) -> String {
    format!("Ya tenía anotado recordarte «{what}» para el {due_on}; no lo dupliqué.")
}

/// A reminder asked for without a day.
pub fn reminder_when(what: &str) -> String {
    format!("¿Qué día te recuerdo «{what}»? Por ejemplo: «{REMINDER_EXAMPLE}» o «el viernes».")
}

/// A reminder asked for a day already gone.
pub fn reminder_past(what: &str, due_on: chrono::NaiveDate) -> String {
    format!(
        "El {due_on} ya pasó o es hoy, así que no puedo recordarte «{what}» el día anterior. \
         Dime otro día."
    )
}

/// The person's pending reminders.
pub fn reminders_list(pending: &[crate::finance::reminders::Pending]) -> String {
    if pending.is_empty() {
        return format!(
            "No tienes recordatorios pendientes. Puedes pedirme uno: «recuérdame pagar la tarjeta {REMINDER_EXAMPLE}»."
        );
    }
    let mut lines = vec!["Tus recordatorios pendientes:".to_owned()];
    for p in pending {
        lines.push(format!("• {}: {}", p.due_on, p.what));
    }
    lines.push(
        "Para cancelarlos escribe «ya no me recuerdes» (o «ya no me recuerdes lo de …»).".into(),
    );
    lines.join("\n")
}

/// Reminders cancelled.
pub fn reminders_cancelled(count: u64) -> String {
    match count {
        0 => "No tenía recordatorios pendientes que cancelar.".into(),
        1 => "Listo, cancelé tu recordatorio.".into(),
        n => format!("Listo, cancelé tus {n} recordatorios."),
    }
}

/// A message held more movements than one turn stages (`MAX_ACTIONS`, five):
/// the first five are confirmed one by one, and the person is told to send the
/// rest. In words: a figure in a reply must come from a tool.
pub const MORE_MOVEMENTS: &str = "Tu mensaje trae más de cinco movimientos: te confirmo los primeros cinco, uno por uno. Mándame los demás en otro mensaje.";
