//! Sending: messages cut into fragments and sealed into data frames, the send window, acks, resending.

use chacha20poly1305::aead::{Aead, Payload};

use super::keys::nonce;
use super::receive::header_u64;
use super::{
    ACK_AT, ACK_AT_THE_LATEST, Channel, ChannelError, FLAG_LAST, HEADER_LEN, OwedAck, SEND_WINDOW_BYTES,
    SEND_WINDOW_FRAMES, T_ACK, T_DATA, TAG_LEN,
};

impl Channel {
    /// Bytes of the data frames given to the relay and not yet acknowledged by the peer.
    fn in_flight_bytes(&self) -> usize {
        let in_flight = usize::try_from(self.transmitted - self.acked).unwrap_or(usize::MAX);
        self.unacked.iter().take(in_flight).map(Vec::len).sum()
    }

    /// Queues a message for the peer. Before the channel is established it waits (unencrypted, in memory);
    /// it is only ever sent encrypted to a peer that proved it knows the code. Once established it is sealed
    /// into data frames at once.
    pub fn send(&mut self, message: Vec<u8>) -> Result<(), ChannelError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if message.len() > self.max_message {
            return Err(ChannelError::MessageTooLarge { size: message.len(), limit: self.max_message });
        }
        let chunk_len = self.max_frame - HEADER_LEN - TAG_LEN - 1;
        let mut chunks = message.chunks(chunk_len).peekable();
        if chunks.peek().is_none() {
            self.to_send.push_back(vec![FLAG_LAST]);
        }
        while let Some(chunk) = chunks.next() {
            let flags = if chunks.peek().is_none() { FLAG_LAST } else { 0 };
            let mut fragment = Vec::with_capacity(1 + chunk.len());
            fragment.push(flags);
            fragment.extend_from_slice(chunk);
            self.to_send.push_back(fragment);
        }
        self.seal_queued();
        Ok(())
    }

    /// Once established, seals every waiting fragment into a numbered data frame.
    pub(super) fn seal_queued(&mut self) {
        if !self.is_established() {
            return;
        }
        while let Some(fragment) = self.to_send.pop_front() {
            let frame = self.seal(T_DATA, self.next_seq, &fragment);
            self.next_seq += 1;
            self.unacked.push_back(frame);
        }
    }

    /// The next frame to give the relay, if any.
    pub fn poll_frame(&mut self) -> Option<Vec<u8>> {
        self.poll_data_frame().or_else(|| self.poll_ack())
    }

    /// The next handshake or data frame to send, never a standalone ack: a data frame carries the ack of
    /// the moment it was sealed. For a side that holds its acks back to let them ride on its next message
    /// ([`owes_ack`](Self::owes_ack), [`poll_ack`](Self::poll_ack)).
    pub fn poll_data_frame(&mut self) -> Option<Vec<u8>> {
        if let Some(frame) = self.out.pop_front() {
            return Some(frame);
        }
        if let Some(next) = self.next_in_window() {
            let frame = next.to_vec();
            self.transmitted += 1;
            // A frame sealed a while ago carries the ack of that moment: a fresher one may have to follow.
            let carried = header_u64(&frame, ACK_AT);
            self.last_ack_sent = self.last_ack_sent.max(carried);
            return Some(frame);
        }
        None
    }

    /// A standalone ack frame, if data frames were received since the last ack sent.
    pub fn poll_ack(&mut self) -> Option<Vec<u8>> {
        if self.owes_ack() == OwedAck::Nothing || self.failed.is_some() {
            return None;
        }
        let frame = self.seal(T_ACK, self.ack_counter, &[]);
        self.ack_counter += 1;
        self.last_ack_sent = self.recv_next;
        Some(frame)
    }

    /// Whether data frames received wait for an ack, and whether it may wait. The peer's window closes on
    /// what is unacknowledged: a message that comes in several frames, or many frames unacknowledged, are
    /// acknowledged at once; a lone message's ack may wait for this side's next data frame.
    pub fn owes_ack(&self) -> OwedAck {
        let owed = self.recv_next.saturating_sub(self.last_ack_sent);
        if owed == 0 || !self.is_established() {
            OwedAck::Nothing
        } else if !self.reassembly.is_empty() || owed >= ACK_AT_THE_LATEST {
            OwedAck::Now
        } else {
            OwedAck::MayWait
        }
    }

    /// Whether a data frame waits to be sent (in the send window), the handshake's frames included.
    pub fn has_data_frame(&self) -> bool {
        !self.out.is_empty() || self.next_in_window().is_some()
    }

    /// The next sealed data frame not yet given to the relay, if the send window lets it go.
    fn next_in_window(&self) -> Option<&[u8]> {
        if self.failed.is_some() || !self.is_established() {
            return None;
        }
        let index = usize::try_from(self.transmitted - self.acked).unwrap_or(usize::MAX);
        let next = self.unacked.get(index)?;
        let fits = self.transmitted < self.acked + SEND_WINDOW_FRAMES
            && (index == 0 || self.in_flight_bytes() + next.len() <= SEND_WINDOW_BYTES);
        fits.then_some(next.as_slice())
    }

    /// Re-emits, through [`poll_frame`](Self::poll_frame), every frame the peer may not have: the handshake
    /// until the peer proved it completed it, every unacknowledged data frame, and a fresh ack. Call it after
    /// reconnecting to the relay and on `peer_back`.
    pub fn resend_unacked(&mut self) {
        if self.failed.is_some() {
            return;
        }
        self.out.clear();
        if !self.peer_proved_established {
            self.out.push_back(self.my_hello.clone());
            if let Some(confirm) = &self.my_confirm {
                self.out.push_back(confirm.clone());
            }
        }
        self.transmitted = self.acked;
        // The resent frames carry old acks: make sure a current one follows.
        if self.recv_next > 0 {
            self.last_ack_sent = 0;
        }
    }

    pub(super) fn seal(&mut self, frame_type: u8, number: u64, plaintext: &[u8]) -> Vec<u8> {
        let keys = self.keys.as_ref().expect("sealing only once established");
        let mut frame = Vec::with_capacity(HEADER_LEN + plaintext.len() + TAG_LEN);
        frame.push(frame_type);
        frame.extend_from_slice(&self.run);
        frame.extend_from_slice(&number.to_be_bytes());
        frame.extend_from_slice(&self.recv_next.to_be_bytes());
        let ciphertext = keys
            .send
            .encrypt(&nonce(frame_type, number), Payload { msg: plaintext, aad: &frame })
            .expect("ChaCha20-Poly1305 encrypts any message below 256 GiB");
        frame.extend_from_slice(&ciphertext);
        frame
    }
}
