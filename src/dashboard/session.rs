//! Console sessions (the `dashboard_sessions` table): signed in with an API key,
//! kept server-side (the cookie holds a random token, the table only its hash),
//! ended by sign-out, by expiry or by revoking the key. Every write carries the
//! session's CSRF token and comes from this site: `CsrfForm` checks both.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use rand::RngCore;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use subtle::ConstantTimeEq;
use uuid::Uuid;

use super::{Console, PageError};

pub const COOKIE: &str = "tendero_session";
/// How long a session lasts from sign-in.
pub const LIFETIME_SECS: i64 = 12 * 3600;

/// A signed-in merchant.
#[derive(Debug, Clone)]
pub struct Session {
    pub merchant_id: Uuid,
    pub csrf: String,
    /// The API key this session was opened with.
    pub key_id: Uuid,
    token: String,
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    hex::encode(buf)
}

fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Opens a session; returns the cookie's token.
pub async fn open(pool: &PgPool, merchant_id: Uuid, key_id: Uuid) -> sqlx::Result<String> {
    let token = random_hex(32);
    sqlx::query(
        "INSERT INTO dashboard_sessions (token_hash, merchant_id, key_id, csrf, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))",
    )
    .bind(hash(&token))
    .bind(merchant_id)
    .bind(key_id)
    .bind(random_hex(24))
    .bind(LIFETIME_SECS as f64)
    .execute(pool)
    .await?;
    // Expired sessions go as new ones come.
    sqlx::query("DELETE FROM dashboard_sessions WHERE expires_at < now()")
        .execute(pool)
        .await?;
    Ok(token)
}

/// The live session a token names: not expired, its key not revoked.
pub async fn find(pool: &PgPool, token: &str) -> sqlx::Result<Option<Session>> {
    if token.len() != 64 {
        return Ok(None);
    }
    let row: Option<(Uuid, String, Uuid)> = sqlx::query_as(
        "SELECT s.merchant_id, s.csrf, s.key_id FROM dashboard_sessions s
         JOIN api_keys k ON k.id = s.key_id AND k.revoked_at IS NULL
         WHERE s.token_hash = $1 AND s.expires_at > now()",
    )
    .bind(hash(token))
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(merchant_id, csrf, key_id)| Session {
        merchant_id,
        csrf,
        key_id,
        token: token.to_owned(),
    }))
}

pub async fn close(pool: &PgPool, session: &Session) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM dashboard_sessions WHERE token_hash = $1")
        .bind(hash(&session.token))
        .execute(pool)
        .await?;
    Ok(())
}

fn new_key_context(session: &Session) -> String {
    format!("console-new-key:{}", session.merchant_id)
}

/// Keeps a key just created for the next page of this session, sealed.
pub async fn stash_key(pool: &PgPool, session: &Session, key: &str) -> anyhow::Result<()> {
    let sealed = crate::secret::keyring()?.encrypt(key, &new_key_context(session));
    sqlx::query("UPDATE dashboard_sessions SET new_key_sealed = $2 WHERE token_hash = $1")
        .bind(hash(&session.token))
        .bind(sealed)
        .execute(pool)
        .await?;
    Ok(())
}

/// The key this session just created, once: taking it clears it.
pub async fn take_key(pool: &PgPool, session: &Session) -> anyhow::Result<Option<String>> {
    let sealed: Option<Option<String>> = sqlx::query_scalar(
        "UPDATE dashboard_sessions s SET new_key_sealed = NULL
         FROM (SELECT token_hash, new_key_sealed FROM dashboard_sessions
               WHERE token_hash = $1 FOR UPDATE) old
         WHERE s.token_hash = old.token_hash
         RETURNING old.new_key_sealed",
    )
    .bind(hash(&session.token))
    .fetch_optional(pool)
    .await?;
    match sealed.flatten() {
        Some(sealed) => Ok(Some(
            crate::secret::keyring()?.decrypt(&sealed, &new_key_context(session))?,
        )),
        None => Ok(None),
    }
}

impl Session {
    /// Whether a form's token is this session's (compared in constant time).
    pub fn csrf_ok(&self, token: &str) -> bool {
        self.csrf.as_bytes().ct_eq(token.as_bytes()).into()
    }
}

/// The cookie that carries `token` (Secure when the request came over TLS).
pub fn cookie(token: &str, headers: &HeaderMap) -> String {
    let secure = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("https"));
    format!(
        "{COOKIE}={token}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age={LIFETIME_SECS}{}",
        if secure { "; Secure" } else { "" }
    )
}

/// The cookie that ends the session in the browser.
pub fn cleared_cookie() -> String {
    format!("{COOKIE}=; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=0")
}

fn token_in(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_owned())
}

/// Not signed in: to the sign-in page (pages) or 401 (live updates, media).
pub struct SignIn;

impl IntoResponse for SignIn {
    fn into_response(self) -> Response {
        Redirect::to("/dashboard/login").into_response()
    }
}

impl FromRequestParts<Console> for Session {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &Console) -> Result<Self, Response> {
        let Some(token) = token_in(&parts.headers) else {
            return Err(SignIn.into_response());
        };
        match find(&state.pool, &token).await {
            Ok(Some(session)) => Ok(session),
            Ok(None) => Err(SignIn.into_response()),
            Err(err) => Err(PageError::from(err).into_response()),
        }
    }
}

/// A console write: the signed-in session and the form it submitted, which must
/// come from this site and carry the session's CSRF token. Anything else is
/// refused before the handler runs.
pub struct CsrfForm<T> {
    pub session: Session,
    pub form: T,
}

/// The token field every console form carries.
#[derive(Deserialize)]
struct Token {
    csrf: String,
}

impl<T: DeserializeOwned> FromRequest<Console> for CsrfForm<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &Console) -> Result<Self, Response> {
        let (mut parts, body) = request.into_parts();
        let session = Session::from_request_parts(&mut parts, state).await?;
        if !same_origin(&parts.headers) {
            return Err(PageError::Forbidden.into_response());
        }
        let bytes = Bytes::from_request(Request::from_parts(parts, body), state)
            .await
            .map_err(IntoResponse::into_response)?;
        let token: Token = serde_urlencoded::from_bytes(&bytes)
            .map_err(|_| PageError::Forbidden.into_response())?;
        if !session.csrf_ok(&token.csrf) {
            return Err(PageError::Forbidden.into_response());
        }
        let form = serde_urlencoded::from_bytes(&bytes).map_err(|_| {
            (StatusCode::BAD_REQUEST, "El formulario llegó incompleto.").into_response()
        })?;
        Ok(CsrfForm { session, form })
    }
}

/// The check `CsrfForm` makes, for a write that is not a plain form (a file
/// upload carries its token as a part of its own).
pub fn write_allowed(session: &Session, headers: &HeaderMap, csrf: &str) -> Result<(), PageError> {
    if same_origin(headers) && session.csrf_ok(csrf) {
        Ok(())
    } else {
        Err(PageError::Forbidden)
    }
}

/// Whether a browser write comes from this site: an `Origin` header, when the
/// browser sends one, must name the host the request was sent to.
pub fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    origin
        .split_once("://")
        .is_some_and(|(_, rest)| rest.trim_end_matches('/') == host)
}
