//! `always-look` and `always-reveal`: the top card of the player's library kept looked at, or revealed to both,
//! whenever it changes (a draw, a shuffle, a card put on top). Each new top card costs one peek (the opponent
//! strips its lock), and a reveal one more message; the opponent's log tells each.

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Intent;
use fairdeck_shared::table::{Knowledge, ZoneId};
use fairdeck_shared::wire::{Action, PeekPurpose};

use super::frontend::Output;
use super::state::SessionCore;
use crate::command::{TopWatch, table};

impl<G: Group> SessionCore<G> {
    /// Starts (or, with `None`, stops) watching the top card, and says so.
    pub(super) fn set_top_watch(&mut self, watch: Option<TopWatch>) {
        self.top_watch = watch;
        self.show(Output::TopWatch(watch));
        if watch.is_some() {
            self.watch_top();
        }
    }

    /// Once nothing is under way, looks at (or reveals) the top card if it is not yet known as the watch wants.
    pub(super) fn watch_top(&mut self) {
        let Some((action, line)) = self.top_watch_due() else { return };
        // A refusal (shown) stops the watch rather than repeating it on every turn of the loop.
        if !self.intent(Intent::Act(action), line) {
            self.set_top_watch(None);
        }
    }

    /// What the watch has to do now, with the command line it stands for. Nothing while a search, scry or
    /// surveil is open (the player is rearranging those cards) or while an exchange is under way.
    pub(super) fn top_watch_due(&self) -> Option<(Action, &'static str)> {
        let watch = self.top_watch?;
        let busy = self.engine.is_busy() || self.browsing.is_some() || self.engine.halted().is_some();
        if busy || !self.engine.is_ready() || self.engine.is_ended() {
            return None;
        }
        let seat = self.engine.seat();
        let &top = self.engine.table().zone(ZoneId::library(seat)).first()?;
        let known = self.engine.table().card(top)?.known_to;
        let line = match watch {
            TopWatch::Look => table::ALWAYS_LOOK.name,
            TopWatch::Reveal => table::ALWAYS_REVEAL.name,
        };
        if !known.knows(seat) {
            // The reveal, if any, follows once the peek is answered: nobody shows a card it has not seen.
            Some((Action::Peek { count: 1, purpose: PeekPurpose::Look }, line))
        } else if watch == TopWatch::Reveal && known != Knowledge::BOTH {
            Some((Action::Reveal { cards: vec![top], to: None }, line))
        } else {
            None
        }
    }
}
