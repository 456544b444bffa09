//! Small talk, off-topic questions and abuse, answered without a proposer (the
//! guarded chatbot's classifier): a short friendly answer, a brief redirect to
//! the shop, or a calm limit; repeated abuse hands the conversation to a person.

use super::{Decision, TurnInput};
use crate::audit::{Actor, Entry, Kind};
use crate::outbox::Author;
use crate::shop::core::classify::MessageClass;
use crate::shop::memo::{ABUSE_BEFORE_PERSON, ShopMemo};
use crate::shop::messages;

pub fn apply(
    input: &TurnInput<'_>,
    class: MessageClass,
    mut memo: ShopMemo,
    decision: &mut Decision,
) {
    decision.audit.push(
        Entry::new(Actor::Backend, Kind::MessageClassified)
            .reason(class.as_str())
            .detail(serde_json::json!({"class": class})),
    );
    let bot = &input.bot.name;
    match class {
        MessageClass::Shop => {}
        MessageClass::Social => decision.say(Author::Bot, messages::social(bot)),
        MessageClass::OffTopic => decision.say(Author::Bot, messages::off_topic(bot)),
        MessageClass::Abusive => {
            memo.abuse += 1;
            if memo.abuse >= ABUSE_BEFORE_PERSON {
                memo.abuse = 0;
                let (mut takeover, rows) = crate::handoff::to_person(
                    &input.snapshot.conversation,
                    decision.update.state,
                    Actor::Backend,
                    "repeated abuse",
                );
                takeover.draft = memo.stored();
                decision.update = takeover;
                decision.audit.extend(rows);
                decision.say(Author::System, messages::ABUSE_HANDOFF);
                return;
            }
            decision.say(Author::Bot, messages::ABUSE_LIMIT);
        }
    }
    decision.update.draft = memo.stored();
}
