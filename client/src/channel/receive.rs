//! Receiving: a frame from the relay checked, opened and taken in order; acks taken; messages reassembled.

use chacha20poly1305::aead::{Aead, Payload};

use super::keys::nonce;
use super::{
    ACK_AT, Ahead, Channel, ChannelError, FLAG_LAST, HEADER_LEN, MAX_MESSAGE_BYTES, MAX_PEER_RUNS, NUMBER_AT, RunId,
    RunStart, T_ACK, T_CONFIRM, T_DATA, T_HELLO, TAG_LEN, WINDOW,
};

impl Channel {
    /// Processes one binary frame from the relay. Any error is fatal (see the module documentation).
    pub fn handle_frame(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = self.handle_frame_inner(bytes);
        if let Err(e) = &result {
            self.failed = Some(e.clone());
            // Nothing more goes out and nothing partial is delivered, except our CONFIRM after a wrong code,
            // so that the peer learns it too.
            let keep_confirm = *e == ChannelError::WrongCode;
            self.out.retain(|frame| keep_confirm && frame[0] == T_CONFIRM);
            // Before any peer proved the code nothing queued has left: it waits for `restart_handshake`.
            if self.is_established() {
                self.to_send.clear();
            }
            self.reassembly = Vec::new();
            self.ahead.clear();
        }
        result
    }

    fn handle_frame_inner(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        match bytes.first() {
            Some(&T_HELLO) => self.handle_hello(bytes),
            Some(&T_CONFIRM) => self.handle_confirm(bytes),
            Some(&T_DATA) => self.handle_data(bytes),
            Some(&T_ACK) => self.handle_ack(bytes),
            Some(_) => Err(ChannelError::Malformed("unknown frame type")),
            None => Err(ChannelError::Malformed("empty frame")),
        }
    }

    fn parse_header(bytes: &[u8]) -> Result<Header, ChannelError> {
        if bytes.len() < HEADER_LEN + TAG_LEN {
            return Err(ChannelError::Malformed("frame shorter than its header and tag"));
        }
        Ok(Header {
            run: bytes[1..NUMBER_AT].try_into().expect("16 bytes"),
            number: header_u64(bytes, NUMBER_AT),
            ack: header_u64(bytes, ACK_AT),
        })
    }

    fn handle_data(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        let Header { run, number: seq, ack } = Self::parse_header(bytes)?;
        if !self.is_established() {
            // Cannot be checked or trusted yet; the peer keeps it unacked and resends it.
            return Ok(());
        }
        if seq >= self.recv_next.saturating_add(WINDOW) {
            return Err(ChannelError::SequenceOutOfRange { seq, expected: self.recv_next });
        }
        // Authenticate even duplicates, so an altered retransmission is noticed too.
        let fragment =
            self.open(T_DATA, &run, seq, bytes).ok_or(ChannelError::Tampered { frame: "data", number: seq })?;
        if fragment.is_empty() || fragment[0] & !FLAG_LAST != 0 {
            return Err(ChannelError::Malformed("data fragment has invalid flags"));
        }
        // A number already taken must come again from the run that sealed it: the same frame, resent.
        let sealed_by = if seq < self.recv_next { self.run_of(seq) } else { self.ahead.get(&seq).map(|a| a.run) };
        if sealed_by.is_some_and(|sealed_by| sealed_by != run) {
            return Err(ChannelError::Forked { seq });
        }
        self.peer_proved_established = true;
        self.process_ack(ack)?;
        if sealed_by.is_some() {
            return Ok(());
        }
        if seq > self.recv_next {
            // Bounded: beyond this the frame is dropped and will come again with the peer's resend.
            if self.ahead_bytes + fragment.len() <= MAX_MESSAGE_BYTES {
                self.ahead_bytes += fragment.len();
                self.ahead.insert(seq, Ahead { run, ack, fragment });
            }
            return Ok(());
        }
        self.accept_fragment(Ahead { run, ack, fragment })?;
        while let Some(next) = self.ahead.remove(&self.recv_next) {
            self.ahead_bytes -= next.fragment.len();
            self.accept_fragment(next)?;
        }
        Ok(())
    }

    /// The run that sealed data frame `seq`, one already taken.
    fn run_of(&self, seq: u64) -> Option<RunId> {
        self.peer_runs.iter().rev().find(|start| start.seq <= seq).map(|start| start.run)
    }

    /// Takes the next data frame in order.
    fn accept_fragment(&mut self, Ahead { run, ack, fragment }: Ahead) -> Result<(), ChannelError> {
        if ack < self.peer_data_ack {
            return Err(ChannelError::AckWentBack { ack, before: self.peer_data_ack });
        }
        if self.peer_runs.last().is_none_or(|last| last.run != run) {
            // A run that stopped never seals again: a later run took over its numbers.
            if self.peer_runs.iter().any(|start| start.run == run) {
                return Err(ChannelError::Forked { seq: self.recv_next });
            }
            if self.peer_runs.len() >= MAX_PEER_RUNS {
                return Err(ChannelError::Malformed("the peer restarted its channel too many times"));
            }
            self.peer_runs.push(RunStart { seq: self.recv_next, run });
        }
        let size = self.reassembly.len() + fragment.len() - 1;
        if size > self.max_message {
            return Err(ChannelError::MessageTooLarge { size, limit: self.max_message });
        }
        self.peer_data_ack = ack;
        self.reassembly.extend_from_slice(&fragment[1..]);
        self.recv_next += 1;
        if fragment[0] & FLAG_LAST != 0 {
            self.delivered.push_back(std::mem::take(&mut self.reassembly));
            self.delivered_count += 1;
        }
        Ok(())
    }

    fn handle_ack(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        let Header { run, number: counter, ack } = Self::parse_header(bytes)?;
        if !self.is_established() {
            return Ok(());
        }
        let plaintext =
            self.open(T_ACK, &run, counter, bytes).ok_or(ChannelError::Tampered { frame: "ack", number: counter })?;
        if !plaintext.is_empty() {
            return Err(ChannelError::Malformed("ack frame carries data"));
        }
        self.peer_proved_established = true;
        if counter < self.peer_ack_next {
            // Replayed or overtaken: a later ack frame said at least as much.
            return Ok(());
        }
        if ack < self.peer_ack_latest {
            return Err(ChannelError::AckWentBack { ack, before: self.peer_ack_latest });
        }
        self.peer_ack_next = counter.saturating_add(1);
        self.peer_ack_latest = ack;
        self.process_ack(ack)
    }

    fn process_ack(&mut self, ack: u64) -> Result<(), ChannelError> {
        if ack > self.next_seq {
            return Err(ChannelError::BadAck { ack, sent: self.next_seq });
        }
        // Older acks come with retransmissions: only a higher one moves anything.
        while self.acked < ack {
            self.unacked.pop_front();
            self.acked += 1;
        }
        // After a restore the peer may acknowledge frames this process has not given the relay yet.
        self.transmitted = self.transmitted.max(self.acked);
        Ok(())
    }

    pub(super) fn open(&mut self, frame_type: u8, run: &RunId, number: u64, frame: &[u8]) -> Option<Vec<u8>> {
        let keys = self.keys.as_mut()?;
        let (header, ciphertext) = frame.split_at(HEADER_LEN);
        keys.recv(run).decrypt(&nonce(frame_type, number), Payload { msg: ciphertext, aad: header }).ok()
    }
}

/// A data or ack frame's clear header.
struct Header {
    run: RunId,
    number: u64,
    ack: u64,
}

pub(super) fn header_u64(frame: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(frame[at..at + 8].try_into().expect("a frame checked to hold its header"))
}
