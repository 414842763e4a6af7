//! Cards by name: a command's card reference ([`CardRef`]) found on the table as this player sees it. Only
//! names this player knows can match (its engine's identities), so a name never finds a hidden card, and an
//! error never lists one.
//!
//! A name matches a card whose name it is, or starts, or starts one of its words (`bolt` finds Lightning Bolt),
//! whatever the case and spacing. Each command looks in zones in groups, best first ([`Reach`]): the first group
//! holding a match decides; in it an exact name beats a start. Copies of one name in one zone are one choice
//! (the first in the zone's order: the top of a pile; for `tap` an untapped one, for `untap` a tapped one);
//! anything else is ambiguous and refused with the candidates. A command that may find either player's cards in
//! one group (`move`, `command`) takes the cards owned by the player whose zone they go to, if any match: a
//! card goes back to its owner's zones, so `command krenko` in a mirror match finds the player's own Krenko.

use std::fmt;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Engine;
use fairdeck_shared::table::{Card, CardId, Table, ZoneId, ZoneKind};

use super::error::ErrorKind;

/// A card as a command line names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardRef {
    /// `12` or `#12`: taken as it is, the engine says whether it fits.
    Id(CardId),
    /// A name or the start of one (of the name or of a word in it), as typed, quotes removed.
    Name(String),
}

/// An ambiguity lists at most this many candidates.
const LISTED: usize = 8;

/// Where a command looks for a card named by name, from its player's seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// `play`: your hand and command zone, then your graveyard, exile and library, then your sideboard.
    ToPlay,
    /// `move`, `command`: your hand and play area, then every other zone but the sideboards, then those; never
    /// the destination itself. In each, the cards the destination's owner owns come first.
    Anywhere { but: ZoneId },
    /// `reveal`: your hand, then your play area, library and sideboard.
    Unseen,
    /// `tap`, `untap`, `counter`, `attach`, `arrow`: your play area, then the opponent's.
    InPlay,
    /// `commander-damage`: the opponent's command zone, then its play area.
    Commander,
    /// `take`, `top`, `bottom`, `grave`: your library.
    Library,
    /// `bottom` with no scry open (the London mulligan): your hand.
    Hand,
}

impl Reach {
    /// The zones, in groups, best first.
    fn groups(self, seat: Seat) -> Vec<Vec<ZoneId>> {
        let mine = |kinds: &[ZoneKind]| kinds.iter().map(|&kind| ZoneId::new(seat, kind)).collect::<Vec<_>>();
        use ZoneKind::*;
        match self {
            Reach::ToPlay => vec![mine(&[Hand, Command]), mine(&[Graveyard, Exile, Library]), mine(&[Sideboard])],
            Reach::Anywhere { but } => {
                let mut groups = vec![mine(&[Hand, Play]), Vec::new(), Vec::new()];
                for owner in [seat, seat.opponent()] {
                    for zone in ZoneKind::ALL.map(|kind| ZoneId::new(owner, kind)) {
                        match zone.kind {
                            Sideboard => groups[2].push(zone),
                            _ if !groups[0].contains(&zone) => groups[1].push(zone),
                            _ => {}
                        }
                    }
                }
                groups.iter_mut().for_each(|group| group.retain(|zone| *zone != but));
                groups
            }
            Reach::Unseen => vec![mine(&[Hand]), mine(&[Play, Library, Sideboard])],
            Reach::InPlay => vec![mine(&[Play]), vec![ZoneId::new(seat.opponent(), Play)]],
            Reach::Commander => {
                vec![vec![ZoneId::new(seat.opponent(), Command)], vec![ZoneId::new(seat.opponent(), Play)]]
            }
            Reach::Library => vec![mine(&[Library])],
            Reach::Hand => vec![mine(&[Hand])],
        }
    }

    /// Whose cards come first among the matches of one group, if anyone's.
    fn owner_first(self) -> Option<Seat> {
        match self {
            Reach::Anywhere { but } => Some(but.owner),
            _ => None,
        }
    }

