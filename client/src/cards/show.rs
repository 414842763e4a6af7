//! A card printed for a player (`fairdeck card NAME`) or a program (`--json`), and the database's summary
//! (`fairdeck cards`).

use std::path::Path;

use serde::Serialize;

use super::{Card, Face, Header, Imported, Updated};

/// `fairdeck card NAME --json`: the card's own fields, then every face (one for most cards). A card of
/// several faces has its full name and `null` in its other fields: they are the faces'.
#[derive(Serialize)]
struct CardJson<'a> {
    #[serde(flatten)]
    card: FaceJson<'a>,
    faces: Vec<FaceJson<'a>>,
}

#[derive(Serialize)]
struct FaceJson<'a> {
    name: &'a str,
    mana_cost: Option<&'a str>,
    #[serde(rename = "type")]
    type_line: Option<&'a str>,
    text: Option<&'a str>,
    power: Option<&'a str>,
    toughness: Option<&'a str>,
    loyalty: Option<&'a str>,
}

impl<'a> FaceJson<'a> {
    fn of(face: &'a Face) -> Self {
        Self {
            name: &face.name,
            mana_cost: face.mana_cost.as_deref(),
            type_line: Some(&face.type_line),
            text: face.text.as_deref(),
            power: face.power.as_deref(),
            toughness: face.toughness.as_deref(),
            loyalty: face.loyalty.as_deref(),
        }
    }
}

/// `{"name","mana_cost","type","text","power","toughness","loyalty","faces":[…]}`, `null` where absent.
pub fn to_json(card: &Card) -> serde_json::Result<String> {
    let faces: Vec<FaceJson> = card.faces.iter().map(FaceJson::of).collect();
    let own = match card.faces.as_slice() {
        [only] => FaceJson { name: &card.name, ..FaceJson::of(only) },
        _ => FaceJson {
            name: &card.name,
            mana_cost: None,
            type_line: None,
            text: None,
            power: None,
            toughness: None,
            loyalty: None,
        },
    };
    serde_json::to_string(&CardJson { card: own, faces })
}

/// The card as a player reads it: for each face, its name and mana cost, type line, oracle text, and
/// power/toughness or loyalty; a card of several faces first gives its full name.
pub fn to_text(card: &Card) -> String {
    let faces: Vec<String> = card.faces.iter().map(face_text).collect();
    match faces.as_slice() {
        [only] => only.clone(),
        _ => format!("{}\n\n{}", card.name, faces.join("\n\n")),
    }
}

fn face_text(face: &Face) -> String {
    let mut lines = vec![match &face.mana_cost {
        Some(cost) if !cost.is_empty() => format!("{}  {cost}", face.name),
        _ => face.name.clone(),
    }];
    lines.push(face.type_line.clone());
    lines.extend(face.text.iter().cloned());
    if let (Some(power), Some(toughness)) = (&face.power, &face.toughness) {
        lines.push(format!("{power}/{toughness}"));
    }
    lines.extend(face.loyalty.iter().map(|loyalty| format!("Loyalty: {loyalty}")));
    lines.join("\n")
}

/// `fairdeck cards`: what the database is.
pub(super) fn status(header: &Header, path: &Path, file_bytes: u64) -> String {
    format!(
        "Card database: {} cards, MTGJSON {} of {}\nImported {} from {}\nFile: {} ({})",
        header.cards,
        header.version,
        header.date,
        crate::save::format_time(header.imported),
        header.source,
        path.display(),
        size(file_bytes),
    )
}

/// `fairdeck cards import FILE`: what was imported, and where.
pub fn imported_text(imported: &Imported) -> String {
    let header = &imported.header;
    format!(
        "Imported {} cards (MTGJSON {} of {}) from {}\ninto {} ({})",
        header.cards,
        header.version,
        header.date,
        header.source,
        imported.path.display(),
        size(imported.file_bytes),
    )
}

/// `fairdeck cards update`: what was imported, and the checksum that vouched for it.
pub fn updated_text(updated: &Updated) -> String {
    format!("{}\nSHA-256 {}, as published beside it", imported_text(&updated.imported), updated.sha256)
}

/// 12.3 MB, 45.6 KB or 789 bytes.
fn size(bytes: u64) -> String {
    match bytes {
        0..1_000 => format!("{bytes} bytes"),
        1_000..1_000_000 => format!("{:.1} KB", bytes as f64 / 1e3),
        _ => format!("{:.1} MB", bytes as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(name: &str, cost: Option<&str>, type_line: &str, text: &str, pt: Option<(&str, &str)>) -> Face {
        Face {
            name: name.into(),
            mana_cost: cost.map(Into::into),
            type_line: type_line.into(),
            text: Some(text.into()),
            power: pt.map(|(p, _)| p.into()),
            toughness: pt.map(|(_, t)| t.into()),
            loyalty: None,
        }
    }

    fn delver() -> Card {
        Card {
            name: "Delver of Secrets // Insectile Aberration".into(),
            faces: vec![
                face("Delver of Secrets", Some("{U}"), "Creature — Human Wizard", "Transform it.", Some(("1", "1"))),
                face("Insectile Aberration", None, "Creature — Human Insect", "Flying", Some(("3", "2"))),
            ],
        }
    }

    #[test]
    fn text_gives_both_faces_of_a_double_faced_card() {
        assert_eq!(
            to_text(&delver()),
            "Delver of Secrets // Insectile Aberration\n\n\
             Delver of Secrets  {U}\nCreature — Human Wizard\nTransform it.\n1/1\n\n\
             Insectile Aberration\nCreature — Human Insect\nFlying\n3/2"
        );
        let mut walker =
            face("Chandra", Some("{2}{R}{R}"), "Legendary Planeswalker — Chandra", "+1: Add {R}{R}.", None);
        walker.loyalty = Some("4".into());
        let card = Card { name: "Chandra".into(), faces: vec![walker] };
        assert_eq!(to_text(&card), "Chandra  {2}{R}{R}\nLegendary Planeswalker — Chandra\n+1: Add {R}{R}.\nLoyalty: 4");
    }

    #[test]
    fn json_has_every_key_with_null_where_absent() {
        let json: serde_json::Value = serde_json::from_str(&to_json(&delver()).unwrap()).unwrap();
        let keys = ["name", "mana_cost", "type", "text", "power", "toughness", "loyalty", "faces"];
        assert_eq!(json.as_object().unwrap().keys().collect::<Vec<_>>().len(), keys.len());
        assert_eq!(json["name"], "Delver of Secrets // Insectile Aberration");
        assert_eq!(json["type"], serde_json::Value::Null);
        assert_eq!(json["faces"][1]["mana_cost"], serde_json::Value::Null);
        assert_eq!(json["faces"][1]["power"], "3");
        assert_eq!(json["faces"][0]["loyalty"], serde_json::Value::Null);
        let single = Card { name: "Bolt".into(), faces: vec![face("Bolt", Some("{R}"), "Instant", "3 damage.", None)] };
        let json: serde_json::Value = serde_json::from_str(&to_json(&single).unwrap()).unwrap();
        assert_eq!(json["mana_cost"], "{R}");
        assert_eq!(json["faces"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn sizes() {
        assert_eq!(size(789), "789 bytes");
        assert_eq!(size(45_600), "45.6 KB");
        assert_eq!(size(12_345_678), "12.3 MB");
    }
}
