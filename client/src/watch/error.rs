//! Why watching stopped: [`WatchError`], with the `kind` scripted mode prints and the exit code, as a game's
//! [`SessionError`] has them.

use crate::channel::ChannelError;
use crate::session::SessionError;
use crate::session::spectators::FeedError;

/// Why watching stopped. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// Reaching the relay, the code, the relay's refusals: as a game says them.
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("no game is watched with this code (it is mistyped, watching was turned off, or the game ended)")]
    UnknownCode,
    #[error("wrong watch code: the key exchange with the player failed; ask the player for the code again")]
    WrongCode,
    #[error("the player's program started again (its game was resumed): watch again with the same code")]
    Restarted,
    #[error("the connection to the player failed: {0}")]
    Channel(ChannelError),
    #[error("{0}")]
    Unreadable(#[from] FeedError),
    #[error("the player's program broke the watch protocol: {0}")]
    Feed(String),
    #[error("the relay stopped watching: {0}")]
    Closed(&'static str),
    /// The program cannot start watching: no terminal, an unreadable configuration file.
    #[error("{0}")]
    Start(String),
}

impl From<std::io::Error> for WatchError {
    fn from(error: std::io::Error) -> WatchError {
        WatchError::Session(SessionError::Output(error))
    }
}

impl From<ChannelError> for WatchError {
    fn from(error: ChannelError) -> WatchError {
        match error {
            ChannelError::WrongCode => WatchError::WrongCode,
            // A new HELLO from the player: a new run of its program, whose feed starts again.
            ChannelError::HandshakeChanged(_) => WatchError::Restarted,
            other => WatchError::Channel(other),
        }
    }
}

impl WatchError {
    /// The `kind` of the error event.
    pub fn kind(&self) -> &'static str {
        match self {
            WatchError::Session(SessionError::UnknownCode) | WatchError::UnknownCode => "unknown_code",
            WatchError::Session(error) => error.kind(),
            WatchError::WrongCode => "wrong_code",
            WatchError::Restarted => "restarted",
            WatchError::Channel(_) => "channel",
            WatchError::Unreadable(_) | WatchError::Feed(_) => "feed",
            WatchError::Closed(_) => "closed",
            WatchError::Start(_) => "start",
        }
    }

    /// The process exit code: 2 when asking for the code again puts it right, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            WatchError::Session(error) => error.exit_code(),
            WatchError::UnknownCode | WatchError::WrongCode => 2,
            _ => 1,
        }
    }
}
