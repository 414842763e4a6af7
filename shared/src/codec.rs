//! The binary encoding of everything that travels or is saved: envelopes, message bodies, journals, and the
//! table state a digest is taken of. postcard (docs/PROTOCOL.md, "Encoding and limits" says why).

use serde::{Deserialize, Serialize};

/// Decodes `T` from its binary encoding (postcard), all of it: bytes left over are an error,
/// so one body has one reading.
pub(crate) fn decode_exact<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, String> {
    match postcard::take_from_bytes(bytes) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(format!("{} bytes left over after the end", rest.len())),
        Err(error) => Err(unreadable(error).into()),
    }
}

/// What a decoding error means, in words: postcard's errors carry no detail (a group element's
/// validation error does not reach them).
pub(crate) fn unreadable(error: postcard::Error) -> &'static str {
    use postcard::Error as E;
    match error {
        E::DeserializeUnexpectedEnd => "cut short",
        E::DeserializeBadVarint => "a number out of range",
        E::DeserializeBadBool | E::DeserializeBadOption => "a flag neither 0 nor 1",
        E::DeserializeBadChar | E::DeserializeBadUtf8 => "text that is not UTF-8",
        E::SerdeDeCustom | E::DeserializeBadEnum => {
            "an invalid value (an unknown kind, or an element, scalar, length or dice out of bounds)"
        }
        _ => "not in the layout of this protocol version",
    }
}

/// The binary encoding (postcard) of a value whose every part serializes: envelopes, bodies
/// and journals hold plain data, byte strings and group elements, never a map or a float.
pub(crate) fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Cannot fail: postcard fails only on sequences of unknown length (serde's `collect_seq`
    // on iterators without one), and these types serialize vectors and fixed arrays only.
    postcard::to_stdvec(value).expect("plain data serializes")
}
