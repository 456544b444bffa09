//! The turn engine. One claim loop per process takes due conversations in batches
//! (a lease each) and runs every turn as its own task, so hundreds of turns can
//! wait on an LLM at once; what bounds LLM calls is the LLM proposer's own limit.
//! A turn reads everything it needs in its claim, plans outside any transaction,
//! and commits its effects, audit, inbox marks and reply in one transaction
//! guarded by the conversation's version. A panic in one turn is caught, counted,
//! retried and finally parked, never taking the process down.

mod bots;
mod burst;
pub mod claim;
mod commit;
mod hold;
pub mod messages;
mod park;
mod profile;
mod scheduler;
mod silent;
mod takeovers;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use sqlx::PgPool;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

pub use bots::VersionedCache;
pub use burst::{Burst, Command, CommandError};
pub use claim::TurnSnapshot;
pub use profile::{Decision, ESCALATION_REQUESTED, Effects, Profile, Profiles, Turn, Written};

use self::bots::BotCache;
use self::claim::ClaimRequest;
use self::commit::CommitOutcome;
use crate::histograms::{Metric, observe};
use crate::inbox;
use crate::llm::CallLog;
use crate::notify::Notifier;
use crate::outbox;
use crate::progress::{NoProgress, Progress};
use crate::telemetry;

/// Tunables of the turn engine.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    pub lease: Duration,
    pub max_attempts: i32,
    pub retry_backoff: Duration,
    /// Longest a proposer may take before the turn falls back to a clarification.
    pub proposer_timeout: Duration,
    pub history_len: i64,
    /// How long a model-bound turn whose customer kept writing waits after the
    /// newest message before it is answered whole (zero: never). Turns the rules
    /// answer, and model turns nobody wrote behind, never wait.
    pub gather: Duration,
    /// Turns running at once in this process.
    pub turns_in_flight: usize,
    /// Fallback claim when no wake-up arrives.
    pub poll: Duration,
    /// How long in-flight turns get to finish on shutdown.
    pub shutdown_grace: Duration,
    /// Messages a conversation may send per minute before the excess is held.
    pub contact_messages_per_minute: u32,
    /// The public base URL, for links to a conversation in merchant notices.
    pub console_url: Option<String>,
}

/// Most customer messages one turn answers together.
pub const MAX_BURST: i64 = 5;
/// Re-plans allowed when the conversation changes while a proposal is computed.
const MAX_REPLANS: usize = 3;

/// How a turn's work ended, short of failing.
#[derive(Debug, Clone, Copy, PartialEq)]
enum TurnEnd {
    /// Committed (or nothing was left to do); `more` when events may still be due.
    Done { more: bool },
    /// Set aside until the customer's burst goes quiet.
    Gathered(chrono::DateTime<chrono::Utc>),
}

/// What one `run_once` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionOutcome {
    /// At least one conversation was claimed and its turn run.
    Worked,
    /// Nothing was due.
    EmptyQueue,
}

/// How a turn ended, for the claim loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnReport {
    pub conversation_id: Uuid,
    /// More events may be due right away (the burst did not take them all).
    pub more: bool,
    /// The head failed and waits this long before its next try.
    pub retry_in: Option<Duration>,
}

pub struct Engine {
    pool: PgPool,
    profiles: Profiles,
    settings: EngineSettings,
    /// This process's identity in leases.
    owner: Uuid,
    bots: BotCache,
    /// "Thinking" and "tools" signals to the customer's channel.
    progress: Arc<dyn Progress>,
}

impl Engine {
    pub fn new(pool: PgPool, profiles: Profiles, settings: EngineSettings) -> Self {
        Engine {
            bots: BotCache::new(pool.clone()),
            pool,
            profiles,
            settings,
            owner: Uuid::new_v4(),
            progress: Arc::new(NoProgress),
        }
    }

    /// Shows turn progress through `progress` (the server wires the channels).
    pub fn with_progress(mut self, progress: Arc<dyn Progress>) -> Self {
        self.progress = progress;
        self
    }

    /// Runs the claim loop until cancelled, then lets in-flight turns finish
    /// (within the grace period).
    pub async fn run(self: Arc<Self>, notifier: Notifier, cancel: CancellationToken) {
        scheduler::run(self, notifier, cancel).await
    }

    /// Claims what is due now (up to the in-flight limit) and runs those turns
    /// concurrently; for tests and tools, which drain in a loop instead of sleeping.
    pub async fn run_once(&self) -> anyhow::Result<ExecutionOutcome> {
        let claimed = self.claim(self.settings.turns_in_flight, &[], None).await?;
        if claimed.is_empty() {
            return Ok(ExecutionOutcome::EmptyQueue);
        }
        futures::future::join_all(claimed.into_iter().map(|s| self.run_turn(s))).await;
        Ok(ExecutionOutcome::Worked)
    }

