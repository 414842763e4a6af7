//! Wire encoding of group elements and scalars: a hex string in human-readable formats
//! (JSON), raw bytes in binary ones (`crate::serde_hex`). Decoding always goes through the
//! group's validating decoder, so a deserialized element is a valid one.

use serde::de::{self, Deserialize, Deserializer};

use super::Group;

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

/// Lists of elements read whole, then decoded together by [`Group::decode_elements`] (modp2048 shares a long list
/// among the cores): `#[serde(deserialize_with = "crate::crypto::encoding::elements::<G, _>")]` on a list's field.
/// The encoding is a list of elements', as without it.
pub(crate) fn elements<'de, G: Group, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<G::Element>, D::Error> {
    let encodings: Vec<Encoding> = Vec::deserialize(deserializer)?;
    let encodings: Vec<Vec<u8>> = encodings.into_iter().map(|Encoding(bytes)| bytes).collect();
    G::decode_elements(&encodings).map_err(de::Error::custom)
}

/// As [`elements`], for a list of elements each paired with a value of its own (a card's back).
pub(crate) fn elements_with<'de, G: Group, T: Deserialize<'de>, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<(G::Element, T)>, D::Error> {
    let pairs: Vec<(Encoding, T)> = Vec::deserialize(deserializer)?;
    let (encodings, values): (Vec<Vec<u8>>, Vec<T>) =
        pairs.into_iter().map(|(Encoding(bytes), value)| (bytes, value)).unzip();
    Ok(G::decode_elements(&encodings).map_err(de::Error::custom)?.into_iter().zip(values).collect())
}

/// An element's bytes, not yet decoded.
struct Encoding(Vec<u8>);

impl<'de> Deserialize<'de> for Encoding {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::serde_hex::deserialize_bytes(deserializer).map(Encoding)
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use crate::crypto::{BackId, DecodeError, Group, Modp2048, Ristretto255};

    #[derive(Serialize, Deserialize)]
    #[serde(bound = "")]
    struct Lists<G: Group> {
        #[serde(deserialize_with = "super::elements::<G, _>")]
        plain: Vec<G::Element>,
        #[serde(deserialize_with = "super::elements_with::<G, _, _>")]
        paired: Vec<(G::Element, BackId)>,
    }

    /// Lists read whole decode to what `decode_element` gives each item, in both encodings, and a list with bad
    /// items fails with the first of them, however the list is shared among the cores.
    fn lists_decode_as_their_items<G: Group>(not_an_element: Vec<u8>) {
        let elements: Vec<G::Element> = (0..40u32).map(|i| G::hash_to_element(&i.to_be_bytes())).collect();
        let lists = Lists::<G> {
            plain: elements.clone(),
            paired: elements.iter().cloned().zip((0..40).map(|i| i % 3)).collect(),
        };
        let json: Lists<G> = serde_json::from_str(&serde_json::to_string(&lists).unwrap()).unwrap();
        let binary: Lists<G> = crate::codec::decode_exact(&crate::codec::encode(&lists)).unwrap();
        for read in [json, binary] {
            assert_eq!((read.plain, read.paired), (lists.plain.clone(), lists.paired.clone()));
        }

        let mut encodings: Vec<Vec<u8>> = elements.iter().map(G::encode_element).collect();
        assert_eq!(G::decode_elements(&encodings).unwrap(), elements);
        encodings[33] = vec![7; 3];
        assert_eq!(G::decode_elements(&encodings), Err(DecodeError::Length { expected: G::ELEMENT_LEN, actual: 3 }));
        encodings[21] = not_an_element.clone();
        let expected = G::decode_element(&not_an_element).unwrap_err();
        assert_eq!(G::decode_elements(&encodings), Err(expected.clone()));

        let mut tampered = serde_json::to_value(&lists).unwrap();
        tampered["paired"][39][0] = serde_json::Value::String(hex::encode(&not_an_element));
        let error = serde_json::from_value::<Lists<G>>(tampered).err().expect("a bad element is refused");
        assert!(error.to_string().contains(&expected.to_string()), "{error}");
    }

    #[test]
    fn ristretto255_lists_decode_as_their_items() {
        // Not the encoding of any point.
        lists_decode_as_their_items::<Ristretto255>(vec![0xff; 32]);
    }

    #[test]
    fn modp2048_lists_decode_as_their_items() {
        // p − 2 is below p − 1 but −2 is not a quadratic residue (p ≡ 7 mod 8 makes 2 one, and −1 is none).
        lists_decode_as_their_items::<Modp2048>((&*crate::crypto::modp::P - 2u32).to_bytes_be());
    }
}
