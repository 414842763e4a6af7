//! The game code (`7-violin-ember`): the relay's nameplate, then two words that are the password of the key
//! exchange. 256 short, common, easily spelled English words, so each word carries exactly 8 bits and a code
//! can be read aloud.
//!
//! Codes are read forgivingly, as players type what they heard: any case, and spaces, dashes, dots or commas
//! between the parts (`1 Violin Ember`, `1-VIOLIN-EMBER`). Every word is checked against the list before
//! anything reaches the relay, so a typo costs no key-exchange attempt; an unknown word comes back with the
//! nearest words of the list. [`complete`] does what Tab does at the code prompt.

use std::fmt;

/// Words after the nameplate.
pub(crate) const WORDS_PER_CODE: usize = 2;
/// Longest nameplate read, in digits (the relay's own limit).
const MAX_NAMEPLATE_DIGITS: usize = 9;
/// Most suggestions given for one unknown word.
const MAX_SUGGESTIONS: usize = 3;

/// The word list: 256 distinct lower-case words.
pub(crate) const WORDS: [&str; 256] = [
    "acorn", "anchor", "button", "actor", "agent", "alarm", "album", "alert", "amber", "angel", "apple", "april",
    "arena", "arrow", "atlas", "audio", "award", "bacon", "badge", "bagel", "baker", "bamboo", "banjo", "barn",
    "beach", "beard", "beast", "bench", "berry", "bike", "bird", "blade", "block", "bloom", "board", "boat", "bonus",
    "book", "boot", "bottle", "bow", "bread", "brick", "broom", "brush", "bucket", "buddy", "bugle", "cabin", "cable",
    "cactus", "cake", "camel", "camera", "candle", "canoe", "canvas", "carpet", "carrot", "castle", "cat", "cedar",
    "chair", "chalk", "charm", "cherry", "chess", "circus", "cliff", "clock", "cloud", "clover", "coach", "coast",
    "cobra", "cocoa", "comet", "coral", "cotton", "couch", "cougar", "crab", "crane", "crayon", "cream", "crossbow",
    "crown", "crystal", "cube", "curtain", "daisy", "dance", "delta", "desert", "diver", "dock", "dolphin", "donkey",
    "door", "dragon", "drum", "duck", "eagle", "earth", "echo", "elbow", "ember", "engine", "falcon", "farm",
    "feather", "fence", "ferry", "fiddle", "field", "finch", "flag", "flame", "flute", "forest", "fossil", "fountain",
    "fox", "frog", "galaxy", "garden", "garlic", "gecko", "giant", "ginger", "glacier", "glove", "goat", "gold",
    "guitar", "hammer", "harbor", "harp", "hat", "hawk", "hazel", "helmet", "hill", "honey", "horse", "hotel", "igloo",
    "island", "ivory", "jacket", "jaguar", "jelly", "jewel", "jungle", "kayak", "kettle", "kiwi", "koala", "ladder",
    "lagoon", "lamp", "lantern", "lemon", "lily", "lion", "lizard", "llama", "lobster", "magnet", "mango", "maple",
    "marble", "meadow", "melon", "mirror", "monkey", "moose", "motor", "mountain", "needle", "nest", "noodle", "oak",
    "ocean", "olive", "onion", "orange", "orbit", "otter", "owl", "paddle", "panda", "panther", "paper", "parrot",
    "peach", "pearl", "pebble", "pepper", "piano", "pillow", "pilot", "pine", "pirate", "planet", "plum", "pony",
    "poppy", "potato", "puzzle", "quartz", "rabbit", "radio", "raft", "rain", "raven", "ribbon", "river", "robin",
    "rocket", "rose", "ruby", "saddle", "salmon", "sand", "scarf", "shadow", "shell", "silver", "sketch", "snail",
    "spoon", "squid", "stone", "storm", "sugar", "summer", "sun", "swan", "tiger", "toast", "tomato", "torch", "tower",
    "tulip", "turtle", "velvet", "violin", "wagon", "walnut", "whale", "willow", "window", "wizard", "yogurt", "zebra",
];

