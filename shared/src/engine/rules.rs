//! Table rules: whether an action fits the table now, and its effect once it is in the game's order.

use std::collections::{BTreeMap, BTreeSet};

use super::Engine;
use super::api::{AlertKind, Event, GameEnd, Moved, Place};
use super::fault::{ActionError, Fault, check_text};
use super::round::RandomKind;
use super::state::Form;
use super::undo::LastAction;
use crate::crypto::{CardInstance, Group, MAX_NAME_LEN};
use crate::ids::Seat;
use crate::seats::SeatMap;
use crate::table::{
    Card, CardId, GUEST_CARD_OFFSET, Knowledge, LIFE, Placement, Position, PowerToughness, ZoneId, ZoneKind,
};
use crate::wire::{self, Action, ArrowTarget, KeyRef, PeekPurpose};

impl<G: Group> Engine<G> {
    /// Ids of `owner`'s cards start above this number.
    pub(super) fn id_base(owner: Seat) -> u32 {
        owner.index() as u32 * GUEST_CARD_OFFSET
    }

    /// The id a new card of `owner`'s gets: one above its highest.
    pub(super) fn next_card_id(&self, owner: Seat) -> CardId {
        let highest = self.game.table.cards().filter(|c| c.owner == owner).map(|c| c.id.0).max();
        CardId(highest.unwrap_or(Self::id_base(owner)) + 1)
    }

    /// Whether a library may be shuffled by a public permutation: nobody knows any of its
    /// cards, every layer is current, and it has one back (the actor would place the backs).
    pub(super) fn is_clean_for_permutation(&self, library: Seat) -> bool {
        !self.game.table.is_dirty(library)
            && self.game.back_groups(library).len() < 2
            && self.game.table.zone(ZoneId::library(library)).iter().all(|id| {
                Seat::BOTH.into_iter().all(|holder| {
                    let current =
                        self.game.current_keys.get(&(holder, library)).map(|&epoch| KeyRef { holder, library, epoch });
                    current.is_some() && self.game.planned[id][holder] == current
                })
            })
    }

    /// Checks an action by `actor` against the table as it is now.
    /// A card of a hand being picked from at random stays in the hand until the pick settles:
    /// whoever learns the outcome first could otherwise move the picked card away.
    pub(super) fn check_not_pinned(&self, card: CardId) -> Result<(), ActionError> {
        let pinned = self.game.randoms.values().any(|round| match round.kind() {
            RandomKind::ShowRandom(hand) => hand.contains(&card),
            _ => false,
        });
        if pinned {
            return Err(ActionError::stale(format!("card {card} is in a hand being picked from at random")));
        }
        Ok(())
    }

    /// A library holds at most `wire::max_library_len` cards (tokens moved in included), so that
    /// an honest shuffle step of it always fits in a message, whoever makes it.
    pub(super) fn check_library_room(&self, library: Seat, adding: usize) -> Result<(), ActionError> {
        let max = wire::max_library_len::<G>();
        if self.game.table.zone(ZoneId::library(library)).len() + adding > max {
            return Err(ActionError::forbidden(format!("a library holds at most {max} cards with this suite")));
        }
        Ok(())
    }

    /// Checks an action by `actor` against the table as it is now: what passes is the only thing
    /// `apply_action` takes.
    pub(super) fn check_action(&self, actor: Seat, action: &Action) -> Result<CheckedAction, ActionError> {
        self.check_rules(actor, action)?;
        Ok(CheckedAction { actor, action: action.clone() })
    }

