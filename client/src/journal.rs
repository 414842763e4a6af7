//! `fairdeck journal show`: a journal file (binary, as `--record` writes it, or a save's) printed as readable JSON,
//! each message decoded from its envelope and body; and the reading of a journal file every command shares.

use std::path::Path;

use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255, Suite};
use fairdeck_shared::journal::{self, Input, Journal};
use fairdeck_shared::wire;
use serde_json::{Value, json};

/// The journal at `path` as pretty JSON. The engine's seed is left out: it is every secret of the game, and a
/// journal is shown to be read, shared or pasted.
pub fn show_file(path: &Path) -> anyhow::Result<String> {
    let journal = read_file(path)?;
    let view = match journal.suite {
        Suite::Ristretto255 => view::<Ristretto255>(&journal),
        Suite::Modp2048 => view::<Modp2048>(&journal),
    };
    Ok(serde_json::to_string_pretty(&view)?)
}

/// The journal at `path`: a journal written by `--record`, or a game's save, which holds its journal. What
/// `verify`, `journal show` and `replay` read.
pub(crate) fn read_file(path: &Path) -> anyhow::Result<Journal> {
    let bytes = crate::file::read_at_most(path, crate::file::GAME_BYTES)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    match journal::decode(&bytes) {
        Ok(journal) => Ok(journal),
        Err(not_journal) => crate::save::load(path).map(|saved| saved.journal).map_err(|not_save| {
            anyhow::anyhow!("{}: neither a journal ({not_journal}) nor a save ({not_save})", path.display())
        }),
    }
}

/// The journal's fields, with every received message decoded; a message that does not decode is shown as its
/// bytes with the reason, since a journal may hold a cheater's malformed message.
pub(crate) fn view<G: Group>(journal: &Journal) -> Value {
    let inputs: Vec<Value> = journal
        .inputs
        .iter()
        .map(|input| match input {
            Input::Intent { intent } => json!({ "intent": intent }),
            Input::Message { bytes } => json!({ "message": message::<G>(bytes) }),
        })
        .collect();
    json!({
        "format": journal.format,
        "suite": journal.suite,
        "seat": journal.seat,
        "config": journal.config,
        "deck": journal.deck,
        "inputs": inputs,
    })
}

fn message<G: Group>(bytes: &[u8]) -> Value {
    let envelope = match wire::decode_envelope(bytes) {
        Ok(envelope) => envelope,
        Err(error) => return json!({ "unreadable": error.to_string(), "bytes": hex::encode(bytes) }),
    };
    let body = match wire::decode_body::<G>(&envelope.body) {
        Ok(message) => json!(message),
        Err(error) => json!({ "unreadable": error.to_string(), "bytes": hex::encode(&envelope.body) }),
    };
    json!({
        "seq": envelope.seq,
        "ack": envelope.ack,
        "chain": hex::encode(envelope.chain),
        "signature": hex::encode(&envelope.signature),
        "body": body,
    })
}
