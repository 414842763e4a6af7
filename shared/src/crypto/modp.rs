//! The RFC 3526 2048-bit MODP group (group 14), restricted to its subgroup of quadratic
//! residues, of prime order q = (p−1)/2: the seed's "RSA modulo a prime" (SRA /
//! Pohlig–Hellman) at a size where discrete logs are out of reach.
//!
//! Arithmetic is num-bigint's, which is not constant-time and cannot wipe its memory; see
//! docs/CRYPTO.md for what that means for a player choosing this suite.

use std::sync::LazyLock;

use crypto_bigint::U2048;
use crypto_bigint::modular::ConstMontyForm;
use num_bigint::BigUint;
use num_modular::ModularSymbols;
use num_traits::{One, Zero};
use rand_core::CryptoRng;
use sha2::{Digest, Sha256};

use super::group::{DecodeError, Group, Suite};
use super::parallel;

const P_HEX: &str = concat!(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD1",
    "29024E088A67CC74020BBEA63B139B22514A08798E3404DD",
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245",
    "E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED",
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3D",
    "C2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F",
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D",
    "670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B",
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9",
    "DE2BCBF6955817183995497CEA956AE515D2261898FA0510",
    "15728E5A8AACAA68FFFFFFFFFFFFFFFF",
);

/// The prime's bytes, big-endian, decoded from [`P_HEX`] as the crate is compiled: a wrong digit or length
/// fails the build, so nothing is left to fail at run time.
const P_BYTES: [u8; LEN] = decode_hex(P_HEX);

/// Upper-case hexadecimal of exactly `LEN` bytes, for constants only (a bad input stops the build).
const fn decode_hex(hex: &str) -> [u8; LEN] {
    const fn digit(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("not an upper-case hexadecimal digit"),
        }
    }
    let hex = hex.as_bytes();
    assert!(hex.len() == 2 * LEN, "not LEN bytes of hexadecimal");
    let mut bytes = [0u8; LEN];
    let mut i = 0;
    while i < LEN {
        bytes[i] = digit(hex[2 * i]) << 4 | digit(hex[2 * i + 1]);
        i += 1;
    }
    bytes
}

/// The safe prime p = 2q + 1.
pub static P: LazyLock<BigUint> = LazyLock::new(|| BigUint::from_bytes_be(&P_BYTES));
/// The order of the quadratic-residue subgroup, (p − 1) / 2, itself prime.
pub static Q: LazyLock<BigUint> = LazyLock::new(|| (&*P - 1u32) >> 1);

const LEN: usize = 256;

crypto_bigint::const_monty_params!(
    ModulusP,
    U2048,
    P_HEX,
    "The prime p as crypto-bigint's Montgomery parameters, made as the crate is compiled."
);

/// Numbers modulo p in Montgomery form, for exponentiations' many products. The parameters are constants, so a
/// product carries only its number (a form with parameters at run time copies them, a kilobyte, into each).
type Monty = ConstMontyForm<ModulusP, { U2048::LIMBS }>;

/// Whether `x` (a number below p) is a quadratic residue modulo p, by its Legendre symbol, computed as a Jacobi
/// symbol (num-modular's, by Euclid's remainders: a thirteenth of the time of crypto-bigint's binary one at 2048 bits). For the
/// safe prime p = 2q + 1 the non-zero quadratic residues are exactly the subgroup of order q, so this is the check
/// x^q = 1 at a hundredth of its cost. Variable time: received elements are public.
fn is_quadratic_residue(x: &BigUint) -> bool {
    x.checked_jacobi(&P) == Some(1)
}

/// The modp2048 suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modp2048;

/// A quadratic residue modulo p.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ModpElement(BigUint);

/// An exponent modulo q.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ModpScalar(BigUint);

impl std::fmt::Debug for ModpElement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bytes = to_fixed(&self.0);
        write!(f, "M({})", hex::encode(&bytes[..8]))
    }
}

fn to_fixed(value: &BigUint) -> Vec<u8> {
    let digits = value.to_bytes_be();
    let mut out = vec![0u8; LEN - digits.len()];
    out.extend_from_slice(&digits);
    out
}