    fn check_rules(&self, actor: Seat, action: &Action) -> Result<(), ActionError> {
        if self.game.phase.is_conceded() {
            return Err(ActionError::stale("the game is over"));
        }
        let own_library = ZoneId::library(actor);
        match action {
            Action::Draw { count }
            | Action::Peek { count, purpose: PeekPurpose::Look | PeekPurpose::Scry | PeekPurpose::Surveil } => {
                self.check_count_in(own_library, *count)
            }
            Action::Peek { count, purpose: PeekPurpose::Search } => {
                let len = self.game.table.zone(own_library).len();
                if *count as usize != len {
                    return Err(ActionError::stale(format!("a search looks at the whole library, {len} cards")));
                }
                self.check_count_in(own_library, *count)
            }
            Action::TakeFromLibrary { count } => self.check_count_in(ZoneId::library(actor.opponent()), *count),
            Action::Move { card, to, position, .. } => self.check_move(actor, *card, *to, *position),
            Action::Rearrange { card, index } => self.check_rearrange(actor, *card, *index),
            Action::Shuffle { permutation } => self.check_shuffle(actor, permutation.as_deref()),
            Action::Reveal { cards, to } => self.check_reveal(actor, cards, *to),
            Action::ShowRandom => {
                if self.game.table.zone(ZoneId::hand(actor)).is_empty() {
                    return Err(ActionError::stale("the hand is empty"));
                }
                Ok(())
            }
            Action::Tap { card, .. } => self.check_in_play(*card),
            Action::SetCardValue { card, key, .. } => {
                check_text("counter", key).map_err(|f| ActionError::forbidden(f.detail))?;
                self.check_in_play(*card)
            }
            Action::SetPlayerValue { key, .. } => {
                check_text("value", key).map_err(|f| ActionError::forbidden(f.detail))
            }
            Action::SetPhase { phase } => check_text("phase", phase).map_err(|f| ActionError::forbidden(f.detail)),
            Action::NextTurn | Action::Roll { .. } | Action::Flip => Ok(()),
            Action::Mulligan { .. } => {
                if self.game.library_locked(actor) {
                    return Err(ActionError::stale("the library is already being shuffled"));
                }
                self.check_library_room(actor, self.game.table.zone(ZoneId::hand(actor)).len())?;
                self.game.table.zone(ZoneId::hand(actor)).iter().try_for_each(|id| self.check_not_pinned(*id))
            }
            Action::UntapAll | Action::Concede => Ok(()),
            Action::Attach { card, to } => self.check_attach(*card, *to),
            Action::Arrow { from, to } => {
                self.check_in_play(*from)?;
                match to {
                    ArrowTarget::Card(card) => self.check_in_play(*card),
                    ArrowTarget::Player(_) => Ok(()),
                }
            }
            Action::PlayOrDraw { .. } => self.check_play_or_draw(actor),
            Action::AddCard { card, to, .. } => self.check_token(actor, card, *to),
            Action::Undo { action } => self.check_undo(actor, *action),
        }
    }

    /// `count` cards from the top of `zone`, which must hold them and not be being shuffled.
    fn check_count_in(&self, zone: ZoneId, count: u32) -> Result<(), ActionError> {
        if count == 0 {
            return Err(ActionError::forbidden("a count of zero"));
        }
        if self.game.library_locked(zone.owner) && zone.kind == ZoneKind::Library {
            return Err(ActionError::stale(format!("{zone} is being shuffled")));
        }
        self.game.table.top(zone, count).map(|_| ()).map_err(|e| ActionError::stale(e.to_string()))
    }

    fn check_in_play(&self, card: CardId) -> Result<(), ActionError> {
        let card = self.game.card(card)?;
        if card.zone.kind != ZoneKind::Play {
            return Err(ActionError::stale(format!("card {} is not in play", card.id)));
        }
        Ok(())
    }

    fn check_move(&self, actor: Seat, card: CardId, to: ZoneId, position: Position) -> Result<(), ActionError> {
        self.check_not_pinned(card)?;
        let from = self.game.card(card)?.zone;
        // The commander returns to the command zone by its owner's choice only.
        if to.kind == ZoneKind::Command && to.owner != actor {
            return Err(ActionError::forbidden(format!("a move into the opponent's command zone ({to})")));
        }
        if to.kind == ZoneKind::Library && from != to {
            self.check_library_room(to.owner, 1)?;
        }
        for zone in [from, to] {
            if zone.kind == ZoneKind::Library {
                if zone.owner != actor {
                    return Err(ActionError::forbidden(format!("a move in the opponent's library ({zone})")));
                }
                if self.game.library_locked(zone.owner) {
                    return Err(ActionError::stale(format!("{zone} is being shuffled")));
                }
            }
        }
        self.game.table.check_move(card, to, position).map_err(|e| match e {
            // A zone may have shrunk since the move was decided.
            crate::table::TableError::BadIndex { .. } => ActionError::stale(e.to_string()),
            other => ActionError::forbidden(other.to_string()),
        })
    }