/// A game code. Its words are a secret: `Debug` shows the nameplate only.
#[derive(Clone, PartialEq, Eq)]
pub struct Code {
    nameplate: String,
    words: [&'static str; WORDS_PER_CODE],
}

impl Code {
    /// A code for `nameplate` with words chosen by the operating system's randomness.
    pub fn random(nameplate: &str) -> Code {
        Code::random_from(&mut rand::rng(), nameplate)
    }

    /// New words from `rng`, a cryptographic generator (a session's core draws them from its own).
    pub fn random_from<R: rand::CryptoRng + ?Sized>(rng: &mut R, nameplate: &str) -> Code {
        let mut bytes = [0u8; WORDS_PER_CODE];
        rng.fill_bytes(&mut bytes);
        Code { nameplate: nameplate.to_string(), words: bytes.map(|byte| WORDS[usize::from(byte)]) }
    }

    /// The words `secret`'s first bytes name, under `nameplate`: a code that can be made again from the secret
    /// (a seat's watch code, from [`Channel::watch_secret`](crate::channel::Channel::watch_secret)).
    pub fn from_secret(nameplate: &str, secret: &[u8; 32]) -> Code {
        let words = std::array::from_fn(|i| WORDS[usize::from(secret[i])]);
        Code { nameplate: nameplate.to_string(), words }
    }

    /// The same words under another nameplate (the relay gave the room a new one).
    pub fn with_nameplate(&self, nameplate: &str) -> Code {
        Code { nameplate: nameplate.to_string(), words: self.words }
    }

    /// The relay's room number.
    pub fn nameplate(&self) -> &str {
        &self.nameplate
    }

    /// The key exchange's password: the words, lower case, joined by `-`.
    pub fn password(&self) -> String {
        self.words.join("-")
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.nameplate, self.password())
    }
}

impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Code").field("nameplate", &self.nameplate).finish_non_exhaustive()
    }
}

/// Why a typed code cannot be a code. Each message says what a code looks like or which word to fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    #[error("the code is empty: it looks like 7-violin-ember (the host's number, then two words)")]
    Empty,
    #[error("a code starts with the host's number, not {found:?}: it looks like 7-violin-ember")]
    NoNumber { found: String },
    #[error("the number {found} is too long for a code: it looks like 7-violin-ember")]
    NumberTooLong { found: String },
    #[error("a code has two words after the number, not {found}: it looks like 7-violin-ember")]
    WordCount { found: usize },
    #[error("{word:?} is not one of the code words{}", did_you_mean(suggestions))]
    UnknownWord { word: String, suggestions: Vec<&'static str> },
}

fn did_you_mean(suggestions: &[&str]) -> String {
    match suggestions {
        [] => "; ask the host to read the code again".to_string(),
        [one] => format!("; did you mean {one}?"),
        [rest @ .., last] => format!("; did you mean {} or {last}?", rest.join(", ")),
    }
}

/// The parts of what was typed: runs of letters and digits, whatever separates them.
fn parts(input: &str) -> impl Iterator<Item = &str> {
    input.split(|c: char| !c.is_alphanumeric()).filter(|part| !part.is_empty())
}

/// Whether `text` can be a relay's nameplate: 1 to 9 ASCII digits.
pub(crate) fn is_nameplate(text: &str) -> bool {
    (1..=MAX_NAMEPLATE_DIGITS).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit())
}

/// Reads a typed code: any case, any separators. Checks every word against the list.
pub fn parse(input: &str) -> Result<Code, CodeError> {
    let mut parts = parts(input);
    let nameplate = parts.next().ok_or(CodeError::Empty)?;
    if !nameplate.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CodeError::NoNumber { found: nameplate.to_string() });
    }
    if nameplate.len() > MAX_NAMEPLATE_DIGITS {
        return Err(CodeError::NumberTooLong { found: nameplate.to_string() });
    }
    let typed: Vec<String> = parts.map(str::to_lowercase).collect();
    if typed.len() != WORDS_PER_CODE {
        return Err(CodeError::WordCount { found: typed.len() });
    }
    let mut words = [""; WORDS_PER_CODE];
    for (slot, word) in words.iter_mut().zip(&typed) {
        *slot = WORDS.iter().find(|known| *known == word).ok_or_else(|| unknown_word(word))?;
    }
    Ok(Code { nameplate: nameplate.to_string(), words })
}

