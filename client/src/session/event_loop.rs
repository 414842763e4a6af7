//! The loop itself: one task selects over the player's commands, the relay link (its frames, or the
//! reconnection under way) and a ticker, then moves what came in through the engine and the channel.

use std::time::Duration;

use super::error::SessionError;
use super::frontend::Frontend;
use super::link::LinkEvent;
use super::state::{Flow, Session};

/// How often the loop wakes with nothing else to do: for `quit`'s grace and the wait clock.
const TICK: Duration = Duration::from_millis(100);

impl Session {
    /// Runs until `quit` (or the end of the input), or a fatal error.
    pub async fn run<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        let mut ticker = tokio::time::interval(TICK);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                line = front.next_line(), if !self.input_done => self.take_line(line),
                event = self.link.next() => match event {
                    LinkEvent::Frame(frame) => self.handle_relay(frame, front).await?,
                    LinkEvent::Attempt(outcome) => self.attempted(outcome, front)?,
                },
                _ = ticker.tick() => {}
            }
            self.pump(front).await?;
            self.show_browsing(front)?;
            self.watch_top(front)?;
            if let Flow::Quit = self.run_queue(front).await? {
                return Ok(());
            }
            self.time_wait(front)?;
        }
    }

    /// Times the engine's wait on the opponent, and the opponent's absence. They count once the opponent
    /// proved the code (before, the status already says who is missing) and while the game goes on.
    fn time_wait<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        let counts = self.channel.is_established() && self.engine.halted().is_none() && !self.engine.is_ended();
        let awaited = self.engine.awaiting_opponent().filter(|_| counts);
        let now = tokio::time::Instant::now();
        for news in self.wait_clock.observe(awaited, now) {
            front.show(news.into(), &self.engine)?;
        }
        for news in self.absence.observe(counts, now) {
            front.show(news.into(), &self.engine)?;
        }
        Ok(())
    }
}
