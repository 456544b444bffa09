//! Group commit for webhooks. Concurrent requests hand their message to a few
//! committer tasks; each takes whatever is waiting (never waiting for more) and
//! stores it with one statement and one commit, then answers every request. A
//! request still gets its 2xx only after its own row is committed; under load, many
//! requests share one round trip and one WAL flush. Redis, when configured, drops
//! known duplicates before they reach PostgreSQL.

use std::sync::Arc;
use std::time::Duration;

use sqlx::{PgConnection, PgPool};
use tokio::sync::{Mutex, mpsc, oneshot};
use uuid::Uuid;

use crate::bots::Bot;
use crate::cache::Redis;
use crate::inbox::{self, Inbound, Ingested};

/// Most messages one commit takes.
const MAX_BATCH: usize = 64;
/// Committers working at once: while one waits on its commit, another gathers.
const COMMITTERS: usize = 2;
/// Longest a request waits for its commit before it is answered "retry later": with
/// the database down, a platform should hear so promptly, not hang. (If the commit
/// lands after all, the platform's retry is recognized as a duplicate.)
const COMMIT_WAIT: Duration = Duration::from_millis(1500);

/// Why a message could not be stored.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("the database did not commit in time")]
    Unavailable,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

struct Job {
    bot_id: Uuid,
    inbound: Inbound,
    done: oneshot::Sender<sqlx::Result<Ingested>>,
}

#[derive(Clone)]
pub struct IngestQueue {
    jobs: mpsc::Sender<Job>,
    redis: Option<Redis>,
}

impl IngestQueue {
    /// Starts the committers; they stop when every handle is dropped.
    pub fn start(pool: PgPool, redis: Option<Redis>) -> IngestQueue {
        let (jobs, queue) = mpsc::channel::<Job>(MAX_BATCH * COMMITTERS * 4);
        let queue = Arc::new(Mutex::new(queue));
        for _ in 0..COMMITTERS {
            tokio::spawn(commit_batches(pool.clone(), queue.clone()));
        }
        IngestQueue { jobs, redis }
    }

    /// Stores one message; resolves once it is committed (or known).
    pub async fn ingest(&self, bot: &Bot, inbound: Inbound) -> Result<Ingested, IngestError> {
        if let Some(redis) = &self.redis
            && let Some(inbox_id) = redis.seen(bot.id, &inbound.external_id).await
        {
            return Ok(Ingested::Duplicate { inbox_id });
        }
        let external_id = inbound.external_id.clone();
        let (done, answer) = oneshot::channel();
        let job = Job {
            bot_id: bot.id,
            inbound,
            done,
        };
        let committed = tokio::time::timeout(COMMIT_WAIT, async {
            self.jobs
                .send(job)
                .await
                .map_err(|_| sqlx::Error::PoolClosed)?;
            answer.await.map_err(|_| sqlx::Error::PoolClosed)?
        })
        .await;
        let ingested = committed.map_err(|_| IngestError::Unavailable)??;
        if let Some(redis) = &self.redis {
            // Written only after the commit: a retry of a failed commit must not
            // look like a duplicate.
            redis
                .remember(bot.id, &external_id, ingested.inbox_id())
                .await;
        }
        Ok(ingested)
    }
}

/// A committer's own connection, outside the pool, set to reuse one generic plan:
/// planning the batch statement afresh (PostgreSQL keeps choosing custom plans
/// for its array inputs) costs more than running it.
async fn committer_connection(pool: &PgPool) -> sqlx::Result<PgConnection> {
    let mut conn = pool.acquire().await?.detach();
    sqlx::query("SET plan_cache_mode = force_generic_plan")
        .execute(&mut conn)
        .await?;
    Ok(conn)
}

async fn commit_batches(pool: PgPool, queue: Arc<Mutex<mpsc::Receiver<Job>>>) {
    let mut conn: Option<PgConnection> = None;
    loop {
        let mut batch = Vec::new();
        {
            let mut queue = queue.lock().await;
            match queue.recv().await {
                Some(job) => batch.push(job),
                None => return,
            }
            while batch.len() < MAX_BATCH {
                match queue.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
        }
        let items: Vec<(Uuid, &Inbound)> = batch.iter().map(|j| (j.bot_id, &j.inbound)).collect();
        let stored = match &mut conn {
            Some(conn) => inbox::ingest_many(conn, &items).await,
            None => match committer_connection(&pool).await {
                Ok(fresh) => inbox::ingest_many(conn.insert(fresh), &items).await,
                Err(err) => Err(err),
            },
        };
        if stored.is_err() {
            // The connection may be what failed: the next batch starts a new one.
            conn = None;
        }
        match stored {
            Ok(results) => {
                for (job, result) in batch.into_iter().zip(results) {
                    let _ = job.done.send(Ok(result));
                }
            }
            Err(err) => {
                // One failed statement must not fail its neighbours: store each alone.
                tracing::warn!(%err, size = batch.len(), "batched ingest failed; storing one by one");
                for job in batch {
                    let result = inbox::ingest_one(&pool, job.bot_id, &job.inbound).await;
                    let _ = job.done.send(result);
                }
            }
        }
    }
}
