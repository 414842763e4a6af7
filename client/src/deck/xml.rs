//! The XML formats: Cockatrice `.cod` and MTGO `.dek`.

use std::fmt;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::name::normalise;
use super::{Builder, DeckFormat, DeckParseError, MAX_LINE_BYTES, MAX_NAME_BYTES, ReadDeck, Zone};

pub(super) fn parse_xml(format: DeckFormat, text: &str) -> Result<ReadDeck, DeckParseError> {
    let mut walk = Walk::new(format);
    let line_at = |pos: u64| {
        let end = usize::try_from(pos).unwrap_or(usize::MAX).min(text.len());
        text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
    };
    let mut reader = Reader::from_str(text);
    loop {
        let line = line_at(reader.buffer_position());
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                let line = line_at(reader.error_position());
                return Err(walk.builder.error(Some(line), None, format!("malformed XML: {e}")));
            }
        };
        match event {
            Event::Start(element) => {
                let tag = walk.element(&element, line)?;
                walk.open.push(tag);
            }
            Event::Empty(element) => {
                walk.element(&element, line)?;
            }
            Event::End(_) => walk.close(),
            Event::Eof => break,
            _ => {}
        }
    }
    walk.finish(line_at(text.len() as u64))
}

/// Where the reading is in a deck file: the elements open, the `.cod` zone they are in, and the cards so far.
struct Walk {
    format: DeckFormat,
    builder: Builder,
    /// The root element's tag, and the tag of a card entry.
    root: &'static str,
    card_tag: &'static str,
    open: Vec<String>,
    zone: Zone,
    seen_root: bool,
}

impl Walk {
    fn new(format: DeckFormat) -> Walk {
        let (root, card_tag) = match format {
            DeckFormat::Cockatrice => ("cockatrice_deck", "card"),
            _ => ("Deck", "Cards"),
        };
        Walk {
            format,
            builder: Builder::new(format),
            root,
            card_tag,
            open: Vec::new(),
            zone: Zone::Skip,
            seen_root: false,
        }
    }

    /// Takes in an element that starts at `line` (the root, a `.cod` zone, a card, or anything else, which is
    /// passed over); returns its tag.
    fn element(&mut self, element: &BytesStart<'_>, line: usize) -> Result<String, DeckParseError> {
        let tag = element.name().as_ref().to_string();
        let format = self.format;
        if self.open.is_empty() {
            if self.seen_root || tag != self.root {
                let root = self.root;
                let message = format!("expected the root element `<{root}>` of a {format}, found `<{tag}>`");
                return Err(self.builder.error(Some(line), None, message));
            }
            self.seen_root = true;
        } else if format == DeckFormat::Cockatrice && tag == "zone" && self.open.len() == 1 {
            self.zone = self.cod_zone(element, line)?;
        } else if tag == self.card_tag
            && (format == DeckFormat::MtgoDek || self.open.last().map(String::as_str) == Some("zone"))
        {
            self.card(element, line)?;
        }
        Ok(tag)
    }

    /// An element ends: past a `.cod` zone's end, cards belong to none.
    fn close(&mut self) {
        if self.open.pop().as_deref() == Some("zone") {
            self.zone = Zone::Skip;
        }
    }

    /// The file ended at `last_line`: every element must be closed and the root met.
    fn finish(self, last_line: usize) -> Result<ReadDeck, DeckParseError> {
        if let Some(unclosed) = self.open.last() {
            return Err(self.builder.error(Some(last_line), None, format!("the file ends inside `<{unclosed}>`")));
        }
        if !self.seen_root {
            let (format, root) = (self.format, self.root);
            return Err(self.builder.error(None, None, format!("expected a {format} starting with `<{root}>`")));
        }
        self.builder.finish()
    }

    /// A `.cod` `<zone name="…">`: the zone its cards go to.
    fn cod_zone(&self, element: &BytesStart<'_>, line: usize) -> Result<Zone, DeckParseError> {
        let name = attribute(&self.builder, element, "name", line)?.unwrap_or_default();
        match name.as_str() {
            "main" => Ok(Zone::Main),
            "side" => Ok(Zone::Side),
            "tokens" => Ok(Zone::Skip),
            other => Err(self.builder.error(
                Some(line),
                None,
                format!("unknown zone `{other}`: expected `main`, `side` or `tokens`"),
            )),
        }
    }

    /// A card entry: its count and name, into its zone.
    fn card(&mut self, element: &BytesStart<'_>, line: usize) -> Result<(), DeckParseError> {
        let (format, builder) = (self.format, &self.builder);
        let (count_attr, name_attr) =
            if format == DeckFormat::Cockatrice { ("number", "name") } else { ("Quantity", "Name") };
        let zone = if format == DeckFormat::MtgoDek { dek_zone(builder, element, line)? } else { self.zone };
        let example = format.example();
        let count = attribute(builder, element, count_attr, line)?.ok_or_else(|| {
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
        let name = attribute(builder, element, name_attr, line)?.ok_or_else(|| {
            builder.error(Some(line), None, format!("expected a `{name_attr}` attribute, e.g. `{example}`"))
        })?;
        // Cockatrice takes a `.cod` name as written; an MTGO name gets the plain-text reader's spelling
        // (`Wear/Tear` is `Wear // Tear`).
        if name.len() > MAX_LINE_BYTES {
            let message = format!("the card name is {} bytes long: at most {MAX_NAME_BYTES}", name.len());
            return Err(builder.error(Some(line), None, message));
        }
        let name = if format == DeckFormat::Cockatrice { name } else { normalise(&name).trim().to_string() };
        self.builder.add(zone, count, name, line, None)
    }
}

/// An MTGO `.dek` card's zone, from its `Sideboard` attribute.
fn dek_zone(builder: &Builder, element: &BytesStart<'_>, line: usize) -> Result<Zone, DeckParseError> {
    let side = attribute(builder, element, "Sideboard", line)?;
    match side.as_deref().map(str::trim) {
        None => Ok(Zone::Main),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(Zone::Main),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(Zone::Side),
        Some(v) => Err(builder.error(
            Some(line),
            None,
            format!("expected `Sideboard=\"true\"` or `Sideboard=\"false\"`, found `{v}`"),
        )),
    }
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
