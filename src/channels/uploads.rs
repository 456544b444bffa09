//! Files a web-chat customer sends (payment proofs). Telegram and WhatsApp keep a
//! customer's file and give Tendero its id; a web chat has no platform, so the
//! bytes are kept here (`webchat_uploads`) and the message carries the upload's
//! id as its media id, exactly like a platform's. Only what is plainly an image
//! or a PDF is taken: the declared type must match the file's own first bytes.

use sqlx::PgPool;
use uuid::Uuid;

use super::media::Download;

/// Largest file a web-chat customer may send (WhatsApp's limit for images).
pub const MAX_UPLOAD_BYTES: usize = 5 * 1024 * 1024;

/// What kind of file an upload is, read from its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Jpeg,
    Png,
    Webp,
    Pdf,
}

impl FileKind {
    /// The kind a declared content type names, if it is one Tendero takes.
    pub fn declared(content_type: &str) -> Option<FileKind> {
        let essence = content_type.split(';').next()?.trim().to_ascii_lowercase();
        match essence.as_str() {
            "image/jpeg" | "image/jpg" => Some(FileKind::Jpeg),
            "image/png" => Some(FileKind::Png),
            "image/webp" => Some(FileKind::Webp),
            "application/pdf" => Some(FileKind::Pdf),
            _ => None,
        }
    }

    /// The kind the bytes themselves are.
    pub fn sniffed(bytes: &[u8]) -> Option<FileKind> {
        if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(FileKind::Jpeg)
        } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(FileKind::Png)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(FileKind::Webp)
        } else if bytes.starts_with(b"%PDF-") {
            Some(FileKind::Pdf)
        } else {
            None
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            FileKind::Jpeg => "image/jpeg",
            FileKind::Png => "image/png",
            FileKind::Webp => "image/webp",
            FileKind::Pdf => "application/pdf",
        }
    }

    /// The media kind a message carries ("image" or "document"), as the
    /// platforms name theirs.
    pub fn media_kind(self) -> &'static str {
        match self {
            FileKind::Pdf => "document",
            _ => "image",
        }
    }
}

/// Why an upload was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum UploadRefused {
    #[error("the file is empty")]
    Empty,
    #[error("the file is larger than 5 MiB")]
    TooLarge,
    #[error("only JPEG, PNG, WebP images and PDF files are accepted")]
    UnsupportedType,
    #[error("the file's content is not the type it declares")]
    Mismatch,
}

/// Checks a file against its declared content type.
pub fn check(content_type: &str, bytes: &[u8]) -> Result<FileKind, UploadRefused> {
    if bytes.is_empty() {
        return Err(UploadRefused::Empty);
    }
    if bytes.len() > MAX_UPLOAD_BYTES {
        return Err(UploadRefused::TooLarge);
    }
    let declared = FileKind::declared(content_type).ok_or(UploadRefused::UnsupportedType)?;
    match FileKind::sniffed(bytes) {
        Some(kind) if kind == declared => Ok(kind),
        _ => Err(UploadRefused::Mismatch),
    }
}

/// Stores a checked file once per message (`external_id`): a retried upload
/// returns the first one's id and stores nothing.
pub async fn store(
    pool: &PgPool,
    bot_id: Uuid,
    external_id: &str,
    kind: FileKind,
    bytes: &[u8],
) -> sqlx::Result<Uuid> {
    sqlx::query_scalar(
        "INSERT INTO webchat_uploads (id, bot_id, external_id, content_type, bytes)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (bot_id, external_id) DO UPDATE SET external_id = EXCLUDED.external_id
         RETURNING id",
    )
    .bind(Uuid::new_v4())
    .bind(bot_id)
    .bind(external_id)
    .bind(kind.content_type())
    .bind(bytes)
    .fetch_one(pool)
    .await
}

/// A stored file of this bot, if the id names one.
pub async fn fetch(pool: &PgPool, bot_id: Uuid, id: &str) -> sqlx::Result<Option<Download>> {
    let Ok(id) = Uuid::parse_str(id) else {
        return Ok(None);
    };
    let row: Option<(String, Vec<u8>)> = sqlx::query_as(
        "SELECT content_type, bytes FROM webchat_uploads WHERE bot_id = $1 AND id = $2",
    )
    .bind(bot_id)
    .bind(id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(content_type, bytes)| Download {
        bytes,
        content_type,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn a_file_is_taken_only_when_its_bytes_are_what_it_declares() {
        assert_eq!(check("image/png", PNG), Ok(FileKind::Png));
        assert_eq!(
            check("image/jpeg; charset=x", b"\xFF\xD8\xFF\xE0"),
            Ok(FileKind::Jpeg)
        );
        assert_eq!(check("application/pdf", b"%PDF-1.7\n"), Ok(FileKind::Pdf));
        assert_eq!(
            check("image/webp", b"RIFF\0\0\0\0WEBPVP8 "),
            Ok(FileKind::Webp)
        );
        assert_eq!(check("image/jpeg", PNG), Err(UploadRefused::Mismatch));
        assert_eq!(
            check("image/png", b"<script>alert(1)</script>"),
            Err(UploadRefused::Mismatch)
        );
        assert_eq!(check("text/html", PNG), Err(UploadRefused::UnsupportedType));
        assert_eq!(
            check("image/svg+xml", PNG),
            Err(UploadRefused::UnsupportedType)
        );
        assert_eq!(check("image/png", b""), Err(UploadRefused::Empty));
        let big = [PNG, &vec![0u8; MAX_UPLOAD_BYTES][..]].concat();
        assert_eq!(check("image/png", &big), Err(UploadRefused::TooLarge));
    }

    #[test]
    fn a_pdf_is_a_document_and_a_picture_an_image() {
        assert_eq!(FileKind::Pdf.media_kind(), "document");
        assert_eq!(FileKind::Png.media_kind(), "image");
    }
}
