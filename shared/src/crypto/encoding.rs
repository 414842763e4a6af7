//! Wire encoding of group elements and scalars: a hex string in human-readable formats
//! (JSON), raw bytes in binary ones. Decoding always goes through the group's validating
//! decoder, so a deserialized element is a valid one.

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
pub mod hex_vec {
    pub fn serialize<S: serde::Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        super::serialize_bytes(bytes, serializer)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        super::deserialize_bytes(deserializer)
    }
}

/// Implements Serialize/Deserialize for a group's element or scalar type through the
/// group's encoder and validating decoder.
macro_rules! serde_via_group {
    ($ty:ty, $group:ty, $decode:ident, $encode:ident) => {
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::crypto::encoding::serialize_bytes(&<$group as $crate::crypto::Group>::$encode(self), serializer)
            }
        }
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let bytes = $crate::crypto::encoding::deserialize_bytes(deserializer)?;
                <$group as $crate::crypto::Group>::$decode(&bytes).map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use serde_via_group;
