//! The registry: what finds a room (its id, nameplate, tokens, rendezvous id, watch nameplates).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::{Nameplates, Room, RoomState, Seat, Stamp, TokenHash, watch};

#[derive(Debug)]
pub(super) struct Registry {
    /// Every open room, by internal id.
    pub(super) rooms: HashMap<u64, Arc<Room>>,
    /// Rooms waiting for a guest, by nameplate.
    pub(super) waiting: HashMap<u32, Arc<Room>>,
    /// Rooms by the hashes of their seats' tokens.
    pub(super) tokens: HashMap<TokenHash, Arc<Room>>,
    /// Rendezvous rooms by their id.
    pub(super) rendezvous: HashMap<[u8; 32], Arc<Room>>,
    /// Watch nameplates: the room and the player seat whose spectators they let in.
    pub(super) watching: HashMap<u32, (Arc<Room>, usize)>,
    /// Numbers in use, waiting rooms' and watch nameplates alike, so that neither names the other.
    pub(super) nameplates: Nameplates,
    /// Whether this relay offers watch seats at all.
    pub(super) watch_seats: bool,
    pub(super) next_id: u64,
}

impl Registry {
    pub(super) fn new() -> Registry {
        Registry {
            rooms: HashMap::new(),
            waiting: HashMap::new(),
            tokens: HashMap::new(),
            rendezvous: HashMap::new(),
            watching: HashMap::new(),
            nameplates: Nameplates::default(),
            watch_seats: false,
            next_id: 1,
        }
    }

    /// A new room of `seats` empty seats, not yet registered anywhere. Rooms of two offer watch seats.
    pub(super) fn new_room(
        &mut self,
        now: Stamp,
        waiting_until: Instant,
        seats: usize,
        rendezvous: Option<[u8; 32]>,
        reserved: Option<u64>,
    ) -> Arc<Room> {
        let id = reserved.filter(|id| !self.rooms.contains_key(id)).unwrap_or_else(|| {
            self.next_id += 1;
            self.next_id - 1
        });
        Arc::new(Room {
            id,
            state: Mutex::new(RoomState {
                seats: (0..seats).map(|_| Seat::Empty).collect(),
                nameplate: None,
                last_nameplate: None,
                created_at: now.at,
                created_ms: now.unix_ms,
                paired_ms: None,
                waiting_until,
                traffic: vec![(0, 0); seats],
                resumes: 0,
                crowded: false,
                scary: false,
                errored: false,
                next_hold_id: 0,
                ended: false,
                rendezvous,
                watch: watch::Watch::new(self.watch_seats && seats == 2),
            }),
        })
    }

    /// Lists `room` under a nameplate: `preferred` if it is free, else the smallest free one.
    pub(super) fn list(&mut self, room: &Arc<Room>, preferred: Option<u32>) -> u32 {
        let nameplate = match preferred.filter(|n| self.nameplates.is_free(*n)) {
            Some(nameplate) => {
                self.nameplates.claim(nameplate);
                nameplate
            }
            None => self.nameplates.allocate(),
        };
        self.waiting.insert(nameplate, room.clone());
        nameplate
    }

    /// Removes `room` from the nameplate list, if it is listed under `nameplate`.
    pub(super) fn unlist(&mut self, room: &Arc<Room>, nameplate: u32) {
        if self.waiting.get(&nameplate).is_some_and(|r| Arc::ptr_eq(r, room)) {
            self.waiting.remove(&nameplate);
            self.nameplates.release(nameplate);
        }
    }

    /// Forgets a token hash, if it leads to `room`.
    pub(super) fn forget_token(&mut self, room: &Arc<Room>, token: &TokenHash) {
        if self.tokens.get(token).is_some_and(|r| Arc::ptr_eq(r, room)) {
            self.tokens.remove(token);
        }
    }
}