    /// Where it looks, in words.
    fn about(self) -> &'static str {
        match self {
            Reach::ToPlay => "your hand, command zone, graveyard, exile, library or sideboard",
            Reach::Anywhere { .. } => "any zone but where it would go",
            Reach::Unseen => "your hand, play area, library or sideboard",
            Reach::InPlay => "either play area",
            Reach::Commander => "the opponent's command zone or play area",
            Reach::Library => "your library",
            Reach::Hand => "your hand",
        }
    }
}

/// Why a name found no one card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardError {
    /// No card this player knows of has that name where the command looks.
    Unknown { name: String, reach: Reach },
    /// Several cards, told apart only by id.
    Ambiguous { name: String, candidates: Vec<Candidate> },
}

impl CardError {
    /// The kind of the command's error event.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CardError::Unknown { .. } => ErrorKind::UnknownCard,
            CardError::Ambiguous { .. } => ErrorKind::AmbiguousCard,
        }
    }
}

impl fmt::Display for CardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardError::Unknown { name, reach } => {
                write!(f, "no card you know matches {name:?} in {}", reach.about())
            }
            CardError::Ambiguous { name, candidates } => {
                let listed: Vec<String> = candidates.iter().take(LISTED).map(Candidate::to_string).collect();
                write!(f, "{name:?} could be {}", listed.join(", "))?;
                if candidates.len() > LISTED {
                    write!(f, " and {} more", candidates.len() - LISTED)?;
                }
                write!(f, ": give the id")
            }
        }
    }
}

/// A card a name could mean: `#3 Lightning Bolt (hand)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub id: CardId,
    pub name: String,
    pub zone: ZoneId,
    /// Its zone in words, from the player's seat: `hand`, `opponent's play`.
    pub place: String,
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ({})", self.id, self.name, self.place)
    }
}

/// The card `card` names in `reach`; among copies, one `prefers` accepts if any.
pub fn resolve_in<G: Group>(
    engine: &Engine<G>,
    card: &CardRef,
    reach: Reach,
    prefers: impl Fn(&Card) -> bool,
) -> Result<CardId, CardError> {
    let name = match card {
        CardRef::Id(id) => return Ok(*id),
        CardRef::Name(name) => name,
    };
    let wanted = fold(name);
    let seat = engine.seat();
    let table = engine.table();
    for group in reach.groups(seat) {
        let mut exact = Vec::new();
        let mut started = Vec::new();
        for zone in group {
            for &id in table.zone(zone) {
                let Some(identity) = engine.identity(id) else { continue };
                let known = fold(&identity.name);
                let place = place(zone, seat);
                let candidate = Candidate { id, name: identity.name.clone(), zone, place };
                if known == wanted {
                    exact.push(candidate);
                } else if starts_a_word(&known, &wanted) {
                    started.push(candidate);
                }
            }
        }
        if let Some(owner) = reach.owner_first()
            && exact.iter().chain(&started).any(|c| owned_by(table, c.id, owner))
        {
            exact.retain(|c| owned_by(table, c.id, owner));
            started.retain(|c| owned_by(table, c.id, owner));
        }
        let found = if exact.is_empty() { started } else { exact };
        let Some(first) = found.first() else { continue };
        if found.iter().any(|c| c.zone != first.zone || c.name != first.name) {
            return Err(CardError::Ambiguous { name: name.clone(), candidates: found });
        }
        let preferred = |c: &&Candidate| table.card(c.id).is_some_and(&prefers);
        return Ok(found.iter().find(preferred).unwrap_or(first).id);
    }
    Err(CardError::Unknown { name: name.clone(), reach })
}

fn owned_by(table: &Table, card: CardId, owner: Seat) -> bool {
    table.card(card).is_some_and(|card| card.owner == owner)
}

