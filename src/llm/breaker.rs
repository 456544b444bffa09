//! A circuit breaker per bot: after a run of failed calls the bot runs on its
//! rules for a cooldown instead of waiting on a failing server every turn.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uuid::Uuid;

#[derive(Debug, Default)]
struct State {
    failures: u32,
    open_until: Option<Instant>,
}

pub struct Breaker {
    failures: u32,
    cooldown: Duration,
    bots: Mutex<HashMap<Uuid, State>>,
}

impl Breaker {
    pub fn new(failures: u32, cooldown: Duration) -> Self {
        Breaker {
            failures,
            cooldown,
            bots: Mutex::new(HashMap::new()),
        }
    }

    pub fn allows(&self, bot_id: Uuid) -> bool {
        let bots = self.bots.lock().expect("breaker lock");
        bots.get(&bot_id)
            .and_then(|b| b.open_until)
            .is_none_or(|until| Instant::now() >= until)
    }

    pub fn record(&self, bot_id: Uuid, success: bool) {
        let mut bots = self.bots.lock().expect("breaker lock");
        let state = bots.entry(bot_id).or_default();
        if success {
            *state = State::default();
            return;
        }
        state.failures += 1;
        if state.failures >= self.failures {
            if state.open_until.is_none_or(|until| Instant::now() >= until) {
                tracing::warn!(%bot_id, cooldown = ?self.cooldown, "LLM circuit open: using the rules proposer");
            }
            state.open_until = Some(Instant::now() + self.cooldown);
        }
    }
}
