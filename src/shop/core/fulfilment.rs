//! How an order reaches the customer: picked up at the shop, or delivered to an
//! address in one of the shop's zones for the zone's fee. The fee is the
//! backend's, like a price: a proposer names a zone, never an amount.

use serde::{Deserialize, Serialize};

/// Longest delivery address kept.
pub const MAX_ADDRESS: usize = 300;

/// Pickup or delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Pickup,
    Delivery,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Pickup => "pickup",
            Mode::Delivery => "delivery",
        }
    }

    pub fn parse(raw: &str) -> Option<Mode> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "pickup" | "recoger" | "retiro" => Some(Mode::Pickup),
            "delivery" | "envio" | "envío" => Some(Mode::Delivery),
            _ => None,
        }
    }
}

/// A zone the shop delivers to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    pub id: i64,
    pub name: String,
    pub fee_minor: i64,
    /// Smallest order (before the fee) delivered to this zone.
    pub min_order_minor: Option<i64>,
    /// An order (before the fee) of at least this much is delivered free.
    #[serde(default)]
    pub free_from_minor: Option<i64>,
}

impl Zone {
    /// The fee for an order of `subtotal_minor` before it.
    pub fn fee_for(&self, subtotal_minor: i64) -> i64 {
        if self
            .free_from_minor
            .is_some_and(|free| subtotal_minor >= free)
        {
            0
        } else {
            self.fee_minor
        }
    }
}

/// What the shop offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Options {
    pub pickup: bool,
    pub delivery: bool,
    pub zones: Vec<Zone>,
}

impl Default for Options {
    /// Pickup only: nothing to ask.
    fn default() -> Self {
        Options {
            pickup: true,
            delivery: false,
            zones: Vec::new(),
        }
    }
}

impl Options {
    /// Whether the order's way is chosen at all: only when the shop delivers
    /// (pickup alone needs no word). Where the shop also lets customers pick
    /// up, an order nobody said otherwise of is picked up (the summary says so).
    pub fn asks(&self) -> bool {
        self.delivery && !self.zones.is_empty()
    }

    pub fn zone(&self, id: i64) -> Option<&Zone> {
        self.zones.iter().find(|z| z.id == id)
    }
}

/// What the customer chose so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub mode: Mode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
}

/// What is still missing before an order can be confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Missing {
    /// Pickup or delivery.
    Mode,
    Zone,
    Address,
}

/// The choice as an order takes it: the zone's fee, from the backend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Settled {
    pub mode: Mode,
    pub zone: Option<Zone>,
    pub address: Option<String>,
    pub fee_minor: i64,
}

/// What is missing from `choice`, if anything, under `options`.
pub fn missing(options: &Options, choice: Option<&Choice>) -> Option<Missing> {
    if !options.asks() {
        return None;
    }
    match choice {
        None if options.pickup => None,
        None => Some(Missing::Mode),
        Some(Choice {
            mode: Mode::Pickup, ..
        }) => None,
        Some(choice) => {
            if choice.zone_id.and_then(|id| options.zone(id)).is_none() {
                Some(Missing::Zone)
            } else if choice.address.as_deref().is_none_or(str::is_empty) {
                Some(Missing::Address)
            } else {
                None
            }
        }
    }
}

/// The fee and zone a complete choice comes to for an order of
/// `subtotal_minor` before the fee (`None`: nothing was asked). Nothing said
/// where the shop lets customers pick up is a pickup.
pub fn settle(options: &Options, choice: Option<&Choice>, subtotal_minor: i64) -> Option<Settled> {
    if !options.asks() {
        return None;
    }
    let pickup = Choice {
        mode: Mode::Pickup,
        zone_id: None,
        address: None,
    };
    let choice = match choice {
        Some(choice) => choice,
        None if options.pickup => &pickup,
        None => return None,
    };
    let zone = match choice.mode {
        Mode::Pickup => None,
        Mode::Delivery => Some(options.zone(choice.zone_id?)?.clone()),
    };
    Some(Settled {
        mode: choice.mode,
        fee_minor: zone.as_ref().map_or(0, |z| z.fee_for(subtotal_minor)),
        zone,
        address: choice.address.clone(),
    })
}

/// An address as kept: trimmed, at most `MAX_ADDRESS` characters, none if blank.
pub fn tidy_address(raw: &str) -> Option<String> {
    let trimmed = raw.trim();
    (!trimmed.is_empty()).then(|| trimmed.chars().take(MAX_ADDRESS).collect())
}

/// A shop with pickup and one zone (Sopocachi, Bs 10, at least Bs 50), for tests.
#[cfg(test)]
pub(crate) fn sample_options() -> Options {
    Options {
        pickup: true,
        delivery: true,
        zones: vec![Zone {
            id: 7,
            name: "Sopocachi".into(),
            fee_minor: 1000,
            min_order_minor: Some(5000),
            free_from_minor: None,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Options {
        sample_options()
    }

    #[test]
    fn a_delivery_needs_a_known_zone_then_an_address() {
        let options = options();
        let mut choice = Choice {
            mode: Mode::Delivery,
            zone_id: None,
            address: None,
        };
        assert_eq!(missing(&options, Some(&choice)), Some(Missing::Zone));
        choice.zone_id = Some(99);
        assert_eq!(
            missing(&options, Some(&choice)),
            Some(Missing::Zone),
            "unknown zone"
        );
        choice.zone_id = Some(7);
        assert_eq!(missing(&options, Some(&choice)), Some(Missing::Address));
        choice.address = Some("Calle 5 #12".into());
        assert_eq!(missing(&options, Some(&choice)), None);
        assert_eq!(
            settle(&options, Some(&choice), 6000).unwrap().fee_minor,
            1000
        );
        let pickup = Choice {
            mode: Mode::Pickup,
            zone_id: None,
            address: None,
        };
        assert_eq!(missing(&options, Some(&pickup)), None);
        assert_eq!(settle(&options, Some(&pickup), 6000).unwrap().fee_minor, 0);
    }

    #[test]
    fn nothing_said_is_a_pickup_where_the_shop_has_one() {
        let options = options();
        assert_eq!(missing(&options, None), None);
        let settled = settle(&options, None, 6000).unwrap();
        assert_eq!((settled.mode, settled.fee_minor), (Mode::Pickup, 0));
        // A shop that only delivers asks.
        let only_delivery = Options {
            pickup: false,
            ..options
        };
        assert_eq!(missing(&only_delivery, None), Some(Missing::Mode));
        assert_eq!(settle(&only_delivery, None, 6000), None);
    }

    #[test]
    fn a_zone_delivers_free_from_its_threshold() {
        let mut options = options();
        options.zones[0].free_from_minor = Some(20000);
        let choice = Choice {
            mode: Mode::Delivery,
            zone_id: Some(7),
            address: Some("Calle 5 #12".into()),
        };
        assert_eq!(
            settle(&options, Some(&choice), 19999).unwrap().fee_minor,
            1000
        );
        assert_eq!(settle(&options, Some(&choice), 20000).unwrap().fee_minor, 0);
    }

    #[test]
    fn a_pickup_only_shop_asks_nothing() {
        assert_eq!(missing(&Options::default(), None), None);
        assert_eq!(settle(&Options::default(), None, 0), None);
    }
}
