//! Secrets: values that must never reach logs or `Debug` output, and the keys that
//! encrypt them at rest. A leaf module, so
//! settings, channels and credentials can all use it without importing each other.

use std::fmt;

/// A value that must not be printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// Keys that encrypt secrets at rest (channel tokens and app secrets), with
/// XChaCha20-Poly1305. The first key encrypts; every key decrypts, so keys can be
/// rotated: add a new one first, run `tendero rotate-secrets`, then drop the old.
/// From `TENDERO_SECRET_KEY`: `id=64 hex digits`, comma-separated, newest first.
#[derive(Clone)]
pub struct KeyRing {
    keys: Vec<(String, [u8; 32])>,
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|(id, _)| id.as_str()).collect();
        write!(f, "KeyRing({ids:?}, [redacted])")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("expected id=KEY pairs, KEY being 64 hex digits (32 bytes), the newest first")]
    Malformed,
    #[error("no key with id `{0}` is configured (TENDERO_SECRET_KEY)")]
    UnknownKey(String),
    #[error("a stored secret could not be decrypted (wrong key, or altered)")]
    Undecryptable,
}

/// Prefix of an encrypted value: `enc:v1:<key id>:<nonce hex>:<ciphertext hex>`.
const PREFIX: &str = "enc:v1:";

impl KeyRing {
    pub fn parse(raw: &str) -> Result<KeyRing, KeyError> {
        let mut keys = Vec::new();
        for entry in raw.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (id, hex_key) = entry.split_once('=').ok_or(KeyError::Malformed)?;
            let id = id.trim();
            let ok_id = !id.is_empty()
                && id.len() <= 32
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            let bytes = hex::decode(hex_key.trim()).map_err(|_| KeyError::Malformed)?;
            let key: [u8; 32] = bytes.try_into().map_err(|_| KeyError::Malformed)?;
            if !ok_id || keys.iter().any(|(known, _)| known == id) {
                return Err(KeyError::Malformed);
            }
            keys.push((id.to_owned(), key));
        }
        if keys.is_empty() {
            return Err(KeyError::Malformed);
        }
        Ok(KeyRing { keys })
    }

    /// A new random key, as `TENDERO_SECRET_KEY` would hold it.
    pub fn generate(id: &str) -> String {
        use rand::RngCore;
        let mut key = [0u8; 32];
        rand::rng().fill_bytes(&mut key);
        format!("{id}={}", hex::encode(key))
    }

    /// A 16-byte tag over `message` under the active key (a key derived from it
    /// for signing, never the sealing key itself), bound to `purpose`.
    pub fn sign(&self, purpose: &str, message: &[u8]) -> [u8; 16] {
        mac(&self.keys[0].1, purpose, message)
    }

    /// Whether `tag` was made by [`KeyRing::sign`] under any key of the ring (so a
    /// rotation does not void what the old key signed). Constant-time.
    pub fn verify(&self, purpose: &str, message: &[u8], tag: &[u8]) -> bool {
        use subtle::ConstantTimeEq;
        self.keys
            .iter()
            .any(|(_, key)| bool::from(mac(key, purpose, message).ct_eq(tag)))
    }

    pub fn active_id(&self) -> &str {
        &self.keys[0].0
    }

    /// Encrypts `plaintext` under the active key. `context` (the row and field it
    /// belongs to) is authenticated, so a value moved elsewhere does not decrypt.
    pub fn encrypt(&self, plaintext: &str, context: &str) -> String {
        use chacha20poly1305::XChaCha20Poly1305;
        use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
        let (id, key) = &self.keys[0];
        let cipher = XChaCha20Poly1305::new(key.into());
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let sealed = cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plaintext.as_bytes(),
                    aad: context.as_bytes(),
                },
            )
            .expect("encryption does not fail for in-memory data");
        format!(
            "{PREFIX}{id}:{}:{}",
            hex::encode(nonce),
            hex::encode(sealed)
        )
    }

    /// Decrypts a stored value. A value stored before encryption (no prefix) is
    /// returned as it is, until `tendero rotate-secrets` encrypts it.
    pub fn decrypt(&self, stored: &str, context: &str) -> Result<String, KeyError> {
        use chacha20poly1305::aead::{Aead, KeyInit, Payload};
        use chacha20poly1305::{XChaCha20Poly1305, XNonce};
        let Some(rest) = stored.strip_prefix(PREFIX) else {
            return Ok(stored.to_owned());
        };
        let mut parts = rest.splitn(3, ':');
        let (Some(id), Some(nonce), Some(sealed)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(KeyError::Undecryptable);
        };
        let (_, key) = self
            .keys
            .iter()
            .find(|(known, _)| known == id)
            .ok_or_else(|| KeyError::UnknownKey(id.to_owned()))?;
        let nonce: [u8; 24] = hex::decode(nonce)
            .ok()
            .and_then(|n| n.try_into().ok())
            .ok_or(KeyError::Undecryptable)?;
        let sealed = hex::decode(sealed).map_err(|_| KeyError::Undecryptable)?;
        let plain = XChaCha20Poly1305::new(key.into())
            .decrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: &sealed,
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| KeyError::Undecryptable)?;
        String::from_utf8(plain).map_err(|_| KeyError::Undecryptable)
    }

    /// Whether `stored` is already encrypted under the active key.
    pub fn is_current(&self, stored: &str) -> bool {
        stored
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split(':').next())
            .is_some_and(|id| id == self.active_id())
    }
}