/// Lower case, single spaces: how names are compared.
fn fold(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Whether `part` starts `name` or one of its words (a word starts after any character but a letter or digit).
fn starts_a_word(name: &str, part: &str) -> bool {
    let mut previous = None::<char>;
    name.char_indices().any(|(i, c)| {
        let starts = previous.is_none_or(|p| !p.is_alphanumeric()) && name[i..].starts_with(part);
        previous = Some(c);
        starts
    })
}

/// A zone in words, from `seat`'s side.
fn place(zone: ZoneId, seat: Seat) -> String {
    if zone.owner == seat { zone.kind.name().to_string() } else { format!("opponent's {}", zone.kind.name()) }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::crypto::Ristretto255;
    use fairdeck_shared::engine::{DeckCard, DeckList, Intent};
    use fairdeck_shared::pair::Pair;

    use super::*;
    use crate::command::{Command, parse};

    fn deck(library: &[&str], sideboard: &[&str]) -> DeckList {
        let cards = |names: &[&str]| names.iter().map(|name| DeckCard { name: name.to_string(), back: 0 }).collect();
        DeckList { library: cards(library), sideboard: cards(sideboard), ..DeckList::default() }
    }

    /// The host holds its whole library in hand; the guest holds three Shocks, hidden from the host.
    fn game() -> Pair<Ristretto255> {
        let host = deck(
            &[
                "Lightning Bolt",
                "Lightning Bolt",
                "Lightning Helix",
                "Goblin Guide",
                "Goblin Guide",
                "Mountain",
                "Mountain",
                "Mountain Goat",
                "Fire // Ice",
                "\"Ach! Hans, Run!\"",
            ],
            &["Lightning Bolt", "Smash to Smithereens"],
        );
        let guest = deck(&["Shock", "Shock", "Shock", "Island"], &[]);
        let mut pair = Pair::new(host, guest, 3);
        pair.drive();
        assert!(pair.host.is_ready() && pair.guest.is_ready(), "set-up did not finish");
        act(&mut pair, Seat::HOST, "draw 10");
        act(&mut pair, Seat::GUEST, "draw 3");
        pair
    }

    /// The card a command line names for `seat`'s player.
    fn find(pair: &Pair<Ristretto255>, seat: Seat, line: &str) -> Result<CardId, CardError> {
        let Ok(Command::OnCard(card, act)) = parse(line, seat) else { panic!("{line} names no card") };
        act.find(pair.engine(seat), &card)
    }

    /// Runs a command line for `seat`, its card found as the session finds it.
    fn act(pair: &mut Pair<Ristretto255>, seat: Seat, line: &str) {
        let action = match parse(line, seat) {
            Ok(Command::Act(action)) => action,
            Ok(Command::OnCard(card, act)) => {
                let card = act.find(pair.engine(seat), &card).unwrap_or_else(|e| panic!("{line}: {e}"));
                act.action(pair.engine(seat), card).unwrap_or_else(|e| panic!("{line}: {e}"))
            }
            other => panic!("{line}: {other:?}"),
        };
        pair.intent(seat, Intent::Act(action)).unwrap_or_else(|e| panic!("{line}: {e}"));
        pair.drive();
    }

    /// `seat`'s cards in `zone` called `name`, in the zone's order.
    fn named(pair: &Pair<Ristretto255>, seat: Seat, zone: ZoneId, name: &str) -> Vec<CardId> {
        let engine = pair.engine(seat);
        let known = |id: &&CardId| engine.identity(**id).is_some_and(|i| i.name == name);
        engine.table().zone(zone).iter().filter(known).copied().collect()
    }

    #[test]
    fn a_name_finds_its_card_whole_or_started_in_any_case_quoted_or_not() {
        let pair = game();
        let hand = ZoneId::hand(Seat::HOST);
        let bolts = named(&pair, Seat::HOST, hand, "Lightning Bolt");
        assert_eq!(bolts.len(), 2);
        // Copies in one zone are one choice: the first in the zone's order.
        for line in [
            "play \"Lightning Bolt\" at 0,0",
            "play lightning bolt at 0,0",
            "play LIGHTNING   B at 0,0",
            "play bolt at 0,0",
            "move \"lightning bolt\" graveyard",
        ] {
            assert_eq!(find(&pair, Seat::HOST, line), Ok(bolts[0]), "{line}");
        }
        let only = |name| named(&pair, Seat::HOST, hand, name)[0];
        assert_eq!(find(&pair, Seat::HOST, "play helix at 0,0"), Ok(only("Lightning Helix")));
        // A word starts after anything but a letter or digit.
        assert_eq!(find(&pair, Seat::HOST, "play ice at 0,0"), Ok(only("Fire // Ice")));
        assert_eq!(find(&pair, Seat::HOST, "play hans at 0,0"), Ok(only("\"Ach! Hans, Run!\"")));
        assert_eq!(find(&pair, Seat::HOST, "play ach at 0,0"), Ok(only("\"Ach! Hans, Run!\"")));
        // The whole name beats a start: Mountain is not ambiguous with Mountain Goat.
        assert_eq!(find(&pair, Seat::HOST, "play mountain at 0,0"), Ok(named(&pair, Seat::HOST, hand, "Mountain")[0]));
        assert_eq!(find(&pair, Seat::HOST, "play mountain g at 0,0"), Ok(only("Mountain Goat")));
        // Inside a word is no start.
        assert!(matches!(find(&pair, Seat::HOST, "play ightning at 0,0"), Err(CardError::Unknown { .. })));
    }

    #[test]
    fn ids_are_taken_as_they_are() {
        let pair = game();
        assert_eq!(find(&pair, Seat::HOST, "play #3 at 0,0"), Ok(CardId(3)));
        assert_eq!(find(&pair, Seat::HOST, "tap 99999"), Ok(CardId(99999)));
        assert_eq!(find(&pair, Seat::GUEST, "move 4 opponent graveyard"), Ok(CardId(4)));
    }

    #[test]
    fn an_ambiguous_name_is_refused_with_its_candidates() {
        let pair = game();
        let hand = ZoneId::hand(Seat::HOST);
        let bolts = named(&pair, Seat::HOST, hand, "Lightning Bolt");
        let helix = named(&pair, Seat::HOST, hand, "Lightning Helix")[0];
        let error = find(&pair, Seat::HOST, "play light at 0,0").unwrap_err();
        assert_eq!(error.kind(), ErrorKind::AmbiguousCard);
        let CardError::Ambiguous { candidates, .. } = &error else { panic!("{error:?}") };
        let mut ids: Vec<CardId> = candidates.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        let mut expected = vec![bolts[0], bolts[1], helix];
        expected.sort_unstable();
        assert_eq!(ids, expected);
        let message = error.to_string();
        assert!(message.starts_with("\"light\" could be #"), "{message}");
        assert!(message.ends_with(": give the id"), "{message}");
        for id in bolts {
            assert!(message.contains(&format!("{id} Lightning Bolt (hand)")), "{message}");
        }
        assert!(message.contains(&format!("{helix} Lightning Helix (hand)")), "{message}");
        // The sideboard's Bolt is in a later group: the hand's decide.
        assert!(!message.contains("sideboard"), "{message}");
    }

    #[test]
    fn the_first_group_with_a_match_decides_and_copies_in_two_zones_are_ambiguous() {
        let mut pair = game();
        let hand = ZoneId::hand(Seat::HOST);
        let bolts = named(&pair, Seat::HOST, hand, "Lightning Bolt");
        act(&mut pair, Seat::HOST, &format!("move {} graveyard", bolts[0]));
        act(&mut pair, Seat::HOST, &format!("move {} exile", bolts[1]));
        // No Bolt in hand: the graveyard and exile are the next group, and hold one each.
        let error = find(&pair, Seat::HOST, "play bolt at 0,0").unwrap_err();
        let message = error.to_string();
        assert!(message.contains(&format!("{} Lightning Bolt (graveyard)", bolts[0])), "{message}");
        assert!(message.contains(&format!("{} Lightning Bolt (exile)", bolts[1])), "{message}");
        // Moving to the exile, the exile's Bolt is not a candidate.
        assert_eq!(find(&pair, Seat::HOST, "move bolt exile"), Ok(bolts[0]));
        act(&mut pair, Seat::HOST, &format!("move {} graveyard", bolts[1]));
        // Two in the graveyard: the top one, the last put there.
        assert_eq!(find(&pair, Seat::HOST, "play bolt at 0,0"), Ok(bolts[1]));
        // A library's cards its owner knows are found too: the graveyard's top goes there.
        act(&mut pair, Seat::HOST, "move bolt library");
        let message = find(&pair, Seat::HOST, "play bolt at 0,0").unwrap_err().to_string();
        assert!(message.contains(&format!("{} Lightning Bolt (library)", bolts[1])), "{message}");
        act(&mut pair, Seat::HOST, &format!("move {} play", bolts[0]));
        act(&mut pair, Seat::HOST, &format!("move {} play", bolts[1]));
        // The sideboard's is the last resort.
        let sideboard = named(&pair, Seat::HOST, ZoneId::new(Seat::HOST, ZoneKind::Sideboard), "Lightning Bolt");
        assert_eq!(find(&pair, Seat::HOST, "play bolt at 0,0"), Ok(sideboard[0]));
    }

    #[test]
    fn tap_takes_an_untapped_copy_and_untap_a_tapped_one() {
        let mut pair = game();
        let guides = named(&pair, Seat::HOST, ZoneId::hand(Seat::HOST), "Goblin Guide");
        act(&mut pair, Seat::HOST, "play guide at 0,0");
        act(&mut pair, Seat::HOST, "play guide at 1,0");
        assert!(matches!(find(&pair, Seat::HOST, "untap guide"), Ok(id) if guides.contains(&id)));
        let first = find(&pair, Seat::HOST, "tap guide").unwrap();
        act(&mut pair, Seat::HOST, "tap guide");
        let second = find(&pair, Seat::HOST, "tap guide").unwrap();
        assert_ne!(first, second);
        assert_eq!(find(&pair, Seat::HOST, "untap goblin"), Ok(first));
        assert_eq!(find(&pair, Seat::HOST, "counter guide +1/+1 1"), Ok(first));
        // The guest sees the Guides in the host's play area: by name, after its own (none).
        assert_eq!(find(&pair, Seat::GUEST, "untap guide"), Ok(first));
    }

    #[test]
    fn command_and_move_take_the_cards_of_the_destinations_owner_first() {
        // A mirror match: each has a Krenko in play.
        let krenko = "Krenko, Mob Boss";
        let mut pair = Pair::new(deck(&[krenko, "Mountain"], &[]), deck(&[krenko, "Mountain"], &[]), 6);
        pair.drive();
        act(&mut pair, Seat::HOST, "draw 2");
        act(&mut pair, Seat::GUEST, "draw 2");
        act(&mut pair, Seat::HOST, "play krenko");
        act(&mut pair, Seat::GUEST, "play krenko");
        let host_krenko = named(&pair, Seat::HOST, ZoneId::new(Seat::HOST, ZoneKind::Play), krenko)[0];
        let guest_krenko = named(&pair, Seat::GUEST, ZoneId::new(Seat::GUEST, ZoneKind::Play), krenko)[0];
        // Killed, the host's Krenko is in its graveyard, beside the guest's in play, in one group.
        act(&mut pair, Seat::HOST, "move krenko graveyard");
        assert_eq!(find(&pair, Seat::HOST, "command krenko"), Ok(host_krenko));
        assert_eq!(find(&pair, Seat::GUEST, "command krenko"), Ok(guest_krenko), "its own, in its play area");
        assert_eq!(find(&pair, Seat::HOST, "move krenko exile"), Ok(host_krenko));
        // To the opponent's zones, the opponent's cards first.
        assert_eq!(find(&pair, Seat::HOST, "move krenko opponent exile"), Ok(guest_krenko));
        // No card of the owner's matches (its Krenko is where it would go): the others' are found as before.
        act(&mut pair, Seat::HOST, "command krenko");
        assert_eq!(find(&pair, Seat::HOST, "command krenko"), Ok(guest_krenko));
    }

    #[test]
    fn a_name_never_finds_a_card_its_player_does_not_know() {
        let mut pair = game();
        let shocks = named(&pair, Seat::GUEST, ZoneId::hand(Seat::GUEST), "Shock");
        assert!(!shocks.is_empty());
        let error = find(&pair, Seat::HOST, "move shock exile").unwrap_err();
        assert_eq!(error.kind(), ErrorKind::UnknownCard);
        assert_eq!(error.to_string(), "no card you know matches \"shock\" in any zone but where it would go");
        assert!(matches!(find(&pair, Seat::HOST, "tap zzz"), Err(CardError::Unknown { reach: Reach::InPlay, .. })));
        // Shown to the host, the Shock can be named.
        act(&mut pair, Seat::GUEST, &format!("reveal {}", shocks[0]));
        assert_eq!(find(&pair, Seat::HOST, "move shock opponent graveyard"), Ok(shocks[0]));
    }
}
