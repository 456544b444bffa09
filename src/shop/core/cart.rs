//! The cart as the engine sees it: lines with the backend's unit prices, kept in the
//! order the customer added them.

use serde::Serialize;

use super::action::ProductId;

/// Largest quantity of one product in a cart line.
pub const MAX_QUANTITY: i64 = 100;

/// What the engine needs to know of a catalog product. Prices come only from here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProductInfo {
    pub id: ProductId,
    pub active: bool,
    pub price_minor: i64,
    /// Units a customer can still buy (on hand less those held by orders waiting
    /// for payment); `None` when the merchant does not track its stock.
    pub available: Option<i64>,
}

impl ProductInfo {
    /// The units short if a cart line held `quantity`: `Err(available)`.
    pub fn fits(&self, quantity: i64) -> Result<(), i64> {
        match self.available {
            Some(available) if quantity > available => Err(available.max(0)),
            _ => Ok(()),
        }
    }
}

/// Read-only product lookup; implemented over whatever the caller loaded.
pub trait Catalog {
    fn product(&self, id: ProductId) -> Option<&ProductInfo>;
}

impl Catalog for std::collections::HashMap<ProductId, ProductInfo> {
    fn product(&self, id: ProductId) -> Option<&ProductInfo> {
        self.get(&id)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CartLine {
    pub product_id: ProductId,
    pub quantity: i64,
    pub unit_price_minor: i64,
}

impl CartLine {
    pub fn line_total_minor(&self) -> i64 {
        self.unit_price_minor * self.quantity
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Cart {
    lines: Vec<CartLine>,
}

impl Cart {
    pub fn new(lines: Vec<CartLine>) -> Self {
        Cart { lines }
    }

    pub fn lines(&self) -> &[CartLine] {
        &self.lines
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn line(&self, product_id: ProductId) -> Option<&CartLine> {
        self.lines.iter().find(|line| line.product_id == product_id)
    }

    pub fn quantity_of(&self, product_id: ProductId) -> i64 {
        self.line(product_id).map_or(0, |line| line.quantity)
    }

    pub fn total_minor(&self) -> i64 {
        self.lines.iter().map(CartLine::line_total_minor).sum()
    }

    pub fn item_count(&self) -> i64 {
        self.lines.iter().map(|line| line.quantity).sum()
    }

    /// Sets a product's quantity, adding the line if needed. Callers check the range.
    pub(crate) fn set(&mut self, product: &ProductInfo, quantity: i64) {
        match self
            .lines
            .iter_mut()
            .find(|line| line.product_id == product.id)
        {
            Some(line) => {
                line.quantity = quantity;
                line.unit_price_minor = product.price_minor;
            }
            None => self.lines.push(CartLine {
                product_id: product.id,
                quantity,
                unit_price_minor: product.price_minor,
            }),
        }
    }

    pub(crate) fn remove(&mut self, product_id: ProductId) {
        self.lines.retain(|line| line.product_id != product_id);
    }

    pub(crate) fn clear(&mut self) {
        self.lines.clear();
    }
}
