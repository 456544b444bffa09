//! Files a customer sent (payment proofs), fetched from the platform with the
//! bot's credentials for the merchant's eyes only: the page never holds a token.

use futures::StreamExt;

/// Largest file fetched.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;

/// A fetched file.
#[derive(Debug)]
pub struct Download {
    pub bytes: Vec<u8>,
    pub content_type: String,
}

#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    #[error("the bot has no credentials for this channel")]
    NoCredentials,
    #[error("the platform refused: {0}")]
    Refused(String),
    #[error("the platform could not be reached: {0}")]
    Unreachable(String),
    #[error("the file is larger than 10 MiB")]
    TooLarge,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Reads a successful response's body, bounded.
pub async fn bounded_body(response: reqwest::Response) -> Result<Download, DownloadError> {
    if !response.status().is_success() {
        return Err(DownloadError::Refused(response.status().to_string()));
    }
    if response
        .content_length()
        .is_some_and(|n| n as usize > MAX_BYTES)
    {
        return Err(DownloadError::TooLarge);
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    let mut bytes = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| DownloadError::Unreachable(e.without_url().to_string()))?;
        if bytes.len() + chunk.len() > MAX_BYTES {
            return Err(DownloadError::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Download {
        bytes,
        content_type,
    })
}
