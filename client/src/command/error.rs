//! Why a command was refused before it changed anything: the `kind` of scripted mode's `error` event and of
//! [`Output::CommandError`](crate::session::Output::CommandError), with names scripts rely on.

use serde::Serialize;

/// The kind of a refused command. Its name (`bad_command`, …) is stable: scripts match on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The line does not parse: an unknown command, or arguments it does not take.
    BadCommand,
    /// `new-game`'s deck file cannot be read.
    BadDeck,
    /// No card the player knows has that name where the command looks.
    UnknownCard,
    /// The name means several cards: the player gives the id.
    AmbiguousCard,
    /// The game's set-up is not done.
    NotReady,
    /// The game stopped on a breach.
    Halted,
    /// The table's rules, or the moment, do not allow it.
    Refused,
    /// `build` names cards the player's pool does not hold.
    NotInPool,
}

impl ErrorKind {
    /// The stable name, as scripted mode prints it.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::BadCommand => "bad_command",
            ErrorKind::BadDeck => "bad_deck",
            ErrorKind::UnknownCard => "unknown_card",
            ErrorKind::AmbiguousCard => "ambiguous_card",
            ErrorKind::NotReady => "not_ready",
            ErrorKind::Halted => "halted",
            ErrorKind::Refused => "refused",
            ErrorKind::NotInPool => "not_in_pool",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_serializes_to_its_stable_name() {
        let all = [
            ErrorKind::BadCommand,
            ErrorKind::BadDeck,
            ErrorKind::UnknownCard,
            ErrorKind::AmbiguousCard,
            ErrorKind::NotReady,
            ErrorKind::Halted,
            ErrorKind::Refused,
            ErrorKind::NotInPool,
        ];
        let names: Vec<&str> = all.iter().map(|kind| kind.name()).collect();
        assert_eq!(
            names,
            [
                "bad_command",
                "bad_deck",
                "unknown_card",
                "ambiguous_card",
                "not_ready",
                "halted",
                "refused",
                "not_in_pool"
            ]
        );
        for kind in all {
            assert_eq!(serde_json::to_value(kind).unwrap(), serde_json::json!(kind.name()));
        }
    }
}