    fn check_rearrange(&self, actor: Seat, card: CardId, index: u32) -> Result<(), ActionError> {
        let zone = self.game.card(card)?.zone;
        if zone.kind == ZoneKind::Library && zone.owner != actor {
            return Err(ActionError::forbidden(format!("a move in the opponent's library ({zone})")));
        }
        if zone.kind == ZoneKind::Library && self.game.library_locked(zone.owner) {
            return Err(ActionError::stale(format!("{zone} is being shuffled")));
        }
        let len = self.game.table.zone(zone).len();
        if index as usize >= len {
            return Err(ActionError::stale(format!("{zone} has {len} cards")));
        }
        Ok(())
    }

    fn check_shuffle(&self, actor: Seat, permutation: Option<&[u32]>) -> Result<(), ActionError> {
        if self.game.library_locked(actor) {
            return Err(ActionError::stale("the library is already being shuffled"));
        }
        let Some(permutation) = permutation else { return Ok(()) };
        let cards = self.game.table.zone(ZoneId::library(actor));
        if !self.is_clean_for_permutation(actor) {
            let known: Vec<String> = cards
                .iter()
                .filter(|id| self.game.table.card(**id).is_some_and(|c| c.known_to.is_anyone()))
                .map(|id| id.to_string())
                .collect();
            let why = if !known.is_empty() {
                format!("whose cards {} are known", known.join(", "))
            } else if self.game.back_groups(actor).len() > 1 {
                "of several backs, whose places it would choose".to_string()
            } else {
                "whose cards are under old keys".to_string()
            };
            return Err(ActionError::forbidden(format!("a reorder-only shuffle of a library {why}: stacking")));
        }
        if permutation.len() != cards.len() {
            return Err(ActionError::stale("the library changed size"));
        }
        let mut sorted = permutation.to_vec();
        sorted.sort_unstable();
        if !sorted.iter().copied().eq(0..cards.len() as u32) {
            return Err(ActionError::forbidden("not a permutation of the library"));
        }
        Ok(())
    }

    fn check_reveal(&self, actor: Seat, cards: &[CardId], to: Option<Seat>) -> Result<(), ActionError> {
        if cards.is_empty() {
            return Err(ActionError::forbidden("nothing to reveal"));
        }
        if cards.iter().collect::<BTreeSet<_>>().len() != cards.len() {
            return Err(ActionError::forbidden("the same card twice in one reveal"));
        }
        if to == Some(actor) {
            return Err(ActionError::forbidden("a reveal to oneself"));
        }
        for id in cards {
            let card = self.game.card(*id)?;
            if card.zone.kind == ZoneKind::Library && self.game.library_locked(card.zone.owner) {
                return Err(ActionError::stale(format!("{} is being shuffled", card.zone)));
            }
            if !card.known_to.knows(actor) {
                return Err(ActionError::forbidden(format!("a reveal of card {id}, which the revealer does not know")));
            }
        }
        Ok(())
    }

    fn check_attach(&self, card: CardId, to: Option<CardId>) -> Result<(), ActionError> {
        self.check_in_play(card)?;
        let Some(host) = to else { return Ok(()) };
        if host == card {
            return Err(ActionError::forbidden(format!("card {card} attached to itself")));
        }
        self.check_in_play(host)?;
        // One level only, as on a real table: no chains, so no cycles.
        if self.game.table.cards().any(|c| c.attached_to == Some(card)) {
            return Err(ActionError::stale(format!("cards are attached to {card}")));
        }
        if let Some(under) = self.game.card(host)?.attached_to {
            return Err(ActionError::stale(format!("card {host} is attached to {under}")));
        }
        Ok(())
    }

    fn check_play_or_draw(&self, actor: Seat) -> Result<(), ActionError> {
        if self.game.table.turn != 0 {
            return Err(ActionError::stale("the turns have begun"));
        }
        match self.game.chooser {
            None => Err(ActionError::stale("who chooses to play or draw is not decided yet")),
            Some(chooser) if chooser != actor => {
                Err(ActionError::forbidden("the other player chooses to play or draw"))
            }
            Some(_) => Ok(()),
        }
    }

