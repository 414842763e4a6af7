//! ristretto255 (RFC 9496) via curve25519-dalek: the default suite.

use std::hash::{Hash, Hasher};

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{Identity, IsIdentity, MultiscalarMul, VartimeMultiscalarMul};
use rand_core::CryptoRng;
use sha2::{Digest, Sha512};
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

use super::group::{DecodeError, Group, Suite};
use super::oblivious;

/// The ristretto255 suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ristretto255;

/// A validated ristretto255 element, kept with its canonical encoding (used for hashing,
/// equality and sending, so it is computed once).
#[derive(Clone, Copy)]
pub struct RistrettoElement {
    point: RistrettoPoint,
    encoded: [u8; 32],
}

impl RistrettoElement {
    fn new(point: RistrettoPoint) -> Self {
        RistrettoElement { point, encoded: point.compress().to_bytes() }
    }
}

impl PartialEq for RistrettoElement {
    fn eq(&self, other: &Self) -> bool {
        self.encoded == other.encoded
    }
}
impl Eq for RistrettoElement {}
impl Hash for RistrettoElement {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.encoded.hash(state);
    }
}
impl std::fmt::Debug for RistrettoElement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "R({})", hex::encode(&self.encoded[..8]))
    }
}

/// Picks the point and its encoding together; a choice between two validated elements is one.
impl ConditionallySelectable for RistrettoElement {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        RistrettoElement {
            point: RistrettoPoint::conditional_select(&a.point, &b.point, choice),
            encoded: <[u8; 32]>::conditional_select(&a.encoded, &b.encoded, choice),
        }
    }
}

/// A scalar modulo the ristretto255 group order.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RistrettoScalar(Scalar);

impl ConditionallySelectable for RistrettoScalar {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        RistrettoScalar(Scalar::conditional_select(&a.0, &b.0, choice))
    }
}

impl Group for Ristretto255 {
    type Element = RistrettoElement;
    type Scalar = RistrettoScalar;

    const SUITE: Suite = Suite::Ristretto255;
    const ELEMENT_LEN: usize = 32;
    const SCALAR_LEN: usize = 32;

    fn generator() -> RistrettoElement {
        RistrettoElement {
            point: curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT,
            encoded: curve25519_dalek::constants::RISTRETTO_BASEPOINT_COMPRESSED.to_bytes(),
        }
    }

    fn hash_to_element(input: &[u8]) -> RistrettoElement {
        let mut wide = [0u8; 64];
        wide.copy_from_slice(
            &Sha512::new().chain_update(b"fairdeck/v1/ristretto255/hash-to-element").chain_update(input).finalize(),
        );
        RistrettoElement::new(RistrettoPoint::from_uniform_bytes(&wide))
    }

    fn random_scalar<R: CryptoRng + ?Sized>(rng: &mut R) -> RistrettoScalar {
        loop {
            let mut wide = [0u8; 64];
            rng.fill_bytes(&mut wide);
            let scalar = Scalar::from_bytes_mod_order_wide(&wide);
            wide.zeroize();
            if scalar != Scalar::ZERO {
                return RistrettoScalar(scalar);
            }
        }
    }

    fn scalar_from_wide(bytes: &[u8; 64]) -> RistrettoScalar {
        RistrettoScalar(Scalar::from_bytes_mod_order_wide(bytes))
    }

    fn scalar_from_u128(value: u128) -> RistrettoScalar {
        RistrettoScalar(Scalar::from(value))
    }

    fn scalar_add(a: &RistrettoScalar, b: &RistrettoScalar) -> RistrettoScalar {
        RistrettoScalar(a.0 + b.0)
    }

    fn scalar_mul(a: &RistrettoScalar, b: &RistrettoScalar) -> RistrettoScalar {
        RistrettoScalar(a.0 * b.0)
    }

    fn scalar_neg(a: &RistrettoScalar) -> RistrettoScalar {
        RistrettoScalar(-a.0)
    }

    fn scalar_invert(a: &RistrettoScalar) -> Option<RistrettoScalar> {
        (a.0 != Scalar::ZERO).then(|| RistrettoScalar(a.0.invert()))
    }

    fn wipe_scalar(a: &mut RistrettoScalar) {
        a.0.zeroize();
    }

    fn mul(element: &RistrettoElement, scalar: &RistrettoScalar) -> RistrettoElement {
        RistrettoElement::new(element.point * scalar.0)
    }

    fn mul_generator(scalar: &RistrettoScalar) -> RistrettoElement {
        RistrettoElement::new(RistrettoPoint::mul_base(&scalar.0))
    }

    fn add(a: &RistrettoElement, b: &RistrettoElement) -> RistrettoElement {
        RistrettoElement::new(a.point + b.point)
    }

    fn vartime_multi_mul(scalars: &[RistrettoScalar], elements: &[&RistrettoElement]) -> RistrettoElement {
        RistrettoElement::new(RistrettoPoint::vartime_multiscalar_mul(
            scalars.iter().map(|s| s.0),
            elements.iter().map(|e| e.point),
        ))
    }

    fn multi_mul(scalars: &[RistrettoScalar], elements: &[&RistrettoElement]) -> RistrettoElement {
        RistrettoElement::new(RistrettoPoint::multiscalar_mul(
            scalars.iter().map(|s| s.0),
            elements.iter().map(|e| e.point),
        ))
    }

    fn select_element(table: &[RistrettoElement], index: u16) -> Option<RistrettoElement> {
        oblivious::select(table, index)
    }

    fn select_scalar(table: &[RistrettoScalar], index: u16) -> Option<RistrettoScalar> {
        oblivious::select(table, index)
    }

    fn vartime_multi_mul_is_identity(scalars: &[RistrettoScalar], elements: &[&RistrettoElement]) -> bool {
        RistrettoPoint::vartime_multiscalar_mul(scalars.iter().map(|s| s.0), elements.iter().map(|e| e.point))
            .is_identity()
    }

    fn encode_element(element: &RistrettoElement) -> Vec<u8> {
        element.encoded.to_vec()
    }

    fn decode_element(bytes: &[u8]) -> Result<RistrettoElement, DecodeError> {
        let encoded: [u8; 32] =
            bytes.try_into().map_err(|_| DecodeError::Length { expected: 32, actual: bytes.len() })?;
        // Ristretto decoding accepts only canonical encodings of prime-order group elements,
        // so there is no small-order or torsion component left to check.
        let point = CompressedRistretto(encoded).decompress().ok_or(DecodeError::NonCanonical)?;
        if point == RistrettoPoint::identity() {
            return Err(DecodeError::Identity);
        }
        Ok(RistrettoElement { point, encoded })
    }

    fn encode_scalar(scalar: &RistrettoScalar) -> Vec<u8> {
        scalar.0.to_bytes().to_vec()
    }

    fn decode_scalar(bytes: &[u8]) -> Result<RistrettoScalar, DecodeError> {
        let encoded: [u8; 32] =
            bytes.try_into().map_err(|_| DecodeError::Length { expected: 32, actual: bytes.len() })?;
        Option::from(Scalar::from_canonical_bytes(encoded)).map(RistrettoScalar).ok_or(DecodeError::ScalarOutOfRange)
    }
}

super::encoding::serde_via_group!(RistrettoElement, Ristretto255, decode_element, encode_element);
super::encoding::serde_via_group!(RistrettoScalar, Ristretto255, decode_scalar, encode_scalar);
