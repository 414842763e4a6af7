//! The driver: the only part of a session that does I/O. One task selects over the player's lines, the relay
//! link (its frames, or the attempt under way to take the seat back) and the core's next deadline, hands what
//! came to the [`SessionCore`] and does what the core asks: saves, shows, sends, link actions.

use std::sync::Arc;
use std::time::{Duration, Instant};

use fairdeck_shared::crypto::Group;

use super::core::{Input, SessionCore};
use super::disk;
use super::error::SessionError;
use super::frontend::Frontend;
use super::link::Link;
use super::saving::Saver;
use super::watch_link::WatchLink;

/// How long the game must be quiet (no input, no timer) before room is made ahead in the save: longer than the
/// gaps within an exchange, far shorter than a player's pause.
const ROOM_AFTER: Duration = Duration::from_millis(20);

/// What the driver holds beside the core: the link to the relay, the watch link, its TLS settings, the save file.
pub(super) struct Driver {
    pub link: Link,
    pub watch: WatchLink,
    pub tls: Arc<rustls::ClientConfig>,
    pub saver: Saver,
}

impl Driver {
    /// Runs `core` until `quit` (or the end of the input), or a fatal error; or until a guest's core finds the host
    /// plays another suite ([`SessionCore::elsewhere`]), also `Ok`.
    pub async fn run<G: Group, F: Frontend>(
        &mut self,
        core: &mut SessionCore<G>,
        front: &mut F,
    ) -> Result<(), SessionError> {
        loop {
            if let Some(end) = self.turn(core, front).await? {
                // What came in since the last frame left is kept too, if the save can take it.
                let kept = self.saver.keep(core);
                return end.and(kept);
            }
            if core.elsewhere().is_some() {
                // The host plays another suite: the session goes on in it (`start.rs`).
                return Ok(());
            }
            let deadline = core.poll_timeout().map(tokio::time::Instant::from_std);
            let timer = async {
                match deadline {
                    Some(deadline) => tokio::time::sleep_until(deadline).await,
                    None => std::future::pending().await,
                }
            };
            // Room for the next saves is made once the game is quiet, off the path of any message.
            let room = tokio::time::sleep(ROOM_AFTER);
            tokio::select! {
                line = front.next_line(), if !core.input_done() => core.handle(Input::Line(line), Instant::now()),
                input = self.link.next() => match input {
                    Some(input) => self.take_in(core, input),
                    None => continue,
                },
                input = self.watch.next() => match input {
                    Some(input) => core.handle(input, Instant::now()),
                    None => continue,
                },
                () = timer => core.handle_timeout(Instant::now()),
                () = room, if self.saver.wants_room() => self.saver.make_room(),
            }
        }
    }

    /// Hands the core `input` from the link, and the frames the link holds already after it: frames that came
    /// together (an acceptance and its strip) are taken in together, and answered in one turn with one save.
    fn take_in<G: Group>(&mut self, core: &mut SessionCore<G>, input: Input) {
        const MAX_TOGETHER: usize = 16;
        let mut taken = 1;
        let mut next = Some(input);
        while let Some(input) = next.take() {
            let frame = matches!(input, Input::Frame(_));
            core.handle(input, Instant::now());
            if frame && taken < MAX_TOGETHER {
                next = self.link.ready();
                taken += 1;
            }
        }
    }

    /// Runs the turn after an input, doing what each step asks; how the session ended, once it did.
    async fn turn<G: Group, F: Frontend>(
        &mut self,
        core: &mut SessionCore<G>,
        front: &mut F,
    ) -> Result<Option<Result<(), SessionError>>, SessionError> {
        loop {
            self.drain(core, front).await?;
            if let Some(end) = core.poll_end() {
                // What the last step queued is done by now (a last report, leaving the room).
                return Ok(Some(end));
            }
            if !core.advance() {
                self.drain(core, front).await?;
                return Ok(core.poll_end());
            }
        }
    }

    /// Does what the core queued, in the core's order: the save before anything leaves, the sends, the shows,
    /// the files, the link. The sends go before the shows: the opponent waits on them, not on this side's screen.
    async fn drain<G: Group, F: Frontend>(
        &mut self,
        core: &mut SessionCore<G>,
        front: &mut F,
    ) -> Result<(), SessionError> {
        let saved = match core.poll_save() {
            Some(point) => self.saver.save(core, point)?,
            None => None,
        };
        let mut lost = None;
        while lost.is_none()
            && let Some(transmit) = core.poll_transmit()
        {
            lost = self.link.send(transmit).await.err();
        }
        if lost.is_none() {
            lost = self.link.flush().await.err();
        }
        if let Some(output) = saved {
            front.show(output, core.engine())?;
        }
        while let Some(output) = core.poll_output() {
            front.show(output, core.engine())?;
        }
        while let Some(request) = core.poll_file() {
            if let Some(answer) = disk::perform(request) {
                core.handle(Input::File(answer), Instant::now());
            }
        }
        if let Some(reason) = lost {
            // A dropped socket is not the end of the game: the channel still holds every unacknowledged frame,
            // and resends them once the seat is resumed and paired.
            core.handle(Input::Lost(reason), Instant::now());
            while let Some(output) = core.poll_output() {
                front.show(output, core.engine())?;
            }
        }
        while let Some(action) = core.poll_link() {
            let url = core.relay().url.clone();
            self.link.act(action, &url, &self.tls).await;
        }
        self.drain_watch(core, front).await
    }

    /// Does what the core queued for the watch link: its actions, then the spectators' frames.
    async fn drain_watch<G: Group, F: Frontend>(
        &mut self,
        core: &mut SessionCore<G>,
        front: &mut F,
    ) -> Result<(), SessionError> {
        while let Some(action) = core.poll_watch_link() {
            self.watch.act(action, &core.relay().url, &self.tls);
        }
        while let Some(frame) = core.poll_watch_frame() {
            if let Some(lost) = self.watch.send(frame).await {
                core.handle(lost, Instant::now());
                while let Some(output) = core.poll_output() {
                    front.show(output, core.engine())?;
                }
            }
        }
        Ok(())
    }
}