    fn check_token(&self, actor: Seat, card: &CardInstance, to: ZoneId) -> Result<(), ActionError> {
        if card.owner != actor {
            return Err(ActionError::forbidden("a token must belong to its creator"));
        }
        if card.name.is_empty() || card.name.len() > MAX_NAME_LEN {
            return Err(ActionError::forbidden("a token needs a name of at most 200 bytes"));
        }
        if to.kind == ZoneKind::Library || (to.kind.owners_only() && to.owner != actor) {
            return Err(ActionError::forbidden("tokens are created outside libraries"));
        }
        if self.game.tokens.contains_key(&card.point::<G>(&self.game.game_id())) {
            return Err(ActionError::forbidden("this token exists already"));
        }
        if self.game.tokens.values().filter(|token| token.owner == actor).count() >= wire::MAX_TOKENS {
            return Err(ActionError::forbidden(format!("at most {} tokens per player", wire::MAX_TOKENS)));
        }
        // Ids are numbered per owner below the next owner's range: a full range ends tokens.
        if self.next_card_id(actor).0 > Self::id_base(actor) + GUEST_CARD_OFFSET - 1 {
            return Err(ActionError::forbidden("no card ids left for more tokens"));
        }
        Ok(())
    }

    /// Sets each player's starting life as a game's play begins: the same rule on both tables, so no message.
    /// 40 for a player with a commander (Commander's rule), 20 for any other.
    pub(super) fn set_starting_life(&mut self) {
        for seat in Seat::BOTH {
            let commander = !self.game.table.zone(ZoneId::new(seat, ZoneKind::Command)).is_empty();
            self.game.table.player_mut(seat).values.insert(LIFE.into(), if commander { 40 } else { 20 });
        }
    }

    /// Applies a checked action to the table, in the game's order, and says what it sets off
    /// (the coordinator starts it: `Engine::apply`).
    pub(super) fn apply_action(&mut self, checked: CheckedAction) -> Applied {
        let CheckedAction { actor, action } = checked;
        let number = self.game.actions_applied;
        self.game.actions_applied += 1;
        let restore = self.restore_for(actor, &action);
        self.lapse_undo_request(&action);
        self.alert_changed_in_place(actor, &action);
        let mut moved = Vec::new();
        let effect = match &action {
            Action::Draw { count } => {
                let cards = self.move_top_to_hand(ZoneId::library(actor), *count, actor, &mut moved);
                Effect::Unlock { cards, audience: Knowledge::only(actor) }
            }
            Action::Peek { count, .. } => {
                let cards = as_checked(self.game.table.top(ZoneId::library(actor), *count).ok());
                Effect::Unlock { cards, audience: Knowledge::only(actor) }
            }
            Action::TakeFromLibrary { count } => {
                let cards = self.move_top_to_hand(ZoneId::library(actor.opponent()), *count, actor, &mut moved);
                if actor != self.seat {
                    let detail = format!("opponent took {count} card(s) from your library");
                    self.raise(Fault::new(AlertKind::LookedAtYourCards, detail), None);
                }
                Effect::Unlock { cards, audience: Knowledge::only(actor) }
            }
            Action::Move { card, to, position, placement } => {
                moved.push(self.apply_move(actor, *card, *to, *position, *placement));
                let audience = match to.kind {
                    ZoneKind::Graveyard | ZoneKind::Exile | ZoneKind::Command => Knowledge::BOTH,
                    ZoneKind::Play if !placement.face_down => Knowledge::BOTH,
                    ZoneKind::Hand | ZoneKind::Sideboard => Knowledge::only(to.owner),
                    ZoneKind::Play | ZoneKind::Library => Knowledge::NOBODY,
                };
                Effect::Unlock { cards: vec![*card], audience }
            }
            Action::Shuffle { permutation: Some(permutation) } => {
                as_checked(self.game.table.permute(ZoneId::library(actor), permutation).ok());
                self.out.emit(Event::Shuffled { library: actor });
                Effect::None
            }
            Action::Shuffle { permutation: None } => Effect::Shuffle,
            Action::Reveal { cards, to } => {
                let audience = to.map_or(Knowledge::BOTH, Knowledge::only);
                Effect::Unlock { cards: cards.clone(), audience }
            }
            Action::ShowRandom => {
                let hand = self.game.table.zone(ZoneId::hand(actor)).to_vec();
                Effect::Random(RandomKind::ShowRandom(hand))
            }
            Action::Roll { dice } => Effect::Random(RandomKind::Roll(*dice)),
            Action::Flip => Effect::Random(RandomKind::Flip),
            Action::Mulligan { draw } => {
                moved = self.apply_mulligan(actor, *draw);
                Effect::Shuffle
            }
            Action::AddCard { card, to, placement, power_toughness } => {
                let id = self.add_public_card(card, *to, *placement, *power_toughness);
                moved.push(Moved { card: id, from: None, to: Place::of(as_checked(self.game.table.card(id))) });
                Effect::None
            }
            Action::Concede => {
                self.apply_concession(actor);
                Effect::None
            }
            Action::Rearrange { .. }
            | Action::Tap { .. }
            | Action::SetCardValue { .. }
            | Action::UntapAll
            | Action::Attach { .. } => {
                self.apply_card_change(actor, &action);
                Effect::None
            }
            // An arrow is its `Applied` event: nothing stays on the table.
            Action::Arrow { .. } => Effect::None,
            Action::SetPlayerValue { .. } | Action::SetPhase { .. } | Action::NextTurn | Action::PlayOrDraw { .. } => {
                self.apply_turn_change(actor, &action);
                Effect::None
            }
            Action::Undo { .. } => {
                moved = self.apply_undo();
                Effect::None
            }
        };
        self.game.last = Some(LastAction { number, actor, action: action.clone(), restore });
        Applied { number, actor, action, effect, moved }
    }

