//! ristretto255 (RFC 9496) via curve25519-dalek: the default suite.

use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{Identity, IsIdentity, MultiscalarMul, VartimeMultiscalarMul};
use rand_core::CryptoRng;
use sha2::{Digest, Sha512};
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

use super::group::{DecodeError, Group, Suite};
use super::oblivious;
use super::parallel;

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
        let mut chosen = *a;
        chosen.conditional_assign(b, choice);
        chosen
    }

    /// In place, and the encoding a word at a time: a shuffle's scans make thousands of these, and a new element
    /// each, its encoding chosen a byte at a time, cost several times as much.
    fn conditional_assign(&mut self, other: &Self, choice: Choice) {
        self.point.conditional_assign(&other.point, choice);
        for (mine, theirs) in self.encoded.chunks_exact_mut(8).zip(other.encoded.chunks_exact(8)) {
            let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("a chunk of eight bytes"));
            mine.copy_from_slice(&u64::conditional_select(&word(mine), &word(theirs), choice).to_le_bytes());
        }
    }
}

/// ½ modulo the group order, for `encoded_doubles`.
static HALF: LazyLock<Scalar> = LazyLock::new(|| Scalar::from(2u8).invert());

/// The fewest products a core takes of a batch shared among cores: about 0.3 ms of work, ten times what starting
/// a thread costs.
const MIN_CHUNK: usize = 16;

/// Σ scalarᵢ·elementᵢ by `multiscalar` (one of curve25519-dalek's multiscalar multiplications), the terms cut
/// among the cores and the partial sums added: the same point.
fn sum_of_products(
    scalars: &[RistrettoScalar],
    elements: &[&RistrettoElement],
    multiscalar: fn(&[Scalar], Vec<RistrettoPoint>) -> RistrettoPoint,
) -> RistrettoPoint {
    let partial = parallel::map_ranges(scalars.len().min(elements.len()), 2 * MIN_CHUNK, |range| {
        let mut chunk: Vec<Scalar> = scalars[range.clone()].iter().map(|s| s.0).collect();
        let sum = multiscalar(&chunk, elements[range].iter().map(|e| e.point).collect());
        chunk.zeroize();
        vec![sum]
    });
    partial.into_iter().fold(RistrettoPoint::identity(), |sum, point| sum + point)
}

