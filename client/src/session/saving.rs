//! Saving as it goes: where the game stands (the core's), and the save file the driver writes at the core's
//! save points from the moment the channel is up, or for a guest the host's hello named the suite (before,
//! nothing of the game has left this side).
//! [`crate::save`] holds the file format.

use std::path::PathBuf;

use fairdeck_shared::crypto::Group;

use super::error::SessionError;
use super::frontend::Output;
use super::outbox::SavePoint;
use super::state::SessionCore;
use crate::save::{SaveFile, Standing, Status};

impl<G: Group> SessionCore<G> {
    /// Where the game stands, for the save.
    pub fn standing(&self) -> Standing {
        let status = if self.engine.halted().is_some() {
            Status::Halted
        } else if self.engine.is_ended() {
            Status::Ended
        } else {
            Status::Playing
        };
        Standing {
            relay: self.uplink.place().clone(),
            status,
            opponent: self.opponent.clone(),
            moves: self.engine.actions_applied(),
            record: self.record.clone(),
        }
    }
}

/// The driver's save file: none until the channel is up, unless the game was resumed from one.
pub(super) struct Saver {
    /// Where the save is created once the channel is up.
    games: PathBuf,
    file: Option<SaveFile>,
}

impl Saver {
    pub fn new(games: PathBuf, file: Option<SaveFile>) -> Saver {
        Saver { games, file }
    }

    /// Writes what changed to the save, if there is one: at the session's end, what came in since the last line.
    /// It makes no save: a session that ends before its game is saved (a guest refused by the host's suite) leaves
    /// none behind.
    pub fn keep<G: Group>(&mut self, core: &SessionCore<G>) -> Result<(), SessionError> {
        if let Some(save) = &mut self.file {
            save.commit(core.engine().journal(), core.channel(), core.standing())?;
        }
        Ok(())
    }

    /// Whether the save file wants room made ahead (see [`SaveFile::make_room`]).
    pub fn wants_room(&self) -> bool {
        self.file.as_ref().is_some_and(SaveFile::wants_room)
    }

    /// Makes room ahead in the save file, if it has one: call it when nothing waits.
    pub fn make_room(&mut self) {
        if let Some(save) = &mut self.file {
            save.make_room();
        }
    }

    /// Writes what changed at a save point of `core` (see `SessionCore::poll_save`): everything before frames
    /// leave, otherwise only a change of where the game stands; the file made, what to tell the player.
    pub fn save<G: Group>(
        &mut self,
        core: &mut SessionCore<G>,
        point: SavePoint,
    ) -> Result<Option<Output>, SessionError> {
        let standing = core.standing();
        match &mut self.file {
            Some(save) if point == SavePoint::Settled && save.stands_at(&standing) => {}
            Some(save) => save.commit(core.engine().journal(), core.channel(), standing)?,
            None if core.channel().is_established() => {
                let save = SaveFile::create(&self.games, core.engine().journal(), core.channel(), standing)?;
                let path = save.path().to_path_buf();
                core.saved(path.clone());
                self.file = Some(save);
                return Ok(Some(Output::Saved(path)));
            }
            None => {}
        }
        Ok(None)
    }
}