/// SHA-256 in counter mode: `len` bytes bound to `domain` and `input`.
fn expand(domain: &[u8], input: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 32);
    let mut counter = 0u32;
    while out.len() < len {
        let block = Sha256::new()
            .chain_update((domain.len() as u32).to_be_bytes())
            .chain_update(domain)
            .chain_update(counter.to_be_bytes())
            .chain_update(input)
            .finalize();
        out.extend_from_slice(&block);
        counter += 1;
    }
    out.truncate(len);
    out
}

/// Π elementᵢ^scalarᵢ mod p, the multi-exponentiation, by Straus's interleaved fixed-window method: one chain of
/// squarings shared by every term, and per term a table of its first 2^w powers, so `m` exponents of 2048 bits cost
/// about 2048 squarings and `m·(2048/w + 2^w)` multiplications instead of `m` separate exponentiations of about
/// 2048 + 2048/w each. Each term has the window its exponent's length makes cheapest ([`window_for`]). The products
/// in Montgomery form (crypto-bigint), which spares each a long division. Variable time in the exponents: proofs'
/// challenges and responses are public.
///
/// A long product is cut among the cores, each running the method on its share of the terms: a share costs its own
/// chain of squarings, so a core takes at least `MIN_TERMS`.
fn product_of_powers(scalars: &[ModpScalar], elements: &[&ModpElement]) -> BigUint {
    const MIN_TERMS: usize = 8;
    let partial = parallel::map_ranges(scalars.len().min(elements.len()), MIN_TERMS, |range| {
        vec![straus(&scalars[range.clone()], &elements[range])]
    });
    let mut parts = partial.into_iter();
    let first = parts.next().unwrap_or_else(BigUint::one);
    parts.fold(first, |product, part| product * part % &*P)
}

/// The window that makes a term with an exponent of `bits` bits cheapest: its table's 2^w − 2 multiplications plus
/// one per digit. Six for a full 2048-bit exponent (404 where a window of four costs 526), four for a 128-bit
/// challenge.
fn window_for(bits: u64) -> u64 {
    (1..=7).min_by_key(|&window| (1u64 << window) - 2 + bits.div_ceil(window)).unwrap_or(1)
}

/// Π elementᵢ^scalarᵢ mod p on one core, by the method above; a single term is one exponentiation by a fixed
/// window. The chain squares once a bit, and a term's digit is multiplied in at each multiple of its window.
fn straus(scalars: &[ModpScalar], elements: &[&ModpElement]) -> BigUint {
    // Each term's window and table of powers, kept as bare numbers (16 KiB a term at six bits).
    let terms: Vec<(&BigUint, u64, Vec<U2048>)> = scalars
        .iter()
        .zip(elements)
        .map(|(scalar, element)| {
            let window = window_for(scalar.0.bits());
            let base = Monty::new(&U2048::from_be_slice(&to_fixed(&element.0)));
            let mut table = Vec::with_capacity(1 << window);
            let mut power = Monty::ONE;
            for _ in 0..1usize << window {
                table.push(*power.as_montgomery());
                power = power.mul(&base);
            }
            (&scalar.0, window, table)
        })
        .collect();
    let bits = scalars.iter().map(|scalar| scalar.0.bits()).max().unwrap_or(0);
    let mut product = Monty::ONE;
    let mut started = false;
    let mut owed_squarings = 0u32;
    for position in (0..bits).rev() {
        if started {
            owed_squarings += 1;
        }
        for (exponent, window, table) in &terms {
            if position % window != 0 {
                continue;
            }
            let digit = digit(exponent, position / window, *window);
            if digit != 0 {
                if owed_squarings > 0 {
                    product = product.square_repeat_vartime(owed_squarings);
                    owed_squarings = 0;
                }
                product = product.mul(&Monty::from_montgomery(table[digit]));
                started = true;
            }
        }
    }
    if owed_squarings > 0 {
        product = product.square_repeat_vartime(owed_squarings);
    }
    from_monty(product)
}

