//! One error type for every HTTP handler: each variant is a status, answered as JSON
//! `{"error": ...}`. Database and unexpected errors become an opaque 500, logged once.

use axum::Json;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("missing or invalid API key")]
    Unauthorized,
    #[error("invalid signature")]
    BadSignature,
    /// A web-chat call without a valid session token (nothing more is said).
    #[error(
        "a valid web-chat session token is required; get one from POST /webchat/{{bot}}/sessions"
    )]
    SessionRequired,
    #[error("forbidden")]
    Forbidden,
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{0}")]
    Conflict(String),
    #[error("request body too large")]
    PayloadTooLarge,
    /// A file of a type Tendero does not take, or not the type it declares (415).
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// Too much from one client (429, with a `Retry-After`).
    #[error("{0}")]
    TooManyRequests(String),
    /// Well-formed but wrong, with what is wrong in detail (422).
    #[error("{error}")]
    Invalid {
        error: String,
        details: serde_json::Value,
    },
    /// The database did not answer in time: the platform should retry.
    #[error("temporarily unavailable; please retry")]
    Unavailable,
    #[error("an internal error occurred")]
    Unexpected(#[from] anyhow::Error),
}

impl From<sqlx::Error> for ApiError {
    fn from(err: sqlx::Error) -> Self {
        ApiError::Unexpected(err.into())
    }
}

impl From<crate::merchant::MerchantError> for ApiError {
    fn from(err: crate::merchant::MerchantError) -> Self {
        use crate::merchant::MerchantError as E;
        match err {
            E::NotFound(what) => ApiError::NotFound(what),
            E::Invalid { message, .. } => ApiError::BadRequest(message),
            E::BadLines(ref lines) => ApiError::Invalid {
                error: err.to_string(),
                details: json!({ "lines": lines }),
            },
            E::KeyReused { ref key } => ApiError::Invalid {
                details: json!({ "idempotency_key": key }),
                error: err.to_string(),
            },
            E::NotAwaitingPayment(_)
            | E::CannotFollow { .. }
            | E::NotLive(_)
            | E::NotTakenOver
            | E::WrongProfile { .. }
            | E::LastKey
            | E::SkuTaken
            | E::SlugTaken
            | E::PhoneTaken
            | E::TelegramNotConnected => ApiError::Conflict(err.to_string()),
            E::Database(e) => e.into(),
            E::Unexpected(e) => ApiError::Unexpected(e),
        }
    }
}

impl From<crate::ingest::IngestError> for ApiError {
    fn from(err: crate::ingest::IngestError) -> Self {
        match err {
            crate::ingest::IngestError::Unavailable => ApiError::Unavailable,
            crate::ingest::IngestError::Database(e) => e.into(),
        }
    }
}

impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> Self {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::PayloadTooLarge
        } else {
            ApiError::BadRequest(rejection.body_text())
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match &self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized | ApiError::BadSignature | ApiError::SessionRequired => {
                StatusCode::UNAUTHORIZED
            }
            ApiError::Forbidden => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::TooManyRequests(_) => {
                let body = Json(json!({ "error": self.to_string() }));
                return (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(axum::http::header::RETRY_AFTER, "30")],
                    body,
                )
                    .into_response();
            }
            ApiError::Invalid { error, details } => {
                let body = json!({"error": error, "details": details});
                return (StatusCode::UNPROCESSABLE_ENTITY, Json(body)).into_response();
            }
            ApiError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Unexpected(err) => {
                tracing::error!(error = %format!("{err:#}"), "request failed");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        (status, Json(json!({ "error": self.to_string() }))).into_response()
    }
}

/// Parses a JSON body from raw bytes, so every malformed body is a 400 with our shape.
pub fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if crate::text::has_nul_escape(body) {
        return Err(ApiError::BadRequest(
            "text may not contain NUL characters (\\u0000)".into(),
        ));
    }
    serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("malformed JSON body: {e}")))
}
