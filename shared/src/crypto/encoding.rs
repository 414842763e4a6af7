//! Wire encoding of group elements and scalars: a hex string in human-readable formats
//! (JSON), raw bytes in binary ones (`crate::serde_hex`). Decoding always goes through the
//! group's validating decoder, so a deserialized element is a valid one.

/// Implements Serialize/Deserialize for a group's element or scalar type through the
/// group's encoder and validating decoder.
macro_rules! serde_via_group {
    ($ty:ty, $group:ty, $decode:ident, $encode:ident) => {
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::serde_hex::serialize_bytes(&<$group as $crate::crypto::Group>::$encode(self), serializer)
            }
        }
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let bytes = $crate::serde_hex::deserialize_bytes(deserializer)?;
                <$group as $crate::crypto::Group>::$decode(&bytes).map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use serde_via_group;