/// The error for a word not on the list. A long one is shown cut: no word of the list is near it anyway.
fn unknown_word(typed: &str) -> CodeError {
    const SHOWN: usize = 24;
    if typed.chars().count() > SHOWN {
        return CodeError::UnknownWord {
            word: format!("{}…", typed.chars().take(SHOWN).collect::<String>()),
            suggestions: Vec::new(),
        };
    }
    CodeError::UnknownWord { word: typed.to_string(), suggestions: suggestions(typed) }
}

/// The words of the list nearest to `typed` (lower case), at most three: the words it begins, else those one
/// edit away, else (for words of five letters or more) two edits away. Only the nearest kind is given.
pub(crate) fn suggestions(typed: &str) -> Vec<&'static str> {
    let allowed = if typed.chars().count() <= 4 { 1 } else { 2 };
    let mut ranked: Vec<(usize, &'static str)> = WORDS
        .iter()
        .filter_map(|&word| {
            let distance = if typed.len() >= 2 && word.starts_with(typed) { 0 } else { edit_distance(typed, word) };
            (distance <= allowed).then_some((distance, word))
        })
        .collect();
    ranked.sort();
    let nearest = ranked.first().map_or(0, |(distance, _)| *distance);
    ranked.into_iter().take_while(|(distance, _)| *distance == nearest).take(MAX_SUGGESTIONS).map(|(_, w)| w).collect()
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours, the
/// usual typing and hearing mistakes.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let substitution = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1).min(rows[i][j - 1] + 1).min(rows[i - 1][j - 1] + substitution);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// What Tab does to a code being typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Completion {
    /// The line after completion (unchanged when nothing matches).
    pub line: String,
    /// The words the last part could still become, when more than one: shown under the prompt.
    pub candidates: Vec<&'static str>,
}