    /// Alerts this player when the opponent changes one of its cards in place (moves say so themselves).
    fn alert_changed_in_place(&mut self, actor: Seat, action: &Action) {
        let touched = match action {
            Action::Rearrange { card, .. }
            | Action::Tap { card, .. }
            | Action::SetCardValue { card, .. }
            | Action::Attach { card, .. } => Some(*card),
            _ => None,
        };
        if let Some(card) = touched.and_then(|id| self.game.table.card(id))
            && actor != self.seat
            && (card.owner == self.seat || card.zone.owner == self.seat)
        {
            let detail = format!("opponent changed card {} in {}", card.id, card.zone);
            self.raise(Fault::new(AlertKind::MovedYourCards, detail), None);
        }
    }

    /// Moves the top `count` cards of `library` to `actor`'s hand, noting each in `moved`.
    fn move_top_to_hand(&mut self, library: ZoneId, count: u32, actor: Seat, moved: &mut Vec<Moved>) -> Vec<CardId> {
        let cards = as_checked(self.game.table.top(library, count).ok());
        for id in &cards {
            moved.push(self.move_checked(*id, ZoneId::hand(actor), Position::Bottom, Placement::default()));
        }
        cards
    }

    fn apply_move(&mut self, actor: Seat, card: CardId, to: ZoneId, position: Position, placement: Placement) -> Moved {
        let before = as_checked(self.game.table.card(card)).clone();
        let moved = self.move_checked(card, to, position, placement);
        if actor != self.seat && (before.owner == self.seat || before.zone.owner == self.seat) {
            let detail = format!("opponent moved card {card} from {} to {to}", before.zone);
            self.raise(Fault::new(AlertKind::MovedYourCards, detail), None);
        }
        moved
    }

    /// The actor's own cards of its hand go to the bottom of its library, for the shuffle that follows.
    fn apply_mulligan(&mut self, actor: Seat, draw: u32) -> Vec<Moved> {
        let mut moved = Vec::new();
        for id in self.game.table.zone(ZoneId::hand(actor)).to_vec() {
            if self.game.table.card(id).is_some_and(|c| c.owner == actor) {
                moved.push(self.move_checked(id, ZoneId::library(actor), Position::Bottom, Placement::default()));
            }
        }
        if actor == self.seat {
            self.game.mulligan_draw = Some(draw);
        }
        moved
    }

    fn apply_concession(&mut self, actor: Seat) {
        // Actions apply only in play, so a concession always finds the game there.
        let _ = self.game.phase.conceded();
        // The host's own concession takes effect as its `act` goes out, which tells the guest. Every other
        // reaches this engine by the opponent's message (the host's `act`, its `accept` of the guest's
        // concession) or, on the host, by the guest's own proposal: the opponent knew it first.
        let own_act = (self.seat == Seat::HOST && actor == Seat::HOST).then(|| self.out.next_seq() - 1);
        self.record_loss(actor, GameEnd::Conceded, own_act);
    }

