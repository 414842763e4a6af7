//! Bytes on the wire and on disk: what each player sends for the set-up of two 60+15 decks and for 20
//! draws, the largest shuffle step among them (one 60-card library, with its proof), and the size of a
//! saved journal after them (ristretto255). The figures are in
//! docs/PERFORMANCE.md ("Wire and journal sizes").
//!
//! `cargo run --release -p fairdeck-shared --example wire_sizes`

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::Intent;
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::wire::{self, Action, MessageKind};

/// Delivers every message in flight, in order, and returns the bytes each seat sent (host, guest), and the
/// largest shuffle step's envelope and body in bytes.
fn drive_counting(pair: &mut Pair<Ristretto255>) -> ([usize; 2], (usize, usize)) {
    let mut sent = [0; 2];
    let mut step = (0, 0);
    loop {
        pair.collect();
        let Some(message) = pair.queue.pop_front() else { return (sent, step) };
        sent[usize::from(message.from == Seat::GUEST)] += message.bytes.len();
        let body = wire::decode_envelope(&message.bytes).expect("an engine's envelope").body;
        if wire::peek_kind(&body) == Ok(MessageKind::ShuffleStep) && body.len() > step.1 {
            step = (message.bytes.len(), body.len());
        }
        pair.deliver(message);
    }
}

fn main() {
    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 60, 15), numbered_deck("Guest", 60, 15), 5);
    let (setup, step) = drive_counting(&mut pair);
    assert!(
        pair.host.is_ready() && pair.guest.is_ready(),
        "set-up finished: {:?} {:?}",
        pair.host.halted(),
        pair.guest.halted()
    );
    let mut draws = [0; 2];
    for _ in 0..20 {
        pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 1 })).expect("a draw");
        let (sent, _) = drive_counting(&mut pair);
        draws[0] += sent[0];
        draws[1] += sent[1];
    }
    let journal = fairdeck_shared::journal::encode(pair.host.journal());
    println!("| what | host | guest |");
    println!("|---|---|---|");
    println!("| set-up of two 60+15 decks, bytes sent | {} | {} |", setup[0], setup[1]);
    println!("| one set-up shuffle step of a 60-card library: envelope (body) | {} ({}) | |", step.0, step.1);
    println!("| 20 draws by the host, bytes sent | {} | {} |", draws[0], draws[1]);
    println!("| the host's journal after them, bytes | {} | |", journal.len());
}
