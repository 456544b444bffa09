//! The claim loop: one per process. It claims due conversations in batches and
//! spawns a task per turn, up to the in-flight limit. Wake-ups (PostgreSQL NOTIFY
//! of new inbox rows) reach this loop only, never a crowd of sleeping workers; a
//! wake for a conversation already running here marks it to be claimed again when
//! its turn ends. Leases of running turns are renewed together, in one statement.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use super::{Engine, TurnReport};
use crate::conversations;
use crate::notify::{Notifier, Wake};

/// Margin past a gather window before claiming, so the database clock agrees it ended.
const GATHER_SLACK: Duration = Duration::from_millis(25);

/// A running turn: whether new work arrived for its conversation meanwhile.
struct Running {
    woken: bool,
}

pub async fn run(engine: Arc<Engine>, notifier: Notifier, cancel: CancellationToken) {
    let settings = engine.settings.clone();
    let mut wakes = notifier.subscribe();
    let tracker = TaskTracker::new();
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<TurnReport>();
    let mut running: HashMap<Uuid, Running> = HashMap::new();
    // Times at which a claim is due: gather windows ending, retries coming up.
    let mut deadlines: BinaryHeap<Reverse<Instant>> = BinaryHeap::new();
    let mut claim_now = true;
    let mut next_poll = Instant::now() + settings.poll;
    let renew_every = (settings.lease / 3).max(Duration::from_millis(100));
    let mut renew = tokio::time::interval_at(Instant::now() + renew_every, renew_every);

    loop {
        if claim_now && running.len() < settings.turns_in_flight {
            claim_now = false;
            next_poll = Instant::now() + settings.poll;
            let room = settings.turns_in_flight - running.len();
            let exclude: Vec<Uuid> = running.keys().copied().collect();
            match engine.claim(room, &exclude).await {
                Ok(claimed) => {
                    // A full batch suggests more is due.
                    claim_now = claimed.len() == room;
                    for snapshot in claimed {
                        running.insert(snapshot.conversation.id, Running { woken: false });
                        let engine = engine.clone();
                        let done = done_tx.clone();
                        tracker.spawn(async move {
                            let report = engine.run_turn(snapshot).await;
                            let _ = done.send(report);
                        });
                    }
                }
                Err(err) => {
                    tracing::error!(%err, "claiming turns failed; retrying at the next poll")
                }
            }
        }
        let wake_at = deadlines
            .peek()
            .map_or(next_poll, |Reverse(at)| (*at).min(next_poll));
        tokio::select! {
            biased;
            _ = cancel.cancelled() => break,
            Some(report) = done_rx.recv() => {
                let woken = running.remove(&report.conversation_id).is_some_and(|r| r.woken);
                if woken || report.more {
                    claim_now = true;
                    if !settings.gather.is_zero() {
                        // What woke it may still be inside its gather window.
                        deadlines.push(Reverse(Instant::now() + settings.gather + GATHER_SLACK));
                    }
                }
                if let Some(delay) = report.retry_in.filter(|d| !d.is_zero()) {
                    deadlines.push(Reverse(Instant::now() + delay + GATHER_SLACK));
                }
                // A slot freed up: anything left waiting for room can go now.
                if running.len() + 1 == settings.turns_in_flight {
                    claim_now = true;
                }
            }
            wake = wakes.recv() => match wake {
                Ok(Wake::Inbox(id)) => match running.get_mut(&id) {
                    Some(turn) => turn.woken = true,
                    None if settings.gather.is_zero() => claim_now = true,
                    None => deadlines.push(Reverse(Instant::now() + settings.gather + GATHER_SLACK)),
                },
                Ok(Wake::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => claim_now = true,
                Ok(_) => {}
                Err(broadcast::error::RecvError::Closed) => {
                    // No more notifications: polling alone keeps things moving.
                    wakes = notifier.subscribe();
                }
            },
            _ = renew.tick() => {
                if !running.is_empty() {
                    let ids: Vec<Uuid> = running.keys().copied().collect();
                    if let Err(err) = conversations::renew_leases(&engine.pool, engine.owner, &ids, settings.lease).await {
                        tracing::warn!(%err, "renewing leases failed; they may expire and be taken over");
                    }
                }
            }
            _ = tokio::time::sleep_until(wake_at) => {
                let now = Instant::now();
                while deadlines.peek().is_some_and(|Reverse(at)| *at <= now) {
                    deadlines.pop();
                }
                claim_now = true;
            }
        }
    }

    tracker.close();
    if !tracker.is_empty() {
        tracing::info!(turns = running.len(), "finishing in-flight turns");
    }
    if tokio::time::timeout(settings.shutdown_grace, tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            "grace period over; abandoning unfinished turns (their leases expire and they are retried)"
        );
    }
}
