//! MTGJSON's AtomicCards file (`{"meta": {"date", "version"}, "data": {"Card Name": [face, …]}}`, each face a
//! Card (Atomic) object) read into [`Card`]s. Only the oracle fields are kept: `name`, `faceName`, `side`,
//! `manaCost`, `type`, `text`, `power`, `toughness`, `loyalty`; the rest is skipped unread.
//!
//! The file comes from outside, so a refusal names its place as a JSON path (`data["Goblin Guide"][0].type`)
//! with the reason, and every count and length is bounded.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Card, Face};

/// The most cards in a file (MTGJSON has about 32,000).
pub const MAX_CARDS: usize = 100_000;
/// The most faces of one card (the most in print is five).
pub const MAX_FACES: usize = 8;
/// The longest name, type line, oracle text or other field, in bytes.
pub const MAX_TEXT_BYTES: usize = 8 << 10;

/// The file's `meta`: which build of MTGJSON it is.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(expecting = "an object of \"date\" and \"version\"")]
pub(super) struct Meta {
    pub date: String,
    pub version: String,
}

#[derive(Deserialize)]
#[serde(expecting = "an object of \"meta\" and \"data\"")]
struct AtomicFile {
    meta: Meta,
    data: BTreeMap<String, Vec<AtomicFace>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", expecting = "a card face object")]
struct AtomicFace {
    name: String,
    face_name: Option<String>,
    side: Option<String>,
    mana_cost: Option<String>,
    #[serde(rename = "type")]
    type_line: String,
    text: Option<String>,
    power: Option<String>,
    toughness: Option<String>,
    loyalty: Option<String>,
}

/// The file's meta and its cards, in name order; or why it is not an AtomicCards file, with the JSON path.
pub(super) fn parse(json: &[u8]) -> Result<(Meta, Vec<Card>), String> {
    let deserializer = &mut serde_json::Deserializer::from_slice(json);
    let file: AtomicFile = serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let path = json_path(error.path());
        let inner = error.into_inner();
        if path.is_empty() || path == "." { inner.to_string() } else { format!("at {path}: {inner}") }
    })?;
    if file.data.is_empty() || file.data.len() > MAX_CARDS {
        return Err(format!("at data: {} cards: at least 1, at most {MAX_CARDS}", file.data.len()));
    }
    check_text(&file.meta.date, "meta.date")?;
    check_text(&file.meta.version, "meta.version")?;
    let cards = file.data.into_iter().map(|(name, faces)| card(name, faces)).collect::<Result<_, _>>()?;
    Ok((file.meta, cards))
}

/// One entry of `data`, checked, its faces front first.
fn card(name: String, faces: Vec<AtomicFace>) -> Result<Card, String> {
    let place = format!("data[{name:?}]");
    if faces.is_empty() || faces.len() > MAX_FACES {
        return Err(format!("at {place}: {} faces: at least 1, at most {MAX_FACES}", faces.len()));
    }
    check_text(&name, &place)?;
    let mut faces: Vec<(usize, AtomicFace)> = faces.into_iter().enumerate().collect();
    for (index, face) in &faces {
        let fields = [Some(&face.name), face.face_name.as_ref(), face.side.as_ref(), face.mana_cost.as_ref()]
            .into_iter()
            .chain([Some(&face.type_line), face.text.as_ref(), face.power.as_ref(), face.toughness.as_ref()])
            .chain([face.loyalty.as_ref()]);
        for field in fields.flatten() {
            check_text(field, &format!("{place}[{index}]"))?;
        }
    }
    // MTGJSON lists the faces in no promised order; `side` is "a" for the front, then "b"…
    faces.sort_by(|(_, a), (_, b)| a.side.cmp(&b.side));
    let faces = faces
        .into_iter()
        .map(|(_, face)| Face {
            name: face.face_name.unwrap_or(face.name),
            mana_cost: face.mana_cost,
            type_line: face.type_line,
            text: face.text,
            power: face.power,
            toughness: face.toughness,
            loyalty: face.loyalty,
        })
        .collect();
    Ok(Card { name, faces })
}

/// A field's length, and no control character but the line breaks of oracle text: the text is printed to a
/// terminal, where an escape sequence would act.
fn check_text(text: &str, place: &str) -> Result<(), String> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(format!("at {place}: a text of {} bytes: at most {MAX_TEXT_BYTES}", text.len()));
    }
    if let Some(control) = text.chars().find(|&c| c.is_control() && c != '\n') {
        return Err(format!("at {place}: a control character ({control:?}) in {text:?}"));
    }
    Ok(())
}