/// Digit `place` of `exponent` in radix `2^window`.
fn digit(exponent: &BigUint, place: u64, window: u64) -> usize {
    (0..window).filter(|bit| exponent.bit(place * window + bit)).fold(0usize, |digit, bit| digit | 1 << bit)
}

/// A product in Montgomery form, as a plain number.
fn from_monty(product: Monty) -> BigUint {
    BigUint::from_bytes_be(&product.retrieve().to_be_bytes())
}

/// The digits of an exponent a fixed-base table holds: radix 2^5, enough places for any exponent below 2^2050 (every
/// scalar is below q < 2^2047).
const TABLE_WINDOW: u64 = 5;
const TABLE_DIGITS: usize = 1 << TABLE_WINDOW;
const TABLE_PLACES: u64 = 410;

/// A fixed base's powers `base^(d·32^i)` for every digit place `i` and digit `d < 32`, in Montgomery form: with it,
/// `base^e` is one multiplication per non-zero digit of `e` and no squaring, about 410 multiplications where an
/// exponentiation makes 2048 squarings and as many multiplications as a window allows (a fifth of the time). 3.4 MB
/// a base: made for the generator and `h_0` only, once. Variable time and memory access in the exponent's digits,
/// as every exponentiation here: nothing in this suite is constant-time (docs/CRYPTO.md).
pub struct ModpTable {
    /// Place-major: `powers[i·32 + d] = base^(d·32^i)`.
    powers: Vec<U2048>,
}

impl ModpTable {
    fn new(base: &ModpElement) -> Self {
        let mut place_base = Monty::new(&U2048::from_be_slice(&to_fixed(&base.0)));
        let mut powers = Vec::with_capacity(TABLE_PLACES as usize * TABLE_DIGITS);
        for _ in 0..TABLE_PLACES {
            let mut power = Monty::ONE;
            for _ in 0..TABLE_DIGITS {
                powers.push(*power.as_montgomery());
                power = power.mul(&place_base);
            }
            place_base = power;
        }
        ModpTable { powers }
    }

    /// `product · base^exponent`, or `None` for an exponent beyond the table's places.
    fn multiply_power(&self, product: Monty, exponent: &BigUint) -> Option<Monty> {
        if exponent.bits() > TABLE_PLACES * TABLE_WINDOW {
            return None;
        }
        let product = (0..TABLE_PLACES).fold(product, |product, place| match digit(exponent, place, TABLE_WINDOW) {
            0 => product,
            digit => product.mul(&Monty::from_montgomery(self.powers[place as usize * TABLE_DIGITS + digit])),
        });
        Some(product)
    }
}

/// `base^e` for each exponent `e` of `exponents`, sharing one chain of squarings: the powers `base^(32^i)` of
/// every digit place are made once (2048 squarings), then each exponent costs a multiplication per non-zero digit
/// into the bucket of that digit and 62 to combine the 31 buckets (Yao's method: the product of the buckets from
/// digit 31 down, each running product multiplied in once per digit value). Two exponents of one base cost about
/// 3,000 multiplications instead of two exponentiations' 5,000. Variable time, as [`straus`].
fn powers_of_one_base<const N: usize>(base: &ModpElement, exponents: [&BigUint; N]) -> [BigUint; N] {
    let places = exponents.iter().map(|e| e.bits()).max().unwrap_or(0).div_ceil(TABLE_WINDOW);
    let mut place_powers = Vec::with_capacity(places as usize);
    let mut power = Monty::new(&U2048::from_be_slice(&to_fixed(&base.0)));
    for place in 0..places {
        place_powers.push(power);
        if place + 1 < places {
            power = power.square_repeat_vartime(TABLE_WINDOW as u32);
        }
    }
    exponents.map(|exponent| {
        let mut buckets: [Option<Monty>; TABLE_DIGITS] = [None; TABLE_DIGITS];
        for (place, place_power) in place_powers.iter().enumerate() {
            let digit = digit(exponent, place as u64, TABLE_WINDOW);
            if digit != 0 {
                buckets[digit] = Some(buckets[digit].map_or(*place_power, |bucket| bucket.mul(place_power)));
            }
        }
        let (mut running, mut product) = (None::<Monty>, None::<Monty>);
        for bucket in buckets[1..].iter().rev() {
            if let Some(bucket) = bucket {
                running = Some(running.map_or(*bucket, |running| running.mul(bucket)));
            }
            if let Some(running) = running {
                product = Some(product.map_or(running, |product| product.mul(&running)));
            }
        }
        product.map_or_else(BigUint::one, from_monty)
    })
}

