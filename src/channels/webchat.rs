//! The web-chat channel. Sending is marking the outbox row sent: clients read sent
//! rows through `GET /webchat/{bot}/events` (server-sent events), resuming from the
//! last id they saw, so a reply is never lost to a dropped connection.

use async_trait::async_trait;

use super::{Channel, ChannelKind, Delivered, Outgoing, SendError};

#[derive(Debug, Default, Clone, Copy)]
pub struct WebChat;

#[async_trait]
impl Channel for WebChat {
    fn kind(&self) -> ChannelKind {
        ChannelKind::Webchat
    }

    async fn send(&self, _message: &Outgoing) -> Result<Delivered, SendError> {
        Ok(Delivered::default())
    }
}

/// Web-chat sessions are issued by the server, never chosen by the client: a
/// token names its session and is signed with the process's key ring, bound to
/// its bot, so a forged, altered or foreign token is refused without a lookup.
/// An anonymous session carries 128 random bits; a verified one (the merchant's
/// site vouched for the identifier with its HMAC) carries the identifier, so the
/// same person continues their conversation on any device.
pub mod session {
    use chrono::{DateTime, Utc};
    use uuid::Uuid;

    use crate::secret::KeyRing;

    /// How long a token is accepted after it was issued.
    pub const TOKEN_DAYS: i64 = 30;
    const VERSION: u8 = 1;
    const ANONYMOUS: u8 = b'w';
    const VERIFIED: u8 = b'u';
    const PURPOSE: &str = "webchat-session";

    /// Who a token speaks for.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Session {
        /// The contact's id on the web-chat channel.
        pub id: String,
        pub expires_at: DateTime<Utc>,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
    pub enum TokenError {
        #[error("malformed token")]
        Malformed,
        #[error("token not issued for this bot, or altered")]
        Forged,
        #[error("token expired")]
        Expired,
    }

    /// A token for a new anonymous session of `bot_id`.
    pub fn issue(keys: &KeyRing, bot_id: Uuid) -> (String, Session) {
        use rand::RngCore;
        let mut random = [0u8; 16];
        rand::rng().fill_bytes(&mut random);
        issue_at(keys, bot_id, ANONYMOUS, &random, Utc::now())
    }

    /// A token for the verified identity `identifier` of `bot_id`.
    pub fn issue_verified(keys: &KeyRing, bot_id: Uuid, identifier: &str) -> (String, Session) {
        issue_at(keys, bot_id, VERIFIED, identifier.as_bytes(), Utc::now())
    }

    /// A token as if issued at `at` (tests of expiry use it).
    pub fn issue_anonymous_at(keys: &KeyRing, bot_id: Uuid, at: DateTime<Utc>) -> String {
        issue_at(keys, bot_id, ANONYMOUS, &[7u8; 16], at).0
    }

    fn issue_at(
        keys: &KeyRing,
        bot_id: Uuid,
        kind: u8,
        subject: &[u8],
        at: DateTime<Utc>,
    ) -> (String, Session) {
        let mut payload = vec![VERSION, kind];
        payload.extend_from_slice(&at.timestamp().to_be_bytes());
        payload.extend_from_slice(subject);
        let tag = keys.sign(PURPOSE, &signed(bot_id, &payload));
        let token = format!("{}{}", hex::encode(&payload), hex::encode(tag));
        let session = read_payload(&payload).expect("a payload just built reads back");
        (token, session)
    }

    fn signed(bot_id: Uuid, payload: &[u8]) -> Vec<u8> {
        let mut message = bot_id.as_bytes().to_vec();
        message.extend_from_slice(payload);
        message
    }

    fn read_payload(payload: &[u8]) -> Result<Session, TokenError> {
        let [version, kind, rest @ ..] = payload else {
            return Err(TokenError::Malformed);
        };
        if *version != VERSION || rest.len() < 8 {
            return Err(TokenError::Malformed);
        }
        let (stamp, subject) = rest.split_at(8);
        let issued = i64::from_be_bytes(stamp.try_into().expect("eight bytes"));
        let issued = DateTime::from_timestamp(issued, 0).ok_or(TokenError::Malformed)?;
        let id = match *kind {
            ANONYMOUS if subject.len() == 16 => format!("w:{}", hex::encode(subject)),
            VERIFIED if !subject.is_empty() => format!(
                "u:{}",
                std::str::from_utf8(subject).map_err(|_| TokenError::Malformed)?
            ),
            _ => return Err(TokenError::Malformed),
        };
        Ok(Session {
            id,
            expires_at: issued + chrono::Duration::days(TOKEN_DAYS),
        })
    }