    /// Queues what timers made due as inbox events (session timeouts, and each
    /// profile's own, such as payment deadlines); returns how many. Safe on every
    /// replica: each event has its own dedupe key.
    pub async fn sweep(&self) -> anyhow::Result<u64> {
        let mut queued = inbox::queue_session_timeouts(&self.pool).await?;
        queued += takeovers::release_idle(&self.pool, self.settings.console_url.as_deref()).await?;
        for profile in self.profiles.all() {
            queued += profile.sweep().await?;
        }
        // Files past their 24 hours are gone for good (their links already 404).
        crate::channels::files::prune(&self.pool).await?;
        Ok(queued)
    }

    /// Loops `run_once` until nothing is due; returns how many passes worked.
    pub async fn run_until_idle(&self) -> anyhow::Result<usize> {
        let mut passes = 0;
        while self.run_once().await? == ExecutionOutcome::Worked {
            passes += 1;
        }
        Ok(passes)
    }

    async fn claim(
        &self,
        limit: usize,
        exclude: &[Uuid],
        only: Option<&[Uuid]>,
    ) -> sqlx::Result<Vec<TurnSnapshot>> {
        claim::claim_turns(
            &self.pool,
            &ClaimRequest {
                owner: self.owner,
                lease: self.settings.lease,
                limit: limit as i64,
                exclude,
                only,
                history_len: self.settings.history_len,
                max_events: MAX_BURST,
            },
        )
        .await
    }

    /// Runs one claimed turn to its end: committed, deferred after a failure, or
    /// parked after too many. Never panics and never returns an error: whatever
    /// happens is recorded on the event.
    async fn run_turn(&self, snapshot: TurnSnapshot) -> TurnReport {
        let _in_flight = telemetry::TURNS_IN_FLIGHT.enter();
        let conversation_id = snapshot.conversation.id;
        let head_id = snapshot.head_id;
        let attempt = snapshot.head_attempts;
        let mut report = TurnReport {
            conversation_id,
            more: false,
            retry_in: None,
        };
        if attempt > self.settings.max_attempts {
            if let Err(err) = park::park(
                &self.pool,
                self.owner,
                &snapshot,
                self.settings.console_url.as_deref(),
            )
            .await
            {
                tracing::error!(error = %format!("{err:#}"), inbox_id = head_id, "could not park the event");
            }
            report.more = true;
            return report;
        }
        // The turn's LLM calls, written by its commit, or by its deferral if it fails.
        let calls = CallLog::default();
        let outcome = AssertUnwindSafe(self.turn(snapshot, &calls))
            .catch_unwind()
            .await;
        let error = match outcome {
            Ok(Ok(TurnEnd::Done { more })) => {
                report.more = more;
                return report;
            }
            Ok(Ok(TurnEnd::Gathered(until))) => {
                let wait = (until - chrono::Utc::now()).to_std().unwrap_or_default();
                report.retry_in = Some(wait);
                report.more = wait.is_zero();
                return report;
            }
            Ok(Err(err)) => format!("{err:#}"),
            Err(panic) => format!("panic: {}", panic_message(&panic)),
        };
        tracing::error!(inbox_id = head_id, %conversation_id, attempt, %error, "turn failed; will retry");
        let delay = outbox::backoff(self.settings.retry_backoff, attempt - 1);
        if let Err(err) = self
            .defer(conversation_id, head_id, delay, &error, &calls)
            .await
        {
            // The lease expires on its own; the event is retried then.
            tracing::error!(error = %format!("{err:#}"), inbox_id = head_id, "could not defer the event");
        }
        report.retry_in = Some(delay);
        report.more = delay.is_zero();
        report
    }