/// Completes the word being typed at the end of `line`: a single match is written out (with a `-` after it
/// if another word follows), several are extended to their common beginning and listed. The nameplate is
/// not completed.
pub(crate) fn complete(line: &str) -> Completion {
    let unchanged = || Completion { line: line.to_string(), candidates: Vec::new() };
    let typed_parts = parts(line).count();
    let ends_in_separator = line.chars().last().is_some_and(|c| !c.is_alphanumeric());
    // Still on the nameplate (or nothing typed yet): nothing to complete.
    if typed_parts == 0 || (typed_parts == 1 && !ends_in_separator) || typed_parts > WORDS_PER_CODE + 1 {
        return unchanged();
    }
    let start = line.rfind(|c: char| !c.is_alphanumeric()).map_or(0, |i| i + 1);
    let prefix = line[start..].to_lowercase();
    let candidates: Vec<&'static str> = WORDS.iter().copied().filter(|word| word.starts_with(&prefix)).collect();
    let words_after = typed_parts - 1 + usize::from(ends_in_separator);
    match candidates[..] {
        [] => unchanged(),
        [word] => {
            let separator = if words_after < WORDS_PER_CODE { "-" } else { "" };
            Completion { line: format!("{}{word}{separator}", &line[..start]), candidates: Vec::new() }
        }
        _ => {
            let common = candidates.iter().fold(candidates[0], |common, word| {
                let shared = common.chars().zip(word.chars()).take_while(|(a, b)| a == b).count();
                &common[..shared]
            });
            Completion { line: format!("{}{common}", &line[..start]), candidates }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_distinct_lowercase_and_dash_free() {
        let unique: std::collections::BTreeSet<_> = WORDS.iter().collect();
        assert_eq!(unique.len(), WORDS.len());
        assert!(WORDS.iter().all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())));
    }

    #[test]
    fn a_random_code_reads_back_as_itself_and_hides_its_words_from_debug() {
        for _ in 0..50 {
            let code = Code::random("7");
            assert_eq!(parse(&code.to_string()), Ok(code.clone()));
            assert!(!format!("{code:?}").contains(&code.password()));
        }
    }

    #[test]
    fn case_spaces_and_separators_are_forgiven() {
        let expected = parse("1-violin-ember").unwrap();
        assert_eq!(expected.nameplate(), "1");
        assert_eq!(expected.password(), "violin-ember");
        for typed in ["1 Violin Ember", "1-VIOLIN-EMBER", "  1 -- violin,ember\n", "1.violin.ember", "1_violin_Ember"] {
            assert_eq!(parse(typed), Ok(expected.clone()), "{typed:?}");
        }
    }

    #[test]
    fn nameplates_are_one_to_nine_digits() {
        assert!(is_nameplate("7") && is_nameplate("123456789"));
        assert!(!is_nameplate("") && !is_nameplate("1234567890") && !is_nameplate("7a") && !is_nameplate("-1"));
    }

    #[test]
    fn malformed_codes_say_what_a_code_looks_like() {
        assert_eq!(parse("  "), Err(CodeError::Empty));
        assert_eq!(parse("violin-ember"), Err(CodeError::NoNumber { found: "violin".into() }));
        assert_eq!(parse("1234567890-violin-ember"), Err(CodeError::NumberTooLong { found: "1234567890".into() }));
        assert_eq!(parse("7-violin"), Err(CodeError::WordCount { found: 1 }));
        assert_eq!(parse("7-violin-ember-fox"), Err(CodeError::WordCount { found: 3 }));
        assert!(parse("7").unwrap_err().to_string().contains("7-violin-ember"));
    }

    #[test]
    fn unknown_words_come_with_the_nearest_words() {
        let error = parse("1-violn-ember").unwrap_err();
        assert_eq!(error, CodeError::UnknownWord { word: "violn".into(), suggestions: vec!["violin"] });
        assert_eq!(error.to_string(), "\"violn\" is not one of the code words; did you mean violin?");
        // A swap of two letters, a wrong letter, a missing one.
        assert_eq!(suggestions("embre"), ["ember"]);
        assert_eq!(suggestions("tigar"), ["tiger"]);
        assert_eq!(suggestions("brom"), ["broom"]);
        // Several near words, nearest first, at most three.
        let near = suggestions("bat");
        assert!(!near.is_empty() && near.len() <= MAX_SUGGESTIONS, "{near:?}");
        assert_eq!(near, ["boat", "cat", "hat"]);
        // A beginning is a suggestion too.
        assert_eq!(suggestions("drag"), ["dragon"]);
        let long = format!("1-violin-{}", "a".repeat(5000));
        assert!(parse(&long).unwrap_err().to_string().chars().count() < 100);
        let error = parse("1-violin-xylophone").unwrap_err();
        assert!(error.to_string().ends_with("ask the host to read the code again"), "{error}");
    }

    #[test]
    fn tab_completes_the_word_being_typed() {
        let completed = |line: &str| complete(line).line;
        assert_eq!(completed("1-vio"), "1-violin-");
        assert_eq!(completed("1-violin-emb"), "1-violin-ember");
        assert_eq!(completed("1 Vio"), "1 violin-");
        // Several candidates: their common beginning, and the list.
        let several = complete("1-ca");
        assert_eq!(several.line, "1-ca");
        assert!(several.candidates.contains(&"cat") && several.candidates.contains(&"castle"));
        let several = complete("1-cra");
        assert_eq!(several.line, "1-cra");
        assert_eq!(several.candidates, ["crab", "crane", "crayon"]);
        assert_eq!(complete("1-cray").line, "1-crayon-");
        // Nothing to complete: the nameplate, no match, a finished code.
        for line in ["", "1", "12", "1-xyl", "1-violin-ember"] {
            assert_eq!(complete(line), Completion { line: line.to_string(), candidates: Vec::new() }, "{line:?}");
        }
        assert_eq!(complete("1-").candidates.len(), WORDS.len());
    }
}
