//! The XML formats: Cockatrice `.cod` and MTGO `.dek`.

use std::fmt;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::name::normalise;
use super::{Builder, Deck, DeckFormat, DeckParseError, MAX_LINE_BYTES, MAX_NAME_BYTES, Zone};

pub(super) fn parse_xml(format: DeckFormat, text: &str) -> Result<Deck, DeckParseError> {
    let mut builder = Builder::new(format);
    let line_at = |pos: u64| {
        let end = usize::try_from(pos).unwrap_or(usize::MAX).min(text.len());
        text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
    };
    let (root, card_tag) = match format {
        DeckFormat::Cockatrice => ("cockatrice_deck", "card"),
        _ => ("Deck", "Cards"),
    };
    let mut reader = Reader::from_str(text);
    let mut open: Vec<String> = Vec::new();
    let mut zone = Zone::Skip;
    let mut seen_root = false;
    loop {
        let line = line_at(reader.buffer_position());
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                let line = line_at(reader.error_position());
                return Err(builder.error(Some(line), None, format!("malformed XML: {e}")));
            }
        };
        let (element, is_start) = match event {
            Event::Start(element) => (element, true),
            Event::Empty(element) => (element, false),
            Event::End(_) => {
                if open.pop().as_deref() == Some("zone") {
                    zone = Zone::Skip;
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let tag = element.name().as_ref().to_string();
        if open.is_empty() {
            if seen_root || tag != root {
                return Err(builder.error(
                    Some(line),
                    None,
                    format!("expected the root element `<{root}>` of a {format}, found `<{tag}>`"),
                ));
            }
            seen_root = true;
        } else if format == DeckFormat::Cockatrice && tag == "zone" && open.len() == 1 {
            let name = attribute(&builder, &element, "name", line)?.unwrap_or_default();
            zone = match name.as_str() {
                "main" => Zone::Main,
                "side" => Zone::Side,
                "tokens" => Zone::Skip,
                other => {
                    return Err(builder.error(
                        Some(line),
                        None,
                        format!("unknown zone `{other}`: expected `main`, `side` or `tokens`"),
                    ));
                }
            };
        } else if tag == card_tag && (format == DeckFormat::MtgoDek || open.last().map(String::as_str) == Some("zone"))
        {
            let (count_attr, name_attr) =
                if format == DeckFormat::Cockatrice { ("number", "name") } else { ("Quantity", "Name") };
            let card_zone = if format == DeckFormat::MtgoDek {
                let side = attribute(&builder, &element, "Sideboard", line)?;
                match side.as_deref().map(str::trim) {
                    None => Zone::Main,
                    Some(v) if v.eq_ignore_ascii_case("false") => Zone::Main,
                    Some(v) if v.eq_ignore_ascii_case("true") => Zone::Side,
                    Some(v) => {
                        return Err(builder.error(
                            Some(line),
                            None,
                            format!("expected `Sideboard=\"true\"` or `Sideboard=\"false\"`, found `{v}`"),
                        ));
                    }
                }
            } else {
                zone
            };
            let example = format.example();
            let count = attribute(&builder, &element, count_attr, line)?.ok_or_else(|| {
                builder.error(Some(line), None, format!("expected a `{count_attr}` attribute, e.g. `{example}`"))
            })?;
            let count = count.trim();
            if count.is_empty() || !count.chars().all(|c| c.is_ascii_digit()) {
                return Err(builder.error(
                    Some(line),
                    None,
                    format!("expected `{count_attr}` to be a count such as \"4\", found \"{count}\""),
                ));
            }
            let count = count.parse::<u32>().unwrap_or(u32::MAX);
            builder.check_count(count, line, None)?;
            let name = attribute(&builder, &element, name_attr, line)?.ok_or_else(|| {
                builder.error(Some(line), None, format!("expected a `{name_attr}` attribute, e.g. `{example}`"))
            })?;
            // Cockatrice takes a `.cod` name as written; an MTGO name gets the plain-text reader's spelling
            // (`Wear/Tear` is `Wear // Tear`).
            if name.len() > MAX_LINE_BYTES {
                let message = format!("the card name is {} bytes long: at most {MAX_NAME_BYTES}", name.len());
                return Err(builder.error(Some(line), None, message));
            }
            let name = if format == DeckFormat::Cockatrice { name } else { normalise(&name).trim().to_string() };
            builder.add(card_zone, count, name, line, None)?;
        }
        if is_start {
            open.push(tag);
        }
    }
    if let Some(unclosed) = open.last() {
        let line = line_at(text.len() as u64);
        return Err(builder.error(Some(line), None, format!("the file ends inside `<{unclosed}>`")));
    }
    if !seen_root {
        return Err(builder.error(None, None, format!("expected a {format} starting with `<{root}>`")));
    }
    builder.finish()
}

fn attribute(
    builder: &Builder,
    element: &BytesStart<'_>,
    name: &str,
    line: usize,
) -> Result<Option<String>, DeckParseError> {
    let malformed =
        |e: &dyn fmt::Display| builder.error(Some(line), None, format!("malformed attribute `{name}`: {e}"));
    match element.try_get_attribute(name).map_err(|e| malformed(&e))? {
        Some(attr) => Ok(Some(attr.normalized_value(XmlVersion::Implicit1_0).map_err(|e| malformed(&e))?.into_owned())),
        None => Ok(None),
    }
}