    /// Plans and commits, planning again from a fresh snapshot when the
    /// conversation changed underneath. True when more events may be due.
    #[tracing::instrument(skip_all, fields(
        turn_id = %Uuid::new_v4(),
        conversation_id = %snapshot.conversation.id,
        inbox_id = snapshot.head_id,
    ))]
    async fn turn(&self, mut snapshot: TurnSnapshot, calls: &CallLog) -> anyhow::Result<TurnEnd> {
        let mut waited = snapshot.events.first().map(|head| {
            (chrono::Utc::now() - head.received_at)
                .to_std()
                .unwrap_or_default()
        });
        for _ in 0..MAX_REPLANS {
            let bot = self
                .bots
                .get(snapshot.conversation.bot_id, snapshot.config_version)
                .await?;
            if let Some(waited) = waited.take() {
                tracing::debug!(waited_ms = waited.as_millis() as u64, "turn starts");
                observe(
                    Metric::TurnQueueWait,
                    [bot.slug.as_str(), "started"],
                    waited,
                );
            }
            let burst = match Burst::take(&snapshot.events, snapshot.head_attempts) {
                Ok(burst) => burst,
                Err(CommandError::Empty) => {
                    // Nothing due any more (handled elsewhere, or waiting for a retry).
                    self.release(snapshot.conversation.id).await?;
                    return Ok(TurnEnd::Done { more: false });
                }
                // Unreadable: the turn fails, so the event is retried and then parked.
                Err(err) => return Err(err.into()),
            };
            let started = std::time::Instant::now();
            let conversation = &snapshot.conversation;
            let held = match burst.command {
                Command::Message(_) => hold::limit(
                    snapshot.recent_messages,
                    burst.ids.len(),
                    self.settings.contact_messages_per_minute,
                ),
                _ => None,
            };
            let decision = if conversation.human_override {
                silent::decide(conversation)
            } else if let Some(held) = held {
                held.decide(conversation, burst.ids.len())
            } else {
                let profile = self.profiles.get(bot.profile).ok_or_else(|| {
                    anyhow::anyhow!("no profile `{}` runs in this process", bot.profile.as_str())
                })?;
                let turn = Turn {
                    snapshot: &snapshot,
                    bot: &bot,
                    burst: &burst,
                    calls,
                    progress: self.progress.as_ref(),
                    proposer_timeout: self.settings.proposer_timeout,
                };
                profile.decide(&turn).await?
            };
            let slug = bot.slug.as_str();
            observe(
                Metric::TurnProposer,
                [slug, decision.kind],
                started.elapsed(),
            );
            if let Some(until) = self.still_writing(&snapshot, &burst, calls).await? {
                // The model read half a burst: its answer is dropped (nothing was
                // done yet) and the whole burst is answered once it goes quiet.
                telemetry::TURNS_GATHERED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.gather(snapshot.conversation.id, burst.head_id(), until, calls)
                    .await?;
                return Ok(TurnEnd::Gathered(until));
            }
            let started = std::time::Instant::now();
            let committed = commit::commit(
                &self.pool,
                self.owner,
                &snapshot,
                &bot,
                &burst,
                decision,
                self.settings.console_url.as_deref(),
                calls,
            )
            .await;
            let outcome = match &committed {
                Ok(CommitOutcome::Committed) => "committed",
                Ok(CommitOutcome::Conflict) => "conflict",
                Err(_) => "failed",
            };
            observe(Metric::TurnCommit, [slug, outcome], started.elapsed());
            match committed? {
                CommitOutcome::Committed => {
                    return Ok(TurnEnd::Done {
                        more: burst.ids.len() < snapshot.events.len()
                            || snapshot.events.len() as i64 >= MAX_BURST,
                    });
                }
                CommitOutcome::Conflict => {
                    tracing::debug!("conversation changed during the turn; planning again");
                    let id = snapshot.conversation.id;
                    match claim::snapshot(&self.pool, id, self.settings.history_len, MAX_BURST)
                        .await?
                    {
                        Some(fresh) => snapshot = fresh,
                        None => {
                            self.release(id).await?;
                            return Ok(TurnEnd::Done { more: false });
                        }
                    }
                }
            }
        }
        anyhow::bail!("the conversation kept changing during the turn")
    }

    /// When a model-bound turn should be set aside because its customer is still
    /// writing: the model was asked, the head has not waited before, and a message
    /// the turn did not take arrived behind it. Returns when the burst counts as
    /// quiet (`gather` after its newest message). At most one wait per head, so a
    /// burst costs at most two model calls and a customer who never stops typing
    /// is still answered.
    async fn still_writing(
        &self,
        snapshot: &TurnSnapshot,
        burst: &Burst,
        calls: &CallLog,
    ) -> sqlx::Result<Option<chrono::DateTime<chrono::Utc>>> {
        if self.settings.gather.is_zero()
            || snapshot.head_gathered
            || !matches!(burst.command, Command::Message(_))
            || !calls.asked_model()
        {
            return Ok(None);
        }
        // The burst's ids are in arrival order: the last is the newest it took.
        let last_taken = *burst.ids.last().expect("a burst has its head");
        let newest =
            inbox::newest_pending_message_after(&self.pool, snapshot.conversation.id, last_taken)
                .await?;
        let gather = chrono::Duration::from_std(self.settings.gather).unwrap_or_default();
        Ok(newest.map(|at| at + gather))
    }

    /// Sets the head aside until `until` and hands the lease back; the model
    /// calls made are recorded (they were paid for).
    async fn gather(
        &self,
        conversation_id: Uuid,
        inbox_id: i64,
        until: chrono::DateTime<chrono::Utc>,
        calls: &CallLog,
    ) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        inbox::gather(&mut tx, inbox_id, until).await?;
        claim::release_lease(&mut tx, conversation_id, self.owner).await?;
        let recorded = calls.write(&mut tx).await?;
        tx.commit().await?;
        calls.committed(recorded);
        Ok(())
    }

    async fn release(&self, conversation_id: Uuid) -> sqlx::Result<()> {
        let mut conn = self.pool.acquire().await?;
        claim::release_lease(&mut conn, conversation_id, self.owner).await
    }

    async fn defer(
        &self,
        conversation_id: Uuid,
        inbox_id: i64,
        delay: Duration,
        error: &str,
        calls: &CallLog,
    ) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        inbox::defer(&mut tx, inbox_id, delay, error).await?;
        claim::release_lease(&mut tx, conversation_id, self.owner).await?;
        // The calls were made (and paid for) even though the turn failed.
        let recorded = calls.write(&mut tx).await?;
        tx.commit().await?;
        calls.committed(recorded);
        Ok(())
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
