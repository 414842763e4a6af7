//! A player's journal of a game, and the check that turns it into a verdict anyone can
//! reach alone (`fairdeck verify`).
//!
//! The engine is deterministic: its seed, its deck, its player's intents and the bytes it
//! received, in order, make it do and say exactly the same again. A journal holds those. To
//! check one, run the engine again on it: the player's own side is then honest by
//! construction, and every message of the opponent is signed with the key of its `hello`
//! and chained, and says which of the player's messages it answered (the envelope's `ack`).
//! So an alert the engine raises on a message that passed those checks is a breach the
//! opponent provably committed, at a point of the game it provably saw. A message that does
//! not pass them proves nothing about anyone: the journal does not hold together.

use crate::crypto::{Group, Suite};
use crate::engine::{Alert, Engine, Event};
pub use crate::engine::{Input, JOURNAL_FORMAT, Journal};
use crate::ids::Seat;
use crate::wire::{Awaited, Message};

/// What a journal shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The opponent broke no rule of the protocol in this journal.
    Clean(Summary),
    /// The opponent signed a message that breaks the protocol: the alert, with that message
    /// as evidence.
    Breach {
        /// The game as replayed up to the breach.
        summary: Summary,
        /// The player who broke the protocol.
        by: Seat,
        /// The alert, with the signed message as evidence.
        alert: Alert,
    },
    /// The journal does not hold together (a message that is not the opponent's next signed
    /// message, or answers messages this player did not send): it proves nothing.
    Inconsistent {
        /// The game as replayed up to the point where it fell apart.
        summary: Summary,
        /// Where and why.
        reason: String,
    },
}

/// The game as the journal replays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The seat of the player who kept the journal.
    pub seat: Seat,
    /// The opponent's name and signing key, from its `hello`.
    pub opponent: Option<(String, [u8; 32])>,
    /// How many messages that player sent.
    pub sent: usize,
    /// How many messages it received and took in.
    pub received: usize,
    /// Games of the match that started.
    pub games: u32,
    /// Whether the opponent's deck passed the end-of-game audit, in the last game.
    pub opponent_audited: bool,
    /// The last game's forfeit claim, if any: who claimed it, and what it had waited for.
    pub forfeit: Option<(Seat, Awaited)>,
}

/// Why a journal cannot be replayed at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    /// The bytes do not start with `JOURNAL_MAGIC`.
    #[error("not a fairdeck journal (journals of fairdeck 0.1 with protocol 3 or before were JSON, and are not read)")]
    NotAJournal,
    /// The encoding is broken or truncated.
    #[error("the journal is damaged: {0}")]
    Damaged(String),
    /// A journal format this program does not read.
    #[error("journal format {0}, this program reads format {JOURNAL_FORMAT}")]
    Format(u32),
    /// A journal of the other suite, given to the engine of this one.
    #[error("the journal is of suite {journal}, not {engine}")]
    Suite {
        /// The journal's suite.
        journal: Suite,
        /// The engine's suite.
        engine: Suite,
    },
    /// The journal's deck is one `Engine::new` refuses.
    #[error("the journal's deck is not a deck this engine accepts: {0}")]
    Deck(String),
}

/// What a journal file begins with, before its binary encoding.
pub const JOURNAL_MAGIC: &[u8] = b"fairdeck journal\n";

/// A journal as a file holds it: [`JOURNAL_MAGIC`], then the journal's binary encoding (postcard), whose first
/// field is its format.
pub fn encode(journal: &Journal) -> Vec<u8> {
    let mut bytes = JOURNAL_MAGIC.to_vec();
    bytes.extend(crate::codec::encode(journal));
    bytes
}

/// Reads a journal file's bytes ([`encode`]'s layout). Another format is refused with its number before the rest is
/// read, since its layout may differ.
pub fn decode(bytes: &[u8]) -> Result<Journal, JournalError> {
    let body = bytes.strip_prefix(JOURNAL_MAGIC).ok_or(JournalError::NotAJournal)?;
    let (format, _) = postcard::take_from_bytes::<u32>(body).map_err(|_| JournalError::Damaged("no format".into()))?;
    if format != JOURNAL_FORMAT {
        return Err(JournalError::Format(format));
    }
    crate::codec::decode_exact(body).map_err(JournalError::Damaged)
}

