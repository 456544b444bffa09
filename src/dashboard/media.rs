//! `GET /dashboard/media/{proof}`: a payment proof's image, fetched from the
//! platform with the bot's credentials and passed through (no token reaches the
//! page). Only images and PDFs are shown inline; anything else is a download.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::session::Session;
use super::{Console, PageError};
use crate::merchant::payments::{self, ProofMediaError};

pub async fn proof(
    session: Session,
    State(console): State<Console>,
    Path(proof): Path<String>,
) -> Result<Response, PageError> {
    let proof: i64 = proof.parse().map_err(|_| PageError::NotFound)?;
    let download = match payments::proof_media(&console.office, session.merchant_id, proof).await {
        Ok(download) => download,
        Err(ProofMediaError::Merchant(err)) => return Err(err.into()),
        Err(ProofMediaError::Platform(_)) => {
            return Ok((
                StatusCode::BAD_GATEWAY,
                "No pudimos traer la imagen de la plataforma.",
            )
                .into_response());
        }
    };
    let inline =
        download.content_type.starts_with("image/") || download.content_type == "application/pdf";
    let content_type = if inline {
        download.content_type.clone()
    } else {
        "application/octet-stream".to_owned()
    };
    let mut response = download.bytes.into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=300"),
    );
    if !inline {
        headers.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment; filename=\"comprobante\""),
        );
    }
    Ok(response)
}
