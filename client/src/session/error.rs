//! Why a session stopped early: [`SessionError`], with the `kind` scripted mode prints and the exit code.

use fairdeck_shared::crypto::Suite;

use crate::channel::ChannelError;
use crate::code::CodeError;
use crate::save::SaveError;
use crate::serve::ServeError;
use crate::tls::CaError;

/// Why a session stopped early. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot read the deck file {path}: {reason}")]
    Deck { path: String, reason: String },
    #[error("cannot read the pool file {path}: {reason}")]
    PoolFile { path: String, reason: String },
    #[error("the pool file {path} cannot give this match: {reason}")]
    Pool { path: String, reason: String },
    #[error("cannot write the game's journal to {path}: {reason}")]
    Record { path: String, reason: String },
    #[error("cannot reach the relay at {url}: {reason} (start one with `fairdeck-relay`, or pass --relay URL)")]
    Unreachable { url: String, reason: String },
    #[error("cannot reach the relay at {url} securely: {reason}")]
    Certificate { url: String, reason: String },
    #[error(transparent)]
    Ca(#[from] CaError),
    #[error("the relay refused: {message} ({code})")]
    Relay { code: &'static str, message: String },
    #[error("{0} (checked on this computer: the relay was not contacted)")]
    BadCode(CodeError),
    #[error("no game has this code (it is mistyped, or the game ended): ask the host for the code again")]
    UnknownCode,
    #[error(
        "wrong code: the key exchange failed (the words differ from the host's); check the code with the host and join again: the host's game stays open"
    )]
    WrongCode,
    #[error("the connection to the opponent failed: {0}; start a new game")]
    Channel(ChannelError),
    #[error("lost the connection to the relay: {0}")]
    Lost(String),
    /// The relay answered a claim with `closing`: it is restarting, or cannot yet say where the room is.
    #[error("the relay asked to come back shortly (it is restarting, or cannot yet say where the game is)")]
    ComeBack { after: std::time::Duration },
    #[error("the game stopped: {0}")]
    Halted(String),
    #[error("cannot write events: {0}")]
    Output(#[from] std::io::Error),
    #[error(transparent)]
    Save(#[from] SaveError),
    #[error("cannot rebuild the game of {path}: {reason}")]
    Restore { path: String, reason: String },
    #[error("cannot serve the relay: {0}")]
    Serve(ServeError),
    #[error("the host plays the {suite} suite, which cannot take your game: {reason}")]
    Suite { suite: Suite, reason: String },
}

impl SessionError {
    /// The `kind` of the error event.
    pub fn kind(&self) -> &'static str {
        match self {
            SessionError::Deck { .. } => "deck",
            SessionError::PoolFile { .. } | SessionError::Pool { .. } => "pool",
            SessionError::Record { .. } => "record",
            SessionError::Unreachable { .. } => "unreachable",
            SessionError::Certificate { .. } => "certificate",
            SessionError::Ca(_) => "ca",
            SessionError::Relay { code, .. } => code,
            SessionError::BadCode(_) => "bad_code",
            SessionError::UnknownCode => "unknown_code",
            SessionError::WrongCode => "wrong_code",
            SessionError::Channel(_) => "channel",
            SessionError::Lost(_) | SessionError::ComeBack { .. } => "lost",
            SessionError::Halted(_) => "halted",
            SessionError::Output(_) => "output",
            SessionError::Save(SaveError::InUse { .. }) => "in_use",
            SessionError::Save(_) | SessionError::Restore { .. } => "save",
            SessionError::Serve(_) => "serve",
            SessionError::Suite { .. } => "suite",
        }
    }

    /// Whether opening a link again may go better: the relay could not be reached, the link dropped, or the relay
    /// asked to come back (it is restarting, or cannot yet say where the room is).
    pub fn is_transient(&self) -> bool {
        matches!(self, SessionError::Lost(_) | SessionError::Unreachable { .. } | SessionError::ComeBack { .. })
    }

    /// The process exit code: 2 when the user can put it right at once (the code, by asking again; a game open
    /// in another fairdeck, by closing it), 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            SessionError::BadCode(_)
            | SessionError::UnknownCode
            | SessionError::WrongCode
            | SessionError::Save(SaveError::InUse { .. }) => 2,
            _ => 1,
        }
    }
}