/// Runs the engine of `journal` again and says what it shows.
pub fn check<G: Group>(journal: &Journal) -> Result<Verdict, JournalError> {
    let mut games = 1;
    let mut opponent_audited = false;
    let mut forfeit = None;
    let mut breach = None;
    let engine = replay::<G>(journal, |event| match event {
        Event::NewGame { number } => {
            games = number;
            opponent_audited = false;
            forfeit = None;
        }
        Event::ForfeitClaimed { by, awaited } => forfeit = Some((by, awaited)),
        Event::Audited { seat, .. } if seat != journal.seat => opponent_audited = true,
        Event::Alert(alert) if alert.kind.is_misbehaviour() && breach.is_none() => breach = Some(alert),
        _ => {}
    })?;
    let summary = summarize(&engine, journal.seat, games, opponent_audited, forfeit);
    let opponent = journal.seat.opponent();
    // A breach stands only on a message the opponent signed and chained, which the record holds
    // as received from it: anything else in a journal is the journal owner's word.
    let signed_by_opponent = |alert: &Alert| {
        alert.evidence.as_ref().is_some_and(|evidence| {
            engine.record().iter().any(|(from, envelope)| *from == opponent && envelope == evidence)
        })
    };
    Ok(match breach {
        None => Verdict::Clean(summary),
        Some(alert) if alert.kind.is_breach() && signed_by_opponent(&alert) => {
            Verdict::Breach { summary, by: opponent, alert }
        }
        Some(alert) => Verdict::Inconsistent { summary, reason: format!("{}: {}", alert.kind, alert.detail) },
    })
}

/// Rebuilds the engine of `journal` by running it again on the same inputs; `on_event` sees each event on the
/// way. What the engine sent meanwhile is dropped: the opponent had it then. A saved game resumes this way.
pub fn replay<G: Group>(journal: &Journal, mut on_event: impl FnMut(Event)) -> Result<Engine<G>, JournalError> {
    if journal.format != JOURNAL_FORMAT {
        return Err(JournalError::Format(journal.format));
    }
    if journal.suite != G::SUITE {
        return Err(JournalError::Suite { journal: journal.suite, engine: G::SUITE });
    }
    let (seat, config, seed) = (journal.seat, journal.config.clone(), journal.rng_seed);
    let mut engine = match &journal.limited {
        None => Engine::<G>::new(seat, config, journal.deck.clone(), seed).map_err(|e| e.to_string()),
        Some(limited) => Engine::<G>::new_limited(seat, config, limited.clone(), seed).map_err(|e| e.to_string()),
    }
    .map_err(JournalError::Deck)?;
    let mut drain = |engine: &mut Engine<G>| {
        while engine.poll_transmit().is_some() {}
        while let Some(event) = engine.poll_event() {
            on_event(event);
        }
    };
    // The hello and the deck go out when the engine is made, before any input.
    drain(&mut engine);
    for input in &journal.inputs {
        // An intent's outcome is the engine's business, as it was in the game.
        let _refused_or_done = engine.handle(input.clone());
        drain(&mut engine);
    }
    Ok(engine)
}

fn summarize<G: Group>(
    engine: &Engine<G>,
    seat: Seat,
    games: u32,
    opponent_audited: bool,
    forfeit: Option<(Seat, Awaited)>,
) -> Summary {
    let record = engine.record();
    let opponent =
        record.iter().find(|(from, _)| *from != seat).and_then(|(_, envelope)| {
            match crate::wire::decode_body::<G>(&envelope.body) {
                Ok(Message::Hello { name, signing_key, .. }) => Some((name, signing_key)),
                _ => None,
            }
        });
    let sent = record.iter().filter(|(from, _)| *from == seat).count();
    Summary { seat, opponent, sent, received: record.len() - sent, games, opponent_audited, forfeit }
}