    /// The session `token` speaks for at `bot_id`.
    pub fn verify(keys: &KeyRing, bot_id: Uuid, token: &str) -> Result<Session, TokenError> {
        if token.len() > 600 || token.len() < 32 {
            return Err(TokenError::Malformed);
        }
        let bytes = hex::decode(token).map_err(|_| TokenError::Malformed)?;
        let (payload, tag) = bytes.split_at(bytes.len() - 16);
        if !keys.verify(PURPOSE, &signed(bot_id, payload), tag) {
            return Err(TokenError::Forged);
        }
        let session = read_payload(payload)?;
        if session.expires_at < Utc::now() {
            return Err(TokenError::Expired);
        }
        Ok(session)
    }

    /// Where a bot's identity secret is sealed (its row and column).
    pub fn identity_secret_context(bot_id: Uuid) -> String {
        format!("bots/{bot_id}/webchat_identity_secret")
    }

    /// A new identity secret: 32 random bytes, in hex.
    pub fn new_identity_secret() -> String {
        use rand::RngCore;
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        hex::encode(bytes)
    }

    /// Whether `hash` is HMAC-SHA256(`secret`, `identifier`) in hex, as the
    /// merchant's site computes it (constant-time).
    pub fn identity_matches(secret: &str, identifier: &str, hash: &str) -> bool {
        use hmac::{Hmac, Mac};
        let Ok(given) = hex::decode(hash.trim()) else {
            return false;
        };
        let mut mac =
            Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
        mac.update(identifier.as_bytes());
        mac.verify_slice(&given).is_ok()
    }

    /// Whether a client-named session id could be one the server issues (such an
    /// id is only ever reached with its token).
    pub fn is_issued_form(id: &str) -> bool {
        id.starts_with("w:") || id.starts_with("u:")
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn keys() -> KeyRing {
            KeyRing::parse(crate::config::TEST_SECRET_KEY).unwrap()
        }

        #[test]
        fn a_token_names_its_session_at_its_bot_only() {
            let (bot, other) = (Uuid::new_v4(), Uuid::new_v4());
            let (token, session) = issue(&keys(), bot);
            assert!(session.id.starts_with("w:") && session.id.len() == 34);
            assert_eq!(verify(&keys(), bot, &token), Ok(session.clone()));
            assert_eq!(verify(&keys(), other, &token), Err(TokenError::Forged));
            let (again, second) = issue(&keys(), bot);
            assert_ne!(again, token);
            assert_ne!(second.id, session.id, "each token a new session");
        }

        #[test]
        fn altered_chosen_foreign_and_old_tokens_are_refused() {
            let bot = Uuid::new_v4();
            let (token, _) = issue(&keys(), bot);
            let mut altered = token.clone().into_bytes();
            altered[10] = if altered[10] == b'0' { b'1' } else { b'0' };
            let altered = String::from_utf8(altered).unwrap();
            assert_eq!(verify(&keys(), bot, &altered), Err(TokenError::Forged));
            assert_eq!(verify(&keys(), bot, "x"), Err(TokenError::Malformed));
            assert_eq!(
                verify(&keys(), bot, &"ab".repeat(30)),
                Err(TokenError::Forged)
            );
            let other_ring = KeyRing::parse(&KeyRing::generate("other")).unwrap();
            let (foreign, _) = issue(&other_ring, bot);
            assert_eq!(verify(&keys(), bot, &foreign), Err(TokenError::Forged));
            let old = issue_anonymous_at(&keys(), bot, Utc::now() - chrono::Duration::days(31));
            assert_eq!(verify(&keys(), bot, &old), Err(TokenError::Expired));
        }

        #[test]
        fn an_identity_hash_is_the_sites_hmac_of_the_identifier() {
            use hmac::{Hmac, Mac};
            let secret = new_identity_secret();
            let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
            mac.update(b"cliente-42");
            let hash = hex::encode(mac.finalize().into_bytes());
            assert!(identity_matches(&secret, "cliente-42", &hash));
            assert!(!identity_matches(&secret, "cliente-43", &hash));
            assert!(!identity_matches(
                &new_identity_secret(),
                "cliente-42",
                &hash
            ));
            assert!(!identity_matches(&secret, "cliente-42", "zz"));
        }

        #[test]
        fn a_verified_identity_is_the_same_session_on_every_device() {
            let bot = Uuid::new_v4();
            let (_, first) = issue_verified(&keys(), bot, "cliente-42");
            let (b, second) = issue_verified(&keys(), bot, "cliente-42");
            assert_eq!(first.id, "u:cliente-42");
            assert_eq!(second.id, first.id);
            assert_eq!(verify(&keys(), bot, &b).unwrap().id, "u:cliente-42");
        }
    }
}