/// The generator's table, for `mul_generator` and `mul_generator_and_fixed`.
static GENERATOR_TABLE: LazyLock<ModpTable> = LazyLock::new(|| ModpTable::new(&Modp2048::generator()));

/// `G^x · B^y` from the tables of `G` and `B`; by `product_of_powers` for exponents beyond them.
fn tabulated_pair(x: &ModpScalar, y: &ModpScalar, table: &ModpTable, base: &ModpElement) -> ModpElement {
    let product =
        GENERATOR_TABLE.multiply_power(Monty::ONE, &x.0).and_then(|product| table.multiply_power(product, &y.0));
    match product {
        Some(product) => ModpElement(from_monty(product)),
        None => ModpElement(product_of_powers(&[x.clone(), y.clone()], &[&Modp2048::generator(), base])),
    }
}

impl Group for Modp2048 {
    type Element = ModpElement;
    type Scalar = ModpScalar;

    const SUITE: Suite = Suite::Modp2048;
    const ELEMENT_LEN: usize = LEN;
    const SCALAR_LEN: usize = LEN;

    fn generator() -> ModpElement {
        // 2 is a quadratic residue because p ≡ 7 (mod 8), so it generates the order-q subgroup.
        ModpElement(BigUint::from(2u32))
    }

    fn hash_to_element(input: &[u8]) -> ModpElement {
        // 128 bits beyond p make the reduction's bias negligible; squaring lands in the QR
        // subgroup, so no Legendre symbol (or other small residue class) can leak a card.
        for attempt in 0u32.. {
            let mut domain = b"fairdeck/v1/modp2048/hash-to-element/".to_vec();
            domain.extend_from_slice(&attempt.to_be_bytes());
            let h = BigUint::from_bytes_be(&expand(&domain, input, LEN + 16)) % &*P;
            let element = &h * &h % &*P;
            if element > BigUint::one() {
                return ModpElement(element);
            }
        }
        unreachable!("u32 attempts are never all exhausted: each fails with probability 2/p")
    }

    fn random_scalar<R: CryptoRng + ?Sized>(rng: &mut R) -> ModpScalar {
        loop {
            let mut bytes = [0u8; LEN + 16];
            rng.fill_bytes(&mut bytes);
            let scalar = BigUint::from_bytes_be(&bytes) % &*Q;
            bytes.fill(0);
            if !scalar.is_zero() {
                return ModpScalar(scalar);
            }
        }
    }

    fn scalar_from_wide(bytes: &[u8; 64]) -> ModpScalar {
        // 512 bits is already below q: no reduction bias.
        ModpScalar(BigUint::from_bytes_be(bytes))
    }

    fn scalar_from_u128(value: u128) -> ModpScalar {
        ModpScalar(BigUint::from(value))
    }

    fn scalar_add(a: &ModpScalar, b: &ModpScalar) -> ModpScalar {
        ModpScalar((&a.0 + &b.0) % &*Q)
    }

    fn scalar_mul(a: &ModpScalar, b: &ModpScalar) -> ModpScalar {
        ModpScalar((&a.0 * &b.0) % &*Q)
    }

    fn scalar_neg(a: &ModpScalar) -> ModpScalar {
        ModpScalar((&*Q - &a.0 % &*Q) % &*Q)
    }

    fn scalar_invert(a: &ModpScalar) -> Option<ModpScalar> {
        a.0.modinv(&Q).map(ModpScalar)
    }