    /// A change to cards that stay where they are (an order within a zone, tapping, counters, attachments).
    fn apply_card_change(&mut self, actor: Seat, action: &Action) {
        match action {
            Action::Rearrange { card, index } => {
                let zone = as_checked(self.game.table.card(*card)).zone;
                let placement = as_checked(self.game.table.card(*card)).placement;
                as_checked(self.game.table.move_card(*card, zone, Position::Index(*index), placement).ok());
            }
            Action::Tap { card, tapped } => as_checked(self.game.table.card_mut(*card).ok()).tapped = *tapped,
            Action::SetCardValue { card, key, value } => {
                let counters = &mut as_checked(self.game.table.card_mut(*card).ok()).counters;
                match value {
                    Some(value) => counters.insert(key.clone(), *value),
                    None => counters.remove(key),
                };
            }
            Action::UntapAll => {
                for id in self.game.table.zone(ZoneId::new(actor, ZoneKind::Play)).to_vec() {
                    as_checked(self.game.table.card_mut(id).ok()).tapped = false;
                }
            }
            Action::Attach { card, to } => as_checked(self.game.table.card_mut(*card).ok()).attached_to = *to,
            _ => {}
        }
    }

    /// A change to the players' numbers, the phase or the turn.
    fn apply_turn_change(&mut self, actor: Seat, action: &Action) {
        let table = &mut self.game.table;
        match action {
            Action::SetPlayerValue { key, value } => {
                table.player_mut(actor).values.insert(key.clone(), *value);
            }
            Action::SetPhase { phase } => table.phase = phase.clone(),
            Action::NextTurn => {
                table.turn += 1;
                table.active = Some(table.active.map_or(actor.opponent(), Seat::opponent));
            }
            Action::PlayOrDraw { play } => {
                table.turn = 1;
                table.active = Some(if *play { actor } else { actor.opponent() });
            }
            _ => {}
        }
    }

    /// Moves a card the action was checked for, and says where it lay before and lies now.
    fn move_checked(&mut self, card: CardId, to: ZoneId, position: Position, placement: Placement) -> Moved {
        let from = Place::of(as_checked(self.game.table.card(card)));
        as_checked(self.game.table.move_card(card, to, position, placement).ok());
        Moved { card, from: Some(from), to: Place::of(as_checked(self.game.table.card(card))) }
    }
}

impl<G: Group> Engine<G> {
    /// Puts a public card (a token, a commander) on the table: known to both, with no layer, its identity
    /// read from its point like a catalogue entry's. Its id is one above its owner's highest, so always fresh.
    pub(super) fn add_public_card(
        &mut self,
        card: &CardInstance,
        to: ZoneId,
        placement: Placement,
        power_toughness: Option<PowerToughness>,
    ) -> CardId {
        let point = card.point::<G>(&self.game.game_id());
        let id = self.next_card_id(card.owner);
        let new = Card {
            id,
            owner: card.owner,
            back: card.back,
            zone: to,
            placement: if to.kind == ZoneKind::Play { placement } else { Placement::default() },
            tapped: false,
            counters: BTreeMap::new(),
            known_to: Knowledge::BOTH,
            attached_to: None,
            power_toughness,
        };
        as_checked(self.game.table.add_card(new, Position::Top).ok());
        self.game.forms.insert(id, Form { element: point.clone(), layers: SeatMap::default() });
        self.game.planned.insert(id, SeatMap::default());
        self.game.tokens.insert(point, card.clone());
        self.game.identities.insert(id, card.clone());
        self.out.emit(Event::Learned { card: id, instance: card.clone() });
        id
    }
}

/// An action that fits the table as it was checked: the only input `apply_action` takes.
pub(super) struct CheckedAction {
    actor: Seat,
    action: Action,
}

/// An action applied to the table, and what it sets off.
pub(super) struct Applied {
    pub(super) number: u64,
    pub(super) actor: Seat,
    pub(super) action: Action,
    pub(super) effect: Effect,
    /// The cards it put somewhere, with where they were.
    pub(super) moved: Vec<Moved>,
}

/// What an applied action sets off: an exchange with the opponent, started by the coordinator.
pub(super) enum Effect {
    None,
    /// Cards to unlock for an audience (draws, peeks, moves, reveals).
    Unlock {
        cards: Vec<CardId>,
        audience: Knowledge,
    },
    /// A full shuffle of the actor's library with fresh locks.
    Shuffle,
    /// A random round (dice, coin, a random card of the hand).
    Random(RandomKind),
}

/// What applying a checked action asks of the table. `apply_action` runs on the very table `check_action` accepted
/// the action against, unchanged since (the two run back to back on one `&mut self`), and the check refuses every
/// action a table operation would: the cards exist, the counts fit, the zones take the cards.
fn as_checked<T>(value: Option<T>) -> T {
    value.expect("the action was checked against this same table")
}
