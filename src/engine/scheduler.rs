//! The claim loop: one per process. It claims due conversations in batches and
//! spawns a task per turn, up to the in-flight limit. Wake-ups (PostgreSQL NOTIFY
//! of new inbox rows) reach this loop only, never a crowd of sleeping workers; a
//! wake for a conversation already running here marks it to be claimed again when
//! its turn ends. Leases of running turns are renewed together, in one statement.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use super::{Engine, TurnReport};
use crate::notify::{Notifier, Wake};

/// Margin past a wait (a retry, a burst going quiet) before claiming, so the
/// database clock agrees it ended.
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
    // A full claim looks at every pending conversation; a targeted one only at
    // those woken since (a few index lookups).
    let mut full = true;
    let mut targeted: HashSet<Uuid> = HashSet::new();
    // When to look again: bursts going quiet, retries coming up (`None`: all).
    let mut deadlines: BinaryHeap<Reverse<(Instant, Option<Uuid>)>> = BinaryHeap::new();
    let mut next_poll = Instant::now() + settings.poll;
    let renew_every = (settings.lease / 3).max(Duration::from_millis(100));
    let mut renew = tokio::time::interval_at(Instant::now() + renew_every, renew_every);
    let later = |deadlines: &mut BinaryHeap<_>, after: Duration, id: Option<Uuid>| {
        deadlines.push(Reverse((Instant::now() + after + GATHER_SLACK, id)));
    };

    loop {
        if (full || !targeted.is_empty()) && running.len() < settings.turns_in_flight {
            let only: Option<Vec<Uuid>> = (!full).then(|| targeted.drain().collect());
            if full {
                targeted.clear();
                next_poll = Instant::now() + settings.poll;
            }
            full = false;
            let room = settings.turns_in_flight - running.len();
            let exclude: Vec<Uuid> = running.keys().copied().collect();
            match engine.claim(room, &exclude, only.as_deref()).await {
                Ok(claimed) => {
                    // A full batch suggests more is due.
                    full = claimed.len() == room;
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
            .map_or(next_poll, |Reverse((at, _))| (*at).min(next_poll));
        tokio::select! {
            biased;
            _ = cancel.cancelled() => break,
            Some(report) = done_rx.recv() => {
                let id = report.conversation_id;
                let woken = running.remove(&id).is_some_and(|r| r.woken);
                if woken || report.more {
                    targeted.insert(id);
                }
                if let Some(delay) = report.retry_in.filter(|d| !d.is_zero()) {
                    later(&mut deadlines, delay, Some(id));
                }
                // A slot freed up: anything left waiting for room can go now.
                if running.len() + 1 == settings.turns_in_flight {
                    full = true;
                }
            }
            wake = wakes.recv() => match wake {
                Ok(Wake::Inbox(id)) if id.is_nil() => full = true,
                Ok(Wake::Inbox(id)) => match running.get_mut(&id) {
                    Some(turn) => turn.woken = true,
                    None => {
                        targeted.insert(id);
                    }
                },
                Ok(Wake::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => full = true,
                Ok(_) => {}
                Err(broadcast::error::RecvError::Closed) => {
                    // No more notifications: polling alone keeps things moving.
                    wakes = notifier.subscribe();
                }
            },
            _ = renew.tick() => {
                if !running.is_empty() {
                    let ids: Vec<Uuid> = running.keys().copied().collect();
                    if let Err(err) = super::claim::renew_leases(&engine.pool, engine.owner, &ids, settings.lease).await {
                        tracing::warn!(%err, "renewing leases failed; they may expire and be taken over");
                    }
                }
            }
            _ = tokio::time::sleep_until(wake_at) => {
                let now = Instant::now();
                while let Some(Reverse((at, id))) = deadlines.peek().copied() {
                    if at > now {
                        break;
                    }
                    deadlines.pop();
                    match id {
                        Some(id) if !running.contains_key(&id) => {
                            targeted.insert(id);
                        }
                        Some(_) => {}
                        None => full = true,
                    }
                }
                if now >= next_poll {
                    full = true;
                }
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