    fn wipe_scalar(a: &mut ModpScalar) {
        // num-bigint offers no in-place wipe; dropping the value is all that can be done.
        a.0 = BigUint::zero();
    }

    fn mul(element: &ModpElement, scalar: &ModpScalar) -> ModpElement {
        ModpElement(straus(std::slice::from_ref(scalar), &[element]))
    }

    /// One exponentiation per element, the elements shared among the cores.
    fn mul_each(elements: &[ModpElement], scalar: &ModpScalar) -> Vec<ModpElement> {
        parallel::map_ranges(elements.len(), 1, |range| {
            elements[range].iter().map(|element| Self::mul(element, scalar)).collect()
        })
    }

    /// Both powers of each element from one chain of squarings (`powers_of_one_base`), the elements shared among
    /// the cores.
    fn mul_each_twice(
        elements: &[ModpElement],
        first: &ModpScalar,
        second: &ModpScalar,
    ) -> (Vec<ModpElement>, Vec<ModpElement>) {
        parallel::map_ranges(elements.len(), 1, |range| {
            elements[range].iter().map(|element| powers_of_one_base(element, [&first.0, &second.0])).collect()
        })
        .into_iter()
        .map(|[a, b]| (ModpElement(a), ModpElement(b)))
        .unzip()
    }

    fn mul_generator(scalar: &ModpScalar) -> ModpElement {
        match GENERATOR_TABLE.multiply_power(Monty::ONE, &scalar.0) {
            Some(product) => ModpElement(from_monty(product)),
            None => Self::mul(&Self::generator(), scalar),
        }
    }

    /// Each product of the generator from its table, the pairs shared among the cores.
    fn mul_generator_plus_each(scalars: &[ModpScalar], addends: &[ModpElement]) -> Vec<ModpElement> {
        parallel::map_ranges(scalars.len().min(addends.len()), 1, |range| {
            scalars[range.clone()]
                .iter()
                .zip(&addends[range])
                .map(|(scalar, addend)| Self::add(&Self::mul_generator(scalar), addend))
                .collect()
        })
    }

    /// `G`'s power from its table on this core while the other power is made on another.
    fn mul_generator_and(scalar: &ModpScalar, element: &ModpElement) -> [ModpElement; 2] {
        let powers = parallel::map_ranges(2, 1, |range| {
            range.map(|i| if i == 0 { Self::mul_generator(scalar) } else { Self::mul(element, scalar) }).collect()
        });
        powers.try_into().expect("two powers")
    }

    fn add(a: &ModpElement, b: &ModpElement) -> ModpElement {
        ModpElement((&a.0 * &b.0) % &*P)
    }

    fn vartime_multi_mul(scalars: &[ModpScalar], elements: &[&ModpElement]) -> ModpElement {
        ModpElement(product_of_powers(scalars, elements))
    }

    fn multi_mul(scalars: &[ModpScalar], elements: &[&ModpElement]) -> ModpElement {
        // num-bigint has no constant-time exponentiation: this suite's secrets never had one.
        ModpElement(product_of_powers(scalars, elements))
    }

    /// A plain index: nothing in this suite is constant-time (docs/CRYPTO.md).
    fn select_element(table: &[ModpElement], index: u16) -> Option<ModpElement> {
        table.get(usize::from(index)).cloned()
    }

    /// A plain index, as `select_element`.
    fn select_scalar(table: &[ModpScalar], index: u16) -> Option<ModpScalar> {
        table.get(usize::from(index)).cloned()
    }

    fn vartime_multi_mul_is_identity(scalars: &[ModpScalar], elements: &[&ModpElement]) -> bool {
        product_of_powers(scalars, elements).is_one()
    }

    /// The base and its table (`ModpTable`).
    type FixedBase = (ModpElement, ModpTable);

    fn fixed_base(base: &ModpElement) -> (ModpElement, ModpTable) {
        (base.clone(), ModpTable::new(base))
    }

