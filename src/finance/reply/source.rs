//! The line that says what a result's figures are based on, and a percentage
//! written with the tool's own digits.

use super::super::core::output::Source;

/// "(basado en 12 transacciones, 2026-11-01 a 2026-11-22)".
pub fn source_line(source: &Source) -> String {
    let noun = if source.transactions == 1 {
        "transacción"
    } else {
        "transacciones"
    };
    format!(
        "(basado en {} {noun}, {} a {})",
        source.transactions,
        source.from.format("%Y-%m-%d"),
        source.to.format("%Y-%m-%d")
    )
}

/// Basis points as a percentage with both decimals, so the figure is exactly the
/// tool's.
pub(super) fn percent(bp: i64) -> String {
    let sign = if bp < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}%", bp.abs() / 100, bp.abs() % 100)
}
