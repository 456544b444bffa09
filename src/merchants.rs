//! The `merchants` table: who owns bots and API keys.

use sqlx::PgExecutor;
use uuid::Uuid;

pub async fn create(db: impl PgExecutor<'_>, slug: &str, name: &str) -> sqlx::Result<Uuid> {
    sqlx::query_scalar(
        "INSERT INTO merchants (slug, name) VALUES ($1, $2)
         ON CONFLICT (slug) DO UPDATE SET name = merchants.name RETURNING id",
    )
    .bind(slug)
    .bind(name)
    .fetch_one(db)
    .await
}

pub async fn by_slug(db: impl PgExecutor<'_>, slug: &str) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar("SELECT id FROM merchants WHERE slug = $1")
        .bind(slug)
        .fetch_optional(db)
        .await
}