    fn mul_generator_and_fixed(
        xs: &[ModpScalar],
        ys: &[ModpScalar],
        (base, table): &(ModpElement, ModpTable),
    ) -> Vec<ModpElement> {
        parallel::map_ranges(xs.len().min(ys.len()), 1, |range| {
            xs[range.clone()].iter().zip(&ys[range]).map(|(x, y)| tabulated_pair(x, y, table, base)).collect()
        })
    }

    fn encode_element(element: &ModpElement) -> Vec<u8> {
        to_fixed(&element.0)
    }

    fn decode_element(bytes: &[u8]) -> Result<ModpElement, DecodeError> {
        if bytes.len() != LEN {
            return Err(DecodeError::Length { expected: LEN, actual: bytes.len() });
        }
        let x = BigUint::from_bytes_be(bytes);
        let p_minus_one = &*P - 1u32;
        if x <= BigUint::one() || x >= p_minus_one {
            return Err(DecodeError::OutOfRange);
        }
        if !is_quadratic_residue(&x) {
            return Err(DecodeError::NotInSubgroup);
        }
        Ok(ModpElement(x))
    }

    /// The list shared among the cores: a Jacobi symbol an element (41 µs) is worth a thread from 16 on.
    fn decode_elements(encodings: &[Vec<u8>]) -> Result<Vec<ModpElement>, DecodeError> {
        const MIN_CHUNK: usize = 16;
        parallel::map_ranges(encodings.len(), MIN_CHUNK, |range| {
            encodings[range].iter().map(|bytes| Self::decode_element(bytes)).collect()
        })
        .into_iter()
        .collect()
    }

    fn encode_scalar(scalar: &ModpScalar) -> Vec<u8> {
        to_fixed(&scalar.0)
    }

    fn decode_scalar(bytes: &[u8]) -> Result<ModpScalar, DecodeError> {
        if bytes.len() != LEN {
            return Err(DecodeError::Length { expected: LEN, actual: bytes.len() });
        }
        let s = BigUint::from_bytes_be(bytes);
        if s >= *Q {
            return Err(DecodeError::ScalarOutOfRange);
        }
        Ok(ModpScalar(s))
    }
}

