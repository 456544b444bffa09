//! The customer went quiet: a cart or checkout left open returns to IDLE, unless
//! they wrote again since the timeout was queued.

use super::{Decision, TurnInput};
use crate::audit::{Actor, Entry, Kind};
use crate::shop::core::{Cart, Event, Release, State, on_event};

pub fn apply(input: &TurnInput<'_>, before: State, decision: &mut Decision) {
    let conversation = &input.snapshot.conversation;
    let idle_for = chrono::Utc::now() - conversation.last_activity_at;
    let due = idle_for.num_seconds() >= i64::from(input.bot.session_timeout_secs);
    let no_release = Release {
        before: None,
        to_idle: false,
    };
    match on_event(before, Event::SessionTimeout, no_release) {
        Ok(to) if due => {
            decision.cart = Some(Cart::default());
            decision.audit.push(
                Entry::new(Actor::Backend, Kind::EventDetected)
                    .action(Event::SessionTimeout.as_str()),
            );
            decision.audit.extend(Entry::state_change(
                Actor::Backend,
                before,
                to,
                "session inactivity",
            ));
            decision.update.state = to.into();
        }
        _ => decision
            .audit
            .push(Entry::new(Actor::Backend, Kind::TimeoutSkipped).reason("no longer inactive")),
    }
}