/// HMAC-SHA256 under a signing key derived from `key`, truncated to 16 bytes.
fn mac(key: &[u8; 32], purpose: &str, message: &[u8]) -> [u8; 16] {
    use hmac::{Hmac, Mac};
    type HmacSha256 = Hmac<sha2::Sha256>;
    let mut derive = HmacSha256::new_from_slice(key).expect("HMAC takes any key");
    derive.update(b"tendero signing key v1");
    let signing = derive.finalize().into_bytes();
    let mut mac = HmacSha256::new_from_slice(&signing).expect("HMAC takes any key");
    mac.update(purpose.as_bytes());
    mac.update(&[0]);
    mac.update(message);
    let full = mac.finalize().into_bytes();
    let mut tag = [0u8; 16];
    tag.copy_from_slice(&full[..16]);
    tag
}

static KEYRING: std::sync::OnceLock<KeyRing> = std::sync::OnceLock::new();

/// Installs the process's key ring; the first call wins (like the TLS provider, it
/// is set once at start by `main` or a test harness).
pub fn install(keys: KeyRing) {
    let _ = KEYRING.set(keys);
}

/// The process's key ring, once installed.
pub fn keyring() -> Result<&'static KeyRing, KeyError> {
    KEYRING
        .get()
        .ok_or_else(|| KeyError::UnknownKey("(none installed)".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(raw: &str) -> KeyRing {
        KeyRing::parse(raw).unwrap()
    }

    #[test]
    fn a_secret_round_trips_and_its_ciphertext_reveals_nothing() {
        let keys = ring(&KeyRing::generate("k1"));
        let stored = keys.encrypt("123456:ABC-token", "bot/telegram_token");
        assert!(stored.starts_with("enc:v1:k1:"));
        assert!(!stored.contains("ABC-token"));
        assert_ne!(
            stored,
            keys.encrypt("123456:ABC-token", "bot/telegram_token")
        );
        assert_eq!(
            keys.decrypt(&stored, "bot/telegram_token").unwrap(),
            "123456:ABC-token"
        );
        // Moved to another row or field, it does not decrypt.
        assert_eq!(
            keys.decrypt(&stored, "other/telegram_token"),
            Err(KeyError::Undecryptable)
        );
        let mut tampered = stored.clone();
        let last = tampered.pop().unwrap();
        tampered.push(if last == '0' { '1' } else { '0' });
        assert!(keys.decrypt(&tampered, "bot/telegram_token").is_err());
    }

    #[test]
    fn keys_rotate_new_first_old_still_readable() {
        let old = KeyRing::generate("k1");
        let new = KeyRing::generate("k2");
        let before = ring(&old).encrypt("s3cret", "ctx");
        let rotated = ring(&format!("{new},{old}"));
        assert_eq!(rotated.decrypt(&before, "ctx").unwrap(), "s3cret");
        assert!(!rotated.is_current(&before));
        let after = rotated.encrypt("s3cret", "ctx");
        assert!(rotated.is_current(&after) && after.starts_with("enc:v1:k2:"));
        // Once the old key is dropped, what it sealed is refused with its id.
        assert_eq!(
            ring(&new).decrypt(&before, "ctx"),
            Err(KeyError::UnknownKey("k1".into()))
        );
        // Values from before encryption read as they are.
        assert_eq!(ring(&new).decrypt("plain", "ctx").unwrap(), "plain");
    }

    #[test]
    fn malformed_keys_are_refused_and_never_printed() {
        for bad in [
            "",
            "k1",
            "k1=abc",
            "k1=zz",
            &format!("k1={}", "0".repeat(62)),
        ] {
            assert_eq!(
                KeyRing::parse(bad).unwrap_err(),
                KeyError::Malformed,
                "{bad}"
            );
        }
        let twice = format!("{},k1={}", KeyRing::generate("k1"), "1".repeat(64));
        assert_eq!(KeyRing::parse(&twice).unwrap_err(), KeyError::Malformed);
        let keys = ring(&format!("k1={}", "ab".repeat(32)));
        assert!(!format!("{keys:?}").contains("abab"));
    }
}
