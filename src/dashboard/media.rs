//! `GET /dashboard/media/{proof}`: a payment proof's image, fetched from the
//! platform with the bot's credentials and passed through (no token reaches the
//! page). Only images and PDFs are shown inline; anything else is a download.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::PageError;
use super::session::Session;
use crate::channels::media::DownloadError;
use crate::http::AppState;
use crate::shop::payments;

pub async fn proof(
    session: Session,
    State(state): State<AppState>,
    Path(proof): Path<String>,
) -> Result<Response, PageError> {
    let proof: i64 = proof.parse().map_err(|_| PageError::NotFound)?;
    let payments::OwnedProof {
        proof,
        bot_id,
        channel,
    } = payments::proof_for_merchant(&state.pool, proof, session.merchant_id)
        .await?
        .ok_or(PageError::NotFound)?;
    let media_id = proof
        .media
        .as_ref()
        .and_then(|m| m["id"].as_str())
        .ok_or(PageError::NotFound)?;
    let fetched = match channel.as_str() {
        "telegram" => state.telegram.download(bot_id, media_id).await,
        "whatsapp" => state.whatsapp.download(bot_id, media_id).await,
        _ => return Err(PageError::NotFound),
    };
    let download = match fetched {
        Ok(download) => download,
        Err(DownloadError::Database(err)) => return Err(err.into()),
        Err(err) => {
            tracing::warn!(%err, proof = proof.id, "could not fetch a payment proof");
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
