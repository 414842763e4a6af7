//! Saving as it goes: where the game stands, and the save file written from the moment the channel is up
//! (before, nothing of the game has left this side). [`crate::save`] holds the file format.

use super::error::SessionError;
use super::frontend::{Frontend, Output};
use super::state::Session;
use crate::save::{SaveFile, Standing, Status};

impl Session {
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
            relay: self.relay.clone(),
            status,
            opponent: self.opponent.clone(),
            moves: self.engine.actions_applied(),
        }
    }

    /// Writes what changed to the save. Called once the engine and the channel are settled (see `pump`), so
    /// that the save holds together.
    pub fn save<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        let standing = self.standing();
        match &mut self.save {
            Some(save) => save.commit(self.engine.journal(), &self.channel, standing)?,
            None if self.channel.is_established() => {
                let save = SaveFile::create(&self.games, self.engine.journal(), &self.channel, standing)?;
                front.show(Output::Saved(save.path().to_path_buf()), &self.engine)?;
                self.save = Some(save);
            }
            None => {}
        }
        Ok(())
    }
}
