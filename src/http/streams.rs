//! Bounds on open web-chat event streams: per client address and in total, so
//! opening many cannot starve everyone else. A stream holds a [`Permit`] while it
//! is open; past a bound the request is refused with a clear 429 or 503.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::extract::ConnectInfo;
use axum::http::HeaderMap;

use super::error::ApiError;

pub use crate::config::StreamBounds;

#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_client: HashMap<Option<IpAddr>, usize>,
    by_session: HashMap<String, usize>,
}

/// Streams one session may hold open (a customer with a few tabs).
pub const PER_SESSION: usize = 5;

/// The streams open in this process.
#[derive(Debug, Clone)]
pub struct StreamLimits {
    bounds: StreamBounds,
    open: Arc<Mutex<Open>>,
}

impl StreamLimits {
    pub fn new(bounds: StreamBounds) -> Self {
        StreamLimits {
            bounds,
            open: Arc::default(),
        }
    }

    /// The client a request comes from: the first address of the trusted header
    /// when one is configured and present, else the socket's peer.
    pub fn client(
        &self,
        headers: &HeaderMap,
        connect: Option<&ConnectInfo<SocketAddr>>,
    ) -> Option<IpAddr> {
        if let Some(name) = &self.bounds.client_ip_header
            && let Some(value) = headers.get(name).and_then(|v| v.to_str().ok())
        {
            return value.split(',').next()?.trim().parse().ok();
        }
        connect.map(|c| c.0.ip())
    }

    /// A place for one more stream of `session` from `client`, or a refusal.
    pub fn admit(&self, client: Option<IpAddr>, session: &str) -> Result<Permit, ApiError> {
        let mut open = self.lock();
        if open.total >= self.bounds.total {
            return Err(ApiError::Unavailable);
        }
        if open.by_session.get(session).copied().unwrap_or(0) >= PER_SESSION {
            return Err(ApiError::TooManyRequests(format!(
                "at most {PER_SESSION} event streams may be open for one session"
            )));
        }
        let mine = open.by_client.entry(client).or_default();
        if *mine >= self.bounds.per_client {
            return Err(ApiError::TooManyRequests(format!(
                "at most {} event streams may be open from one address",
                self.bounds.per_client
            )));
        }
        *mine += 1;
        open.total += 1;
        *open.by_session.entry(session.to_owned()).or_default() += 1;
        Ok(Permit {
            limits: self.clone(),
            client,
            session: session.to_owned(),
        })
    }

    /// Streams open now.
    #[cfg(test)]
    fn open(&self) -> usize {
        self.lock().total
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// One open stream's place; dropping it gives the place back.
#[derive(Debug)]
pub struct Permit {
    limits: StreamLimits,
    client: Option<IpAddr>,
    session: String,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut open = self.limits.lock();
        open.total -= 1;
        if let Some(count) = open.by_client.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                open.by_client.remove(&self.client);
            }
        }
        if let Some(count) = open.by_session.get_mut(&self.session) {
            *count -= 1;
            if *count == 0 {
                open.by_session.remove(&self.session);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderName;

    fn limits(per_client: usize, total: usize) -> StreamLimits {
        StreamLimits::new(StreamBounds {
            per_client,
            total,
            client_ip_header: Some(HeaderName::from_static("x-forwarded-for")),
        })
    }

    #[test]
    fn one_address_cannot_take_every_place_and_places_come_back() {
        let limits = limits(2, 3);
        let (a, b) = (
            Some("10.0.0.1".parse().unwrap()),
            Some("10.0.0.2".parse().unwrap()),
        );
        let first = limits.admit(a, "s1").unwrap();
        let _second = limits.admit(a, "s2").unwrap();
        assert!(matches!(
            limits.admit(a, "s3"),
            Err(ApiError::TooManyRequests(_))
        ));
        let _third = limits.admit(b, "s4").unwrap();
        assert!(
            matches!(limits.admit(b, "s5"), Err(ApiError::Unavailable)),
            "the total is reached"
        );
        drop(first);
        assert_eq!(limits.open(), 2);
        assert!(
            limits.admit(a, "s1").is_ok(),
            "a closed stream gives its place back"
        );
    }

    #[test]
    fn one_session_holds_a_few_streams_at_most() {
        let limits = limits(100, 100);
        let kept: Vec<_> = (0..PER_SESSION)
            .map(|i| {
                let address = Some(std::net::IpAddr::from([10, 0, 0, i as u8]));
                limits.admit(address, "same").unwrap()
            })
            .collect();
        let other_address = Some("10.9.9.9".parse().unwrap());
        assert!(matches!(
            limits.admit(other_address, "same"),
            Err(ApiError::TooManyRequests(_))
        ));
        assert!(limits.admit(other_address, "another").is_ok());
        drop(kept);
        assert!(limits.admit(other_address, "same").is_ok());
    }

    #[test]
    fn the_client_is_the_proxy_header_when_trusted_else_the_peer() {
        let limits = limits(1, 1);
        let mut headers = HeaderMap::new();
        let peer = ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 9)));
        assert_eq!(limits.client(&headers, Some(&peer)), Some(peer.0.ip()));
        headers.insert("x-forwarded-for", "203.0.113.7, 10.0.0.1".parse().unwrap());
        assert_eq!(
            limits.client(&headers, Some(&peer)),
            Some("203.0.113.7".parse().unwrap())
        );
    }
}
