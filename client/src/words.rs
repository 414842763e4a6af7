//! The words of a game code (`7-crossbow-guitar`): 256 short, common, easily spelled English words, so
//! each word carries exactly 8 bits and a code can be read aloud.

use rand::Rng;

/// The word list: 256 distinct lower-case words.
pub const WORDS: [&str; 256] = [
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

/// Two words chosen with the operating system's randomness, joined by `-` (the SPAKE2 password).
pub fn random_words() -> String {
    let mut bytes = [0u8; 2];
    rand::rng().fill_bytes(&mut bytes);
    format!("{}-{}", WORDS[usize::from(bytes[0])], WORDS[usize::from(bytes[1])])
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
    fn random_words_make_a_valid_code() {
        let code = format!("7-{}", random_words());
        let (nameplate, words) = crate::channel::parse_code(&code).expect("a valid code");
        assert_eq!(nameplate, "7");
        assert!(words.split('-').all(|w| WORDS.contains(&w)));
    }
}
