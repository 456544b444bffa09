//! The line that says what a result's figures are based on.

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