/// `data["Goblin Guide"][0].type`: the place serde stopped at, written as in JavaScript.
fn json_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut text = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => text.push_str(&format!("[{index}]")),
            Segment::Map { key } if text.is_empty() => text.push_str(key),
            Segment::Map { key } if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                text.push('.');
                text.push_str(key);
            }
            Segment::Map { key } => text.push_str(&format!("[{key:?}]")),
            Segment::Enum { variant } => text.push_str(&format!(".{variant}")),
            Segment::Unknown => text.push_str(".?"),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Vec<u8> {
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/AtomicCards.json")).unwrap()
    }

    #[test]
    fn the_fixture_reads_with_its_faces_front_first() {
        let (meta, cards) = parse(&fixture()).unwrap();
        assert_eq!(meta, Meta { date: "2026-11-20".into(), version: "5.2.2+20261120".into() });
        assert_eq!(cards.len(), 37);
        let guide = cards.iter().find(|card| card.name() == "Goblin Guide").unwrap();
        assert_eq!(guide.faces().len(), 1);
        let face = &guide.faces()[0];
        assert_eq!((face.name.as_str(), face.mana_cost.as_deref()), ("Goblin Guide", Some("{R}")));
        assert_eq!(face.type_line, "Creature — Goblin Scout");
        assert_eq!(
            (face.power.as_deref(), face.toughness.as_deref(), face.loyalty.as_deref()),
            (Some("2"), Some("2"), None)
        );
        let delver = cards.iter().find(|card| card.name() == "Delver of Secrets // Insectile Aberration").unwrap();
        let names: Vec<&str> = delver.faces().iter().map(|face| face.name.as_str()).collect();
        assert_eq!(names, ["Delver of Secrets", "Insectile Aberration"]);
        assert_eq!(delver.faces()[1].mana_cost, None);
        let chandra = cards.iter().find(|card| card.name() == "Chandra, Torch of Defiance").unwrap();
        assert_eq!(chandra.faces()[0].loyalty.as_deref(), Some("4"));
    }

    #[test]
    fn faces_are_ordered_by_side_whatever_the_file_order() {
        let json = br#"{"meta":{"date":"d","version":"v"},"data":{"A // B":[
            {"name":"A // B","faceName":"B","side":"b","type":"Land"},
            {"name":"A // B","faceName":"A","side":"a","type":"Sorcery","manaCost":"{R}"}]}}"#;
        let (_, cards) = parse(json).unwrap();
        assert_eq!(cards[0].faces()[0].name, "A");
        assert_eq!(cards[0].faces()[1].name, "B");
    }

    #[test]
    fn bad_files_are_refused_with_their_json_path() {
        let long = format!(
            r#"{{"meta":{{"date":"d","version":"v"}},"data":{{"X":[{{"name":"X","type":"Land","text":"{}"}}]}}}}"#,
            "a".repeat(MAX_TEXT_BYTES + 1)
        );
        let cases: [(&[u8], &str); 8] = [
            (
                br#"{"meta":{"date":"d","version":"v"},"data":{"Goblin Guide":[{"name":"Goblin Guide"}]}}"#,
                r#"at data["Goblin Guide"][0]: missing field `type`"#,
            ),
            (
                br#"{"meta":{"date":"d","version":"v"},"data":{"Bolt":[{"name":"Bolt","type":3}]}}"#,
                "at data.Bolt[0].type: invalid type: integer `3`, expected a string",
            ),
            (br#"{"meta":{"date":"d"},"data":{}}"#, "at meta: missing field `version`"),
            (br#"{"meta":{"date":"d","version":"v"},"data":{"X":[]}}"#, r#"at data["X"]: 0 faces"#),
            (br#"{"meta":{"date":"d","version":"v"},"data":{"#, "EOF while parsing"),
            (long.as_bytes(), r#"at data["X"][0]: a text of 8193 bytes"#),
            (br#"{"meta":{"date":"d","version":"v"},"data":{}}"#, "at data: 0 cards: at least 1"),
            (
                br#"{"meta":{"date":"d","version":"v"},"data":{"X":[{"name":"X","type":"Land","text":"\u001b[2J"}]}}"#,
                r#"at data["X"][0]: a control character ('\u{1b}')"#,
            ),
        ];
        for (json, needle) in cases {
            let error = parse(json).unwrap_err();
            assert!(error.contains(needle), "{error}");
        }
    }
}
