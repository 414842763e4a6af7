//! What the core asks of its driver, in the order the driver does it: the save point, the sends to the relay, the
//! shows, the files, the link's and the watch link's actions ([`Outbox`]). The core's `poll_*` drain it.

use std::collections::VecDeque;

use fairdeck_relay_protocol::ClientMessage;

use super::claim::{LinkAction, WatchAction};
use super::files::FileRequest;
use super::frontend::Output;

/// A save point: the engine and the channel settled, and whether anything is about to leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SavePoint {
    /// Frames leave after it (to the opponent or to spectators): everything they follow from is saved first.
    Sending,
    /// Nothing leaves: what came in may wait for the next save (the opponent keeps every frame until it is
    /// acknowledged, and this side acknowledges only what is saved); where the game stands is saved now.
    Settled,
}

/// What goes to the relay on the link that is up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ToRelay {
    /// A frame of the end-to-end channel.
    Frame(Vec<u8>),
    Control(ClientMessage),
}

/// The queues of what the driver is to do, and whether to save.
#[derive(Default)]
pub(super) struct Outbox {
    save_due: Option<SavePoint>,
    transmits: VecDeque<ToRelay>,
    outputs: VecDeque<Output>,
    files: VecDeque<FileRequest>,
    link_actions: VecDeque<LinkAction>,
    watch_actions: VecDeque<WatchAction>,
}

impl Outbox {
    /// A save point reached: the last one asked for is the one the driver saves at.
    pub fn save(&mut self, point: SavePoint) {
        self.save_due = Some(point);
    }

    pub fn transmit(&mut self, transmit: ToRelay) {
        self.transmits.push_back(transmit);
    }

    /// Drops what was queued for a connection that is gone.
    pub fn drop_transmits(&mut self) {
        self.transmits.clear();
    }

    pub fn show(&mut self, output: Output) {
        self.outputs.push_back(output);
    }

    pub fn file(&mut self, request: FileRequest) {
        self.files.push_back(request);
    }

    pub fn link(&mut self, action: LinkAction) {
        self.link_actions.push_back(action);
    }

    pub fn watch(&mut self, action: WatchAction) {
        self.watch_actions.push_back(action);
    }

    pub fn poll_save(&mut self) -> Option<SavePoint> {
        self.save_due.take()
    }

    pub fn poll_transmit(&mut self) -> Option<ToRelay> {
        self.transmits.pop_front()
    }

    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    pub fn poll_file(&mut self) -> Option<FileRequest> {
        self.files.pop_front()
    }

    pub fn poll_link(&mut self) -> Option<LinkAction> {
        self.link_actions.pop_front()
    }

    pub fn poll_watch(&mut self) -> Option<WatchAction> {
        self.watch_actions.pop_front()
    }
}
