//! The handshake: `HELLO` (SPAKE2) and `CONFIRM`, and starting it again for another peer.

use super::keys::{Keys, constant_time_eq, derive_keys};
use super::{CONFIRM_LEN, Channel, ChannelError, HELLO_LEN, Handshake, Side, T_CONFIRM, VERSION};

impl Channel {
    /// Starts the key exchange again, for another peer (a host whose guest had a wrong code), with these words
    /// and nameplate, keeping the messages queued for the peer: until a peer proved the code none of them has
    /// left this side. A failed channel is usable again. Once established, the channel is kept as it is.
    pub fn restart_handshake(&mut self, code_words: &str, nameplate: &str, rng_seed: [u8; 32]) {
        if self.is_established() {
            return;
        }
        let mut fresh = Channel::new(self.side, code_words, nameplate, rng_seed);
        fresh.max_frame = self.max_frame;
        fresh.max_message = self.max_message;
        fresh.to_send = std::mem::take(&mut self.to_send);
        *self = fresh;
    }

    pub(super) fn handle_hello(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        if bytes.len() != HELLO_LEN {
            return Err(ChannelError::Malformed("HELLO has the wrong length"));
        }
        if let Some(previous) = &self.peer_hello {
            // A resend after a reconnection is identical; anything else is a second, different exchange.
            return if previous.as_slice() == bytes { Ok(()) } else { Err(ChannelError::HandshakeChanged("HELLO")) };
        }
        if bytes[1] != VERSION {
            return Err(ChannelError::Malformed("unsupported channel version"));
        }
        let peer_side = match bytes[2] {
            0 => Side::Host,
            1 => Side::Guest,
            _ => return Err(ChannelError::Malformed("HELLO names an unknown side")),
        };
        if peer_side == self.side {
            return Err(ChannelError::Malformed("both players claim the same side"));
        }
        let Some(Handshake::Started(spake)) = self.handshake.take() else {
            return Err(ChannelError::Malformed("HELLO out of place"));
        };
        let key =
            spake.finish(&bytes[3..]).map_err(|_| ChannelError::Malformed("HELLO has an invalid SPAKE2 message"))?;
        let (raw, my_confirm) = derive_keys(&key, self.side);
        let keys = Keys::new(raw, &self.run);
        let mut confirm = Vec::with_capacity(CONFIRM_LEN);
        confirm.push(T_CONFIRM);
        confirm.extend_from_slice(&my_confirm);
        self.keys = Some(keys);
        self.peer_hello = Some(bytes.to_vec());
        self.my_confirm = Some(confirm.clone());
        self.out.push_back(confirm);
        self.handshake = Some(Handshake::Confirming);
        Ok(())
    }

    pub(super) fn handle_confirm(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        if bytes.len() != CONFIRM_LEN {
            return Err(ChannelError::Malformed("CONFIRM has the wrong length"));
        }
        let Some(keys) = &self.keys else {
            // The peer's HELLO was lost on the way; it resends both after a reconnection.
            return Ok(());
        };
        let matches = constant_time_eq(&bytes[1..], &keys.raw.peer_confirm);
        match (&self.handshake, matches) {
            (Some(Handshake::Confirming), true) => {
                self.handshake = Some(Handshake::Established);
                self.seal_queued();
                Ok(())
            }
            (Some(Handshake::Confirming), false) => Err(ChannelError::WrongCode),
            (Some(Handshake::Established), true) => Ok(()),
            _ => Err(ChannelError::HandshakeChanged("CONFIRM")),
        }
    }
}