/// The elements `2·Pᵢ` for the points `halves` (`Pᵢ`): curve25519-dalek encodes doubled points in one batch, sharing
/// one field inversion among them all, where encoding each alone costs an inverse square root (a fifth of a
/// scalar multiplication). Not secret: these elements are about to be sent. The batch's shared inversion would fail
/// on the identity, which no product made here is but by a discrete-log accident; it is encoded alone all the same.
fn encoded_doubles(halves: Vec<RistrettoPoint>) -> Vec<RistrettoElement> {
    if halves.iter().any(|half| half.is_identity()) {
        return halves.iter().map(|half| RistrettoElement::new(half + half)).collect();
    }
    let encoded = RistrettoPoint::double_and_compress_batch(&halves);
    halves
        .iter()
        .zip(encoded)
        .map(|(half, encoded)| RistrettoElement { point: half + half, encoded: encoded.to_bytes() })
        .collect()
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

    /// `G`'s product from its table (a third of a general product's time), both at half the scalar, then doubled
    /// and encoded in one batch (`encoded_doubles`).
    fn mul_generator_and(scalar: &RistrettoScalar, element: &RistrettoElement) -> [RistrettoElement; 2] {
        let mut half = scalar.0 * *HALF;
        let halves = vec![RistrettoPoint::mul_base(&half), element.point * half];
        half.zeroize();
        encoded_doubles(halves).try_into().expect("one element a half")
    }

    /// curve25519-dalek's double-base product, which takes `G`'s multiples from a table.
    fn vartime_mul_generator_plus(
        a: &RistrettoScalar,
        b: &RistrettoScalar,
        element: &RistrettoElement,
    ) -> RistrettoElement {
        RistrettoElement::new(RistrettoPoint::vartime_double_scalar_mul_basepoint(&b.0, &element.point, &a.0))
    }

    fn add(a: &RistrettoElement, b: &RistrettoElement) -> RistrettoElement {
        RistrettoElement::new(a.point + b.point)
    }

    fn vartime_multi_mul(scalars: &[RistrettoScalar], elements: &[&RistrettoElement]) -> RistrettoElement {
        RistrettoElement::new(sum_of_products(scalars, elements, |s, p| RistrettoPoint::vartime_multiscalar_mul(s, p)))
    }

    fn multi_mul(scalars: &[RistrettoScalar], elements: &[&RistrettoElement]) -> RistrettoElement {
        RistrettoElement::new(sum_of_products(scalars, elements, |s, p| RistrettoPoint::multiscalar_mul(s, p)))
    }

    fn select_element(table: &[RistrettoElement], index: u16) -> Option<RistrettoElement> {
        oblivious::select(table, index)
    }

    fn select_scalar(table: &[RistrettoScalar], index: u16) -> Option<RistrettoScalar> {
        oblivious::select(table, index)
    }

    fn vartime_multi_mul_is_identity(scalars: &[RistrettoScalar], elements: &[&RistrettoElement]) -> bool {
        sum_of_products(scalars, elements, |s, p| RistrettoPoint::vartime_multiscalar_mul(s, p)).is_identity()
    }

    /// Each product at half the scalar, then doubled and encoded in one batch (`encoded_doubles`) per core.
    fn mul_each(elements: &[RistrettoElement], scalar: &RistrettoScalar) -> Vec<RistrettoElement> {
        parallel::map_ranges(elements.len(), MIN_CHUNK, |range| {
            let mut half = scalar.0 * *HALF;
            let halves = elements[range].iter().map(|element| element.point * half).collect();
            half.zeroize();
            encoded_doubles(halves)
        })
    }

    /// Their halves, for `mul_generator_plus_each`.
    fn addends(elements: &[RistrettoElement]) -> Vec<RistrettoElement> {
        Self::mul_each(elements, &RistrettoScalar(*HALF))
    }

    /// Each sum at half its scalar (`G` at half the scalar plus the element's half), then doubled and encoded in
    /// one batch (`encoded_doubles`) per core.
    fn mul_generator_plus_each(scalars: &[RistrettoScalar], addends: &[RistrettoElement]) -> Vec<RistrettoElement> {
        parallel::map_ranges(scalars.len().min(addends.len()), MIN_CHUNK, |range| {
            let halves = scalars[range.clone()]
                .iter()
                .zip(&addends[range])
                .map(|(scalar, half_addend)| {
                    let mut half = scalar.0 * *HALF;
                    let sum = RistrettoPoint::mul_base(&half) + half_addend.point;
                    half.zeroize();
                    sum
                })
                .collect();
            encoded_doubles(halves)
        })
    }

    /// curve25519-dalek's constant-time fixed-base table, as `mul_base` uses for `G`: multiples of the base at every
    /// radix-16 digit place, so that a product costs additions only, no doublings.
    type FixedBase = RistrettoBasepointTable;

    fn fixed_base(base: &RistrettoElement) -> RistrettoBasepointTable {
        RistrettoBasepointTable::create(&base.point)
    }

    /// Each pair at half its scalars, then doubled and encoded in one batch (`encoded_doubles`) per core.
    fn mul_generator_and_fixed(
        xs: &[RistrettoScalar],
        ys: &[RistrettoScalar],
        table: &RistrettoBasepointTable,
    ) -> Vec<RistrettoElement> {
        parallel::map_ranges(xs.len().min(ys.len()), MIN_CHUNK, |range| {
            let halves = xs[range.clone()]
                .iter()
                .zip(&ys[range])
                .map(|(x, y)| {
                    let (mut x, mut y) = (x.0 * *HALF, y.0 * *HALF);
                    let half = RistrettoPoint::mul_base(&x) + &y * table;
                    x.zeroize();
                    y.zeroize();
                    half
                })
                .collect();
            encoded_doubles(halves)
        })
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

#[cfg(test)]
mod tests {
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    use super::*;

    type R = Ristretto255;

    /// The same points as one product at a time gives, each encoded as `compress` encodes it alone.
    fn assert_same(made: &[RistrettoElement], one_by_one: &[RistrettoElement]) {
        assert_eq!(made.len(), one_by_one.len());
        for (made, expected) in made.iter().zip(one_by_one) {
            assert_eq!(made.point, expected.point);
            assert_eq!(made.encoded, expected.encoded);
            assert_eq!(made.encoded, made.point.compress().to_bytes());
        }
    }

    #[test]
    fn a_selection_takes_the_point_and_its_encoding_whole() {
        let elements: Vec<RistrettoElement> = (0..5u32).map(|i| R::hash_to_element(&i.to_be_bytes())).collect();
        for (index, expected) in elements.iter().enumerate() {
            assert_same(&[R::select_element(&elements, index as u16).expect("in the table")], &[*expected]);
        }
        assert!(R::select_element(&elements, 5).is_none());
        let (a, b) = (elements[0], elements[1]);
        assert_same(&[RistrettoElement::conditional_select(&a, &b, Choice::from(0))], &[a]);
        assert_same(&[RistrettoElement::conditional_select(&a, &b, Choice::from(1))], &[b]);
    }

    #[test]
    fn the_tabulated_and_batched_products_are_the_general_ones() {
        let mut rng = ChaCha20Rng::from_seed([29; 32]);
        let base = R::hash_to_element(b"a fixed base");
        let table = R::fixed_base(&base);
        let elements: Vec<RistrettoElement> = (0..20u32).map(|i| R::hash_to_element(&i.to_be_bytes())).collect();
        let mut xs: Vec<RistrettoScalar> = (0..20).map(|_| R::random_scalar(&mut rng)).collect();
        let mut ys: Vec<RistrettoScalar> = (0..20).map(|_| R::random_scalar(&mut rng)).collect();
        // Zero, one and −1 among them; with x = y = 0 a product is the identity, which is encoded alone.
        let (zero, one) = (R::scalar_from_u128(0), R::scalar_from_u128(1));
        (xs[0], ys[1], xs[2], ys[2], xs[3]) = (zero, zero, one, R::scalar_neg(&one), R::scalar_neg(&one));
        let generator = R::generator();
        for (xs, ys) in [(&xs[..], &ys[..]), (&xs[2..], &ys[2..]), (&[zero, xs[5]][..], &[zero, ys[5]][..]), (&[], &[])]
        {
            let general: Vec<RistrettoElement> =
                xs.iter().zip(ys).map(|(x, y)| R::multi_mul(&[*x, *y], &[&generator, &base])).collect();
            assert_same(&R::mul_generator_and_fixed(xs, ys, &table), &general);
        }
        let sums: Vec<RistrettoElement> =
            xs.iter().zip(&elements).map(|(x, element)| R::add(&R::mul_generator(x), element)).collect();
        assert_same(&R::mul_generator_plus_each(&xs, &R::addends(&elements)), &sums);
        assert_same(&R::mul_generator_plus_each(&xs[..5], &R::addends(&elements)), &sums[..5]);
        for key in [R::random_scalar(&mut rng), one, zero] {
            let general: Vec<RistrettoElement> = elements.iter().map(|element| R::mul(element, &key)).collect();
            assert_same(&R::mul_each(&elements, &key), &general);
            assert_same(&R::mul_generator_and(&key, &base), &[R::mul_generator(&key), R::mul(&base, &key)]);
            let other = R::random_scalar(&mut rng);
            for (a, b) in [(key, other), (other, key)] {
                let general = R::vartime_multi_mul(&[a, b], &[&generator, &base]);
                assert_same(&[R::vartime_mul_generator_plus(&a, &b, &base)], &[general]);
            }
        }
    }
}
