//! The closed set of actions a proposer may name, and their parameters once parsed.
//!
//! Proposals arrive as untrusted JSON; `ActionType::parse` maps any string onto the
//! closed set, the forbidden list, or `Unknown`, so nothing a proposer writes can
//! reach the engine as anything but one of these variants.

use std::fmt;

use serde::Serialize;

/// Actions the matrix may accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ActionKind {
    ShowCatalog,
    ShowProduct,
    AddToCart,
    UpdateQuantity,
    RemoveItem,
    ClearCart,
    ReviewOrder,
    ConfirmOrder,
    CancelOrder,
    /// Pickup or delivery (with the zone and the address): the fee is the zone's.
    SetFulfilment,
    Reply,
    Clarify,
    Escalate,
}

impl ActionKind {
    pub const ALL: [ActionKind; 13] = [
        ActionKind::ShowCatalog,
        ActionKind::ShowProduct,
        ActionKind::AddToCart,
        ActionKind::UpdateQuantity,
        ActionKind::RemoveItem,
        ActionKind::ClearCart,
        ActionKind::ReviewOrder,
        ActionKind::ConfirmOrder,
        ActionKind::CancelOrder,
        ActionKind::SetFulfilment,
        ActionKind::Reply,
        ActionKind::Clarify,
        ActionKind::Escalate,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::ShowCatalog => "SHOW_CATALOG",
            ActionKind::ShowProduct => "SHOW_PRODUCT",
            ActionKind::AddToCart => "ADD_TO_CART",
            ActionKind::UpdateQuantity => "UPDATE_QUANTITY",
            ActionKind::RemoveItem => "REMOVE_ITEM",
            ActionKind::ClearCart => "CLEAR_CART",
            ActionKind::ReviewOrder => "REVIEW_ORDER",
            ActionKind::ConfirmOrder => "CONFIRM_ORDER",
            ActionKind::CancelOrder => "CANCEL_ORDER",
            ActionKind::SetFulfilment => "SET_FULFILMENT",
            ActionKind::Reply => "REPLY",
            ActionKind::Clarify => "CLARIFY",
            ActionKind::Escalate => "ESCALATE",
        }
    }
}

/// Actions that exist in the vocabulary only to be refused: they belong to the
/// backend or the merchant, never to a proposer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ForbiddenKind {
    ModifyPrice,
    ApplyDiscount,
    ApprovePayment,
    RejectPayment,
    DisableOverride,
    /// A delivery fee is the zone's, set by the merchant.
    SetDeliveryFee,
}

impl ForbiddenKind {
    pub const ALL: [ForbiddenKind; 6] = [
        ForbiddenKind::ModifyPrice,
        ForbiddenKind::ApplyDiscount,
        ForbiddenKind::ApprovePayment,
        ForbiddenKind::RejectPayment,
        ForbiddenKind::DisableOverride,
        ForbiddenKind::SetDeliveryFee,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ForbiddenKind::ModifyPrice => "MODIFY_PRICE",
            ForbiddenKind::ApplyDiscount => "APPLY_DISCOUNT",
            ForbiddenKind::ApprovePayment => "APPROVE_PAYMENT",
            ForbiddenKind::RejectPayment => "REJECT_PAYMENT",
            ForbiddenKind::DisableOverride => "DISABLE_OVERRIDE",
            ForbiddenKind::SetDeliveryFee => "SET_DELIVERY_FEE",
        }
    }
}

/// What a proposer named, classified.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ActionType {
    Allowed(ActionKind),
    Forbidden(ForbiddenKind),
    /// Anything else, kept (truncated) for the audit log.
    Unknown(String),
}

impl ActionType {
    /// Longest unknown type name kept for the audit, so hostile output can't bloat rows.
    const MAX_UNKNOWN_LEN: usize = 64;

    pub fn parse(raw: &str) -> ActionType {
        let name = raw.trim();
        if let Some(kind) = ActionKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(name))
        {
            return ActionType::Allowed(kind);
        }
        if let Some(kind) = ForbiddenKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(name))
        {
            return ActionType::Forbidden(kind);
        }
        ActionType::Unknown(name.chars().take(Self::MAX_UNKNOWN_LEN).collect())
    }

    pub fn name(&self) -> &str {
        match self {
            ActionType::Allowed(kind) => kind.as_str(),
            ActionType::Forbidden(kind) => kind.as_str(),
            ActionType::Unknown(name) => name,
        }
    }
}

impl fmt::Display for ActionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

use super::fulfilment::Mode;
use crate::proposal::Param;

/// Catalog identifier of a product.
pub type ProductId = i64;

/// One proposed action after parsing, before validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub kind: ActionType,
    pub product_id: Param<ProductId>,
    pub quantity: Param<i64>,
    /// SET_FULFILMENT: pickup or delivery, the zone, the address.
    pub mode: Param<Mode>,
    pub zone_id: Param<i64>,
    pub address: Option<String>,
    /// The proposer named an amount for delivery: refused, the fee is the zone's.
    pub proposes_fee: bool,
    /// The proposer's stated reason; audited, never shown to the customer.
    pub reason: Option<String>,
}

impl Action {
    pub fn new(kind: ActionType) -> Self {
        Action {
            kind,
            product_id: Param::Missing,
            quantity: Param::Missing,
            mode: Param::Missing,
            zone_id: Param::Missing,
            address: None,
            proposes_fee: false,
            reason: None,
        }
    }

    pub fn of(kind: ActionKind) -> Self {
        Action::new(ActionType::Allowed(kind))
    }

    pub fn with_product(mut self, id: ProductId) -> Self {
        self.product_id = Param::Given(id);
        self
    }

    pub fn with_quantity(mut self, quantity: i64) -> Self {
        self.quantity = Param::Given(quantity);
        self
    }

    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = Param::Given(mode);
        self
    }

    pub fn with_zone(mut self, zone_id: i64) -> Self {
        self.zone_id = Param::Given(zone_id);
        self
    }

    pub fn with_address(mut self, address: &str) -> Self {
        self.address = Some(address.to_owned());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_classifies_allowed_forbidden_and_unknown_names() {
        assert_eq!(
            ActionType::parse("add_to_cart"),
            ActionType::Allowed(ActionKind::AddToCart)
        );
        assert_eq!(
            ActionType::parse(" MODIFY_PRICE "),
            ActionType::Forbidden(ForbiddenKind::ModifyPrice)
        );
        assert_eq!(
            ActionType::parse("DROP_TABLE"),
            ActionType::Unknown("DROP_TABLE".into())
        );
        let long = "X".repeat(500);
        assert_eq!(ActionType::parse(&long).name().len(), 64);
    }
}
