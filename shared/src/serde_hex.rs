//! Byte strings in serde: a hex string in human-readable formats (JSON: journals, saved games),
//! raw bytes in binary ones. Group elements and scalars go through these too
//! (`crypto::encoding`), then through their group's validating decoder.

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

pub(crate) fn serialize_bytes<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        serializer.serialize_str(&hex::encode(bytes))
    } else {
        serializer.serialize_bytes(bytes)
    }
}

pub(crate) fn deserialize_bytes<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    struct BytesVisitor;
    impl<'de> Visitor<'de> for BytesVisitor {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a hex string or a byte string")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
            hex::decode(v).map_err(|_| E::custom("not valid hexadecimal"))
        }
        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }
        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            // Bounded by what the sender actually sent: no size hint is trusted.
            let mut out = Vec::new();
            while let Some(byte) = seq.next_element::<u8>()? {
                out.push(byte);
            }
            Ok(out)
        }
    }
    if deserializer.is_human_readable() {
        deserializer.deserialize_str(BytesVisitor)
    } else {
        deserializer.deserialize_bytes(BytesVisitor)
    }
}

/// Variable-length byte strings as hex (JSON) or bytes.
pub mod vec {
    /// A byte string as hex (JSON) or bytes (binary).
    pub fn serialize<S: serde::Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        super::serialize_bytes(bytes, serializer)
    }
    /// A byte string from hex (JSON) or bytes (binary).
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        super::deserialize_bytes(deserializer)
    }
}

/// Fixed-size byte arrays as hex strings (JSON) or bytes (binary formats).
pub mod array {
    use serde::{Deserializer, Serializer};

    /// A byte array as hex (JSON) or bytes (binary).
    pub fn serialize<S: Serializer, const N: usize>(bytes: &[u8; N], serializer: S) -> Result<S::Ok, S::Error> {
        super::serialize_bytes(bytes, serializer)
    }

    /// A byte array from hex (JSON) or bytes (binary), of exactly `N` bytes.
    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(deserializer: D) -> Result<[u8; N], D::Error> {
        let bytes = super::deserialize_bytes(deserializer)?;
        let len = bytes.len();
        bytes.try_into().map_err(|_| serde::de::Error::custom(format_args!("expected {N} bytes, got {len}")))
    }
}