super::encoding::serde_via_group!(ModpElement, Modp2048, decode_element, encode_element);
super::encoding::serde_via_group!(ModpScalar, Modp2048, decode_scalar, encode_scalar);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_multi_exponentiation_is_the_product_of_the_powers() {
        for count in [0usize, 1, 2, 3, 40] {
            let elements: Vec<ModpElement> =
                (0..count).map(|i| Modp2048::hash_to_element(&(i as u32).to_be_bytes())).collect();
            let mut scalars: Vec<ModpScalar> = (0..count)
                .map(|i| Modp2048::scalar_from_wide(&[(i as u8).wrapping_mul(37).wrapping_add(1); 64]))
                .collect();
            if let Some(last) = scalars.last_mut() {
                // Exponents of different lengths (so of different windows), zero and q − 1 among them.
                *last = ModpScalar(&*Q - 1u32);
                scalars[0] = ModpScalar(BigUint::zero());
                if count > 2 {
                    scalars[1] = Modp2048::scalar_from_u128(0xfeed_beef_u128 << 90 | 0x1234_5678);
                }
            }
            let refs: Vec<&ModpElement> = elements.iter().collect();
            let expected =
                elements.iter().zip(&scalars).fold(BigUint::one(), |acc, (e, s)| acc * e.0.modpow(&s.0, &P) % &*P);
            assert_eq!(product_of_powers(&scalars, &refs), expected, "{count} terms");
            for (element, scalar) in elements.iter().zip(&scalars) {
                assert_eq!(Modp2048::mul(element, scalar).0, element.0.modpow(&scalar.0, &P), "one power");
            }
        }
    }

    #[test]
    fn two_powers_of_one_base_are_the_general_ones() {
        let bases =
            [Modp2048::hash_to_element(b"one base"), Modp2048::hash_to_element(b"another"), Modp2048::generator()];
        // Zero, one, a digit, a challenge-sized one, q − 1, a random full-sized one, and one beyond 2048 bits.
        let exponents = [
            BigUint::zero(),
            BigUint::one(),
            BigUint::from(31u32),
            BigUint::from_bytes_be(&[0xA5; 16]),
            &*Q - 1u32,
            BigUint::from_bytes_be(&[0x5A; LEN]) % &*Q,
            BigUint::one() << 2060u32,
        ];
        for base in &bases {
            for x in &exponents {
                for y in &exponents {
                    let [a, b] = powers_of_one_base(base, [x, y]);
                    assert_eq!((a, b), (base.0.modpow(x, &P), base.0.modpow(y, &P)), "{x:x} {y:x}");
                }
            }
        }
        let (x, y) = (ModpScalar(exponents[5].clone()), ModpScalar(exponents[4].clone()));
        let (first, second) = Modp2048::mul_each_twice(&bases, &x, &y);
        assert_eq!((first, second), (Modp2048::mul_each(&bases, &x), Modp2048::mul_each(&bases, &y)));
    }

    #[test]
    fn the_tabulated_powers_are_the_general_ones() {
        let base = Modp2048::hash_to_element(b"a fixed base");
        let fixed = Modp2048::fixed_base(&base);
        let generator = Modp2048::generator();
        // Zero, one, a challenge-sized one, q − 1, and one beyond the table's places (which falls back).
        let exponents = [
            BigUint::zero(),
            BigUint::one(),
            BigUint::from_bytes_be(&[0xA5; 64]),
            &*Q - 1u32,
            BigUint::from_bytes_be(&[0x5A; LEN]) % &*Q,
            BigUint::one() << 2060u32,
        ];
        for x in &exponents {
            for y in &exponents {
                let (x, y) = (ModpScalar(x.clone()), ModpScalar(y.clone()));
                let expected = generator.0.modpow(&x.0, &P) * base.0.modpow(&y.0, &P) % &*P;
                let made = Modp2048::mul_generator_and_fixed(std::slice::from_ref(&x), &[y], &fixed);
                assert_eq!(made, [ModpElement(expected)], "{x:?}");
                assert_eq!(Modp2048::mul_generator(&x).0, generator.0.modpow(&x.0, &P));
                let [on_generator, on_base] = Modp2048::mul_generator_and(&x, &base);
                assert_eq!((on_generator.0, on_base.0), (generator.0.modpow(&x.0, &P), base.0.modpow(&x.0, &P)));
            }
        }
    }

    /// The subgroup check as it was, by a full exponentiation.
    fn in_subgroup_by_power(x: &BigUint) -> bool {
        x.modpow(&Q, &P).is_one()
    }

    #[test]
    fn the_legendre_symbol_accepts_exactly_the_subgroup() {
        use rand_chacha::ChaCha20Rng;
        use rand_core::{Rng, SeedableRng};
        let mut rng = ChaCha20Rng::from_seed([20; 32]);
        let mut candidates: Vec<BigUint> = Vec::new();
        // Random numbers below p, their squares (all in the subgroup) and their negatives (p ≡ 3 mod 4, so −1 is not
        // a residue: exactly one of x and −x is).
        for _ in 0..200 {
            let mut bytes = [0u8; LEN];
            rng.fill_bytes(&mut bytes);
            let x = BigUint::from_bytes_be(&bytes) % &*P;
            candidates.push(&x * &x % &*P);
            candidates.push(&*P - &x);
            candidates.push(x);
        }
        // Crafted: the ends of the range, small numbers, the generator 2 and −2, q, q ± 1, a power of two.
        for small in 0u32..40 {
            candidates.push(BigUint::from(small));
            candidates.push(&*P - small);
        }
        candidates.extend([Q.clone(), &*Q + 1u32, &*Q - 1u32, BigUint::one() << 2047u32]);
        let mut members = 0;
        for x in candidates.into_iter().filter(|x| *x < *P) {
            assert_eq!(is_quadratic_residue(&x), in_subgroup_by_power(&x), "disagree on {x:x}");
            members += usize::from(in_subgroup_by_power(&x));
        }
        assert!(members > 200, "both kinds were tried: {members} members");
    }
}
