//! One MTGJSON per-set file (the shape of MTGJSON's "All Set Files": `{"meta": …, "data": {"code", "name",
//! "cards": […], "booster": {kind: {"boosters": […], "boostersTotalWeight", "sheets": {…}}}}}`), read into
//! typed values.
//!
//! The file comes from the player and is compared with the opponent's only by hash, so it is hostile input:
//! every refusal names its reason and its place (a JSON path such as
//! `data.booster.draft.sheets.common.cards["ab12…"]`, or the line and column of broken JSON), and every limit
//! is checked where the data enters. Fields this reader does not use are ignored.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::num::NonZeroU64;

use serde_json::{Map, Value};

/// The largest set file read. MTGJSON's largest per-set files are a few tens of megabytes.
pub const MAX_SET_FILE_BYTES: usize = 64 << 20;
/// The most cards in a set, and in one sheet.
pub const MAX_CARDS: usize = 20_000;
/// The most booster kinds (`draft`, `play`, `collector`…) in a set.
pub const MAX_BOOSTER_KINDS: usize = 64;
/// The most layouts (`boosters[]` entries) in one booster kind.
pub const MAX_LAYOUTS: usize = 1_024;
/// The most sheets in one booster kind.
pub const MAX_SHEETS: usize = 256;
/// The most cards in one booster.
pub const MAX_BOOSTER_CARDS: u64 = 64;
/// The longest name, code, uuid, rarity, booster kind or sheet name, in bytes.
pub const MAX_TEXT_BYTES: usize = 256;

/// A card's rarity as MTGJSON names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Rarity {
    /// `common` (basic lands are common in MTGJSON).
    Common,
    /// `uncommon`.
    Uncommon,
    /// `rare`.
    Rare,
    /// `mythic`.
    Mythic,
    /// `special` (timeshifted cards and the like).
    Special,
    /// `bonus` (bonus sheet cards).
    Bonus,
    /// A rarity this program does not know, kept as written.
    Other(String),
}

impl Rarity {
    fn from_mtgjson(text: String) -> Self {
        match text.as_str() {
            "common" => Self::Common,
            "uncommon" => Self::Uncommon,
            "rare" => Self::Rare,
            "mythic" => Self::Mythic,
            "special" => Self::Special,
            "bonus" => Self::Bonus,
            _ => Self::Other(text),
        }
    }
}

/// One card of a set (one printing: MTGJSON gives each face and each variant its own uuid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetCard {
    /// The card's name, as a deck file names it.
    pub name: String,
    /// Its rarity.
    pub rarity: Rarity,
    /// MTGJSON's uuid of this printing, unique in the set.
    pub uuid: String,
}

/// A set file read and checked: its cards and its booster kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetFile {
    code: String,
    name: String,
    cards: Vec<SetCard>,
    boosters: BTreeMap<String, BoosterKind>,
}

impl SetFile {
    /// Reads a set file, refusing a malformed or unsupported one with the reason and its place.
    pub fn parse(bytes: &[u8]) -> Result<Self, SetFileError> {
        if bytes.len() > MAX_SET_FILE_BYTES {
            return Err(SetFileError { place: Place::File, problem: Problem::TooLarge { bytes: bytes.len() } });
        }
        // serde_json refuses nesting deeper than 128, so a hostile file cannot exhaust the stack.
        let root: Value = serde_json::from_slice(bytes).map_err(|error| SetFileError {
            place: Place::Text { line: error.line(), column: error.column() },
            problem: match error.classify() {
                serde_json::error::Category::Eof => Problem::Truncated,
                _ => Problem::NotJson,
            },
        })?;
        let top = JsonPath::default();
        let (data, data_at) = field(object(&root, &top)?, "data", &top)?;
        let data = object(data, &data_at)?;
        let (code, code_at) = field(data, "code", &data_at)?;
        let (name, name_at) = field(data, "name", &data_at)?;
        let cards = parse_cards(data, &data_at)?;
        let mut uuids = HashMap::with_capacity(cards.len());
        for (index, card) in cards.iter().enumerate() {
            if let Some(first) = uuids.insert(card.uuid.as_str(), index) {
                let at = data_at.key("cards").index(index).key("uuid");
                return Err(at.error(Problem::DuplicateUuid { first }));
            }
        }
        let boosters = match data.get("booster") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(booster) => parse_booster_kinds(booster, &data_at.key("booster"), &uuids)?,
        };
        Ok(Self { code: text(code, &code_at)?, name: text(name, &name_at)?, cards, boosters })
    }

    /// The set's code (`data.code`).
    #[must_use]
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The set's name (`data.name`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The set's cards, in the file's order; sheets refer to them by index.
    #[must_use]
    pub fn cards(&self) -> &[SetCard] {
        &self.cards
    }

    /// The booster kinds, by name (`draft`, `play`, `collector`…); none when the file has no `data.booster`.
    #[must_use]
    pub fn boosters(&self) -> &BTreeMap<String, BoosterKind> {
        &self.boosters
    }
}

/// One kind of booster of a set: its layouts, each drawn with odds of its weight, and the sheets they draw from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoosterKind {
    pub(super) layouts: Vec<Layout>,
    pub(super) total_weight: NonZeroU64,
    pub(super) sheets: Vec<Sheet>,
}

impl BoosterKind {
    /// The layouts (`boosters[]`), in the file's order.
    #[must_use]
    pub fn layouts(&self) -> &[Layout] {
        &self.layouts
    }

    /// The sum of the layouts' weights (`boostersTotalWeight`).
    #[must_use]
    pub fn total_weight(&self) -> NonZeroU64 {
        self.total_weight
    }

    /// The sheets, sorted by name; layouts refer to them by index.
    #[must_use]
    pub fn sheets(&self) -> &[Sheet] {
        &self.sheets
    }
}

/// One layout of a booster: how many cards from which sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub(super) weight: NonZeroU64,
    pub(super) contents: Vec<(usize, u64)>,
}

impl Layout {
    /// The layout's odds against the kind's other layouts.
    #[must_use]
    pub fn weight(&self) -> NonZeroU64 {
        self.weight
    }

    /// (index of a sheet in `BoosterKind::sheets`, number of cards from it), by sheet index, each sheet once.
    #[must_use]
    pub fn contents(&self) -> &[(usize, u64)] {
        &self.contents
    }

    /// The number of cards this layout takes from one sheet.
    #[must_use]
    pub fn count_of(&self, sheet: usize) -> u64 {
        self.contents.iter().find(|(index, _)| *index == sheet).map_or(0, |(_, count)| *count)
    }
}

/// One sheet: the cards a booster slot is drawn from, each with odds of its weight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sheet {
    pub(super) name: String,
    pub(super) cards: Vec<(usize, NonZeroU64)>,
    pub(super) total_weight: NonZeroU64,
    pub(super) foil: bool,
}

impl Sheet {
    /// The sheet's name in the file.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// (index of a card in `SetFile::cards`, weight), by card index, each card once.
    #[must_use]
    pub fn cards(&self) -> &[(usize, NonZeroU64)] {
        &self.cards
    }

    /// The sum of the cards' weights (`totalWeight`).
    #[must_use]
    pub fn total_weight(&self) -> NonZeroU64 {
        self.total_weight
    }

    /// Whether the sheet's cards are foils.
    #[must_use]
    pub fn foil(&self) -> bool {
        self.foil
    }
}

/// A set file refused: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {problem}")]
pub struct SetFileError {
    /// Where in the file.
    pub place: Place,
    /// What is wrong there.
    pub problem: Problem,
}

/// Where a set file is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The file as a whole.
    File,
    /// A place in text that is not JSON (1-based line and column, as serde_json counts them).
    Text {
        /// The line.
        line: usize,
        /// The column.
        column: usize,
    },
    /// A value of the JSON document.
    Json(JsonPath),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File => f.write_str("the file"),
            Self::Text { line, column } => write!(f, "line {line}, column {column}"),
            Self::Json(path) => path.fmt(f),
        }
    }
}

/// What is wrong in a set file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The file is over `MAX_SET_FILE_BYTES`.
    #[error("the file is {bytes} bytes long: at most {MAX_SET_FILE_BYTES}")]
    TooLarge {
        /// The file's length.
        bytes: usize,
    },
    /// The JSON stops before its end.
    #[error("the file ends in the middle of its JSON (truncated?)")]
    Truncated,
    /// The text is not JSON.
    #[error("not valid JSON")]
    NotJson,
    /// A required field is absent.
    #[error("missing")]
    Missing,
    /// A value of the wrong JSON type.
    #[error("must be {0}")]
    WrongType(&'static str),
    /// A weight or count that is zero, negative, fractional or over 2^64 - 1.
    #[error("must be a positive integer")]
    NotPositive,
    /// A text or name over `MAX_TEXT_BYTES`, or empty.
    #[error("must be a text of 1 to {MAX_TEXT_BYTES} bytes")]
    BadText,
    /// A list or object with more entries than its limit.
    #[error("has {count} entries: at most {limit}")]
    TooMany {
        /// Entries found.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A list or object that must have entries has none.
    #[error("must not be empty")]
    Empty,
    /// A card's uuid is the uuid of an earlier card.
    #[error("the same uuid as data.cards[{first}]")]
    DuplicateUuid {
        /// The earlier card.
        first: usize,
    },
    /// A sheet names a uuid that no card of `data.cards` has.
    #[error("no card with this uuid")]
    UnknownCard,
    /// A layout names a sheet that the booster kind does not have.
    #[error("no sheet of this name in the booster kind")]
    UnknownSheet,
    /// Weights whose sum does not fit in 64 bits.
    #[error("the weights add up to more than 2^64 - 1")]
    Overflow,
    /// A stated total that is not the sum of its weights.
    #[error("states {stated}, but the weights add up to {sum}")]
    WrongTotal {
        /// The file's total.
        stated: u64,
        /// The sum of the weights.
        sum: u64,
    },
    /// A layout with more cards than `MAX_BOOSTER_CARDS`.
    #[error("a booster of more than {MAX_BOOSTER_CARDS} cards")]
    BoosterTooLarge,
    /// Something MTGJSON allows that fairdeck does not deal.
    #[error("not supported: {0}")]
    Unsupported(&'static str),
}

/// A place in a JSON document: `data.booster.draft.sheets.common.cards["ab12…"]`, `data.cards[3].uuid`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JsonPath(Vec<Step>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

impl JsonPath {
    fn key(&self, key: &str) -> Self {
        let mut steps = self.0.clone();
        steps.push(Step::Key(key.to_owned()));
        Self(steps)
    }

    fn index(&self, index: usize) -> Self {
        let mut steps = self.0.clone();
        steps.push(Step::Index(index));
        Self(steps)
    }

    fn error(self, problem: Problem) -> SetFileError {
        SetFileError { place: Place::Json(self), problem }
    }
}

/// Keys longer than this are shortened in messages, so a hostile key cannot flood the terminal.
const SHOWN_KEY_CHARS: usize = 48;

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("the top level");
        }
        for (position, step) in self.0.iter().enumerate() {
            match step {
                Step::Index(index) => write!(f, "[{index}]")?,
                Step::Key(key) if is_identifier(key) && position == 0 => f.write_str(key)?,
                Step::Key(key) if is_identifier(key) => write!(f, ".{key}")?,
                Step::Key(key) => {
                    let mut shown: String = key.chars().take(SHOWN_KEY_CHARS).collect();
                    if shown.len() < key.len() {
                        shown.push('…');
                    }
                    // Quoted as JSON, so control characters and quotes in the key are escaped.
                    write!(f, "[{}]", Value::String(shown))?;
                }
            }
        }
        Ok(())
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && key.len() <= SHOWN_KEY_CHARS
}

fn object<'v>(value: &'v Value, at: &JsonPath) -> Result<&'v Map<String, Value>, SetFileError> {
    value.as_object().ok_or_else(|| at.clone().error(Problem::WrongType("an object")))
}

/// An object or list's entries, refused when empty or over `limit`.
fn check_size(count: usize, limit: usize, at: &JsonPath) -> Result<(), SetFileError> {
    match count {
        0 => Err(at.clone().error(Problem::Empty)),
        count if count > limit => Err(at.clone().error(Problem::TooMany { count, limit })),
        _ => Ok(()),
    }
}

fn field<'v>(map: &'v Map<String, Value>, key: &str, at: &JsonPath) -> Result<(&'v Value, JsonPath), SetFileError> {
    let at = at.key(key);
    match map.get(key) {
        Some(value) => Ok((value, at)),
        None => Err(at.error(Problem::Missing)),
    }
}

fn text(value: &Value, at: &JsonPath) -> Result<String, SetFileError> {
    let text = value.as_str().ok_or_else(|| at.clone().error(Problem::WrongType("a text")))?;
    name_text(text, at).map(str::to_owned)
}

fn name_text<'t>(text: &'t str, at: &JsonPath) -> Result<&'t str, SetFileError> {
    if text.is_empty() || text.len() > MAX_TEXT_BYTES {
        return Err(at.clone().error(Problem::BadText));
    }
    Ok(text)
}

fn positive(value: &Value, at: &JsonPath) -> Result<NonZeroU64, SetFileError> {
    value.as_u64().and_then(NonZeroU64::new).ok_or_else(|| at.clone().error(Problem::NotPositive))
}

/// Checks a stated total against the sum of its weights, summed without overflow.
fn total(
    weights: impl Iterator<Item = NonZeroU64>,
    stated: (&Value, JsonPath),
    sum_at: &JsonPath,
) -> Result<NonZeroU64, SetFileError> {
    let mut sum = 0u64;
    for weight in weights {
        sum = sum.checked_add(weight.get()).ok_or_else(|| sum_at.clone().error(Problem::Overflow))?;
    }
    let (stated, stated_at) = stated;
    let stated = positive(stated, &stated_at)?;
    if stated.get() != sum {
        return Err(stated_at.error(Problem::WrongTotal { stated: stated.get(), sum }));
    }
    Ok(stated)
}

fn parse_cards(data: &Map<String, Value>, data_at: &JsonPath) -> Result<Vec<SetCard>, SetFileError> {
    let (cards, at) = field(data, "cards", data_at)?;
    let cards = cards.as_array().ok_or_else(|| at.clone().error(Problem::WrongType("a list")))?;
    check_size(cards.len(), MAX_CARDS, &at)?;
    let mut read = Vec::with_capacity(cards.len());
    for (index, card) in cards.iter().enumerate() {
        let card_at = at.index(index);
        let card = object(card, &card_at)?;
        let (name, name_at) = field(card, "name", &card_at)?;
        let (rarity, rarity_at) = field(card, "rarity", &card_at)?;
        let (uuid, uuid_at) = field(card, "uuid", &card_at)?;
        read.push(SetCard {
            name: text(name, &name_at)?,
            rarity: Rarity::from_mtgjson(text(rarity, &rarity_at)?),
            uuid: text(uuid, &uuid_at)?,
        });
    }
    Ok(read)
}

fn parse_booster_kinds(
    booster: &Value,
    at: &JsonPath,
    uuids: &HashMap<&str, usize>,
) -> Result<BTreeMap<String, BoosterKind>, SetFileError> {
    let kinds = object(booster, at)?;
    if kinds.len() > MAX_BOOSTER_KINDS {
        return Err(at.clone().error(Problem::TooMany { count: kinds.len(), limit: MAX_BOOSTER_KINDS }));
    }
    let mut read = BTreeMap::new();
    for (name, kind) in kinds {
        let kind_at = at.key(name);
        read.insert(name_text(name, &kind_at)?.to_owned(), parse_kind(kind, &kind_at, uuids)?);
    }
    Ok(read)
}

fn parse_kind(kind: &Value, at: &JsonPath, uuids: &HashMap<&str, usize>) -> Result<BoosterKind, SetFileError> {
    let kind = object(kind, at)?;
    let (sheets, sheets_at) = field(kind, "sheets", at)?;
    let sheets = object(sheets, &sheets_at)?;
    check_size(sheets.len(), MAX_SHEETS, &sheets_at)?;
    let mut read_sheets = Vec::with_capacity(sheets.len());
    for (name, sheet) in sheets {
        read_sheets.push(parse_sheet(name, sheet, &sheets_at.key(name), uuids)?);
    }
    // Sorted by name whatever the JSON map's order, so both players number the sheets alike.
    read_sheets.sort_by(|a, b| a.name.cmp(&b.name));

    let (layouts, layouts_at) = field(kind, "boosters", at)?;
    let layouts = layouts.as_array().ok_or_else(|| layouts_at.clone().error(Problem::WrongType("a list")))?;
    check_size(layouts.len(), MAX_LAYOUTS, &layouts_at)?;
    let layouts = layouts
        .iter()
        .enumerate()
        .map(|(index, layout)| parse_layout(layout, &layouts_at.index(index), &read_sheets))
        .collect::<Result<Vec<_>, _>>()?;
    let total_weight =
        total(layouts.iter().map(|layout| layout.weight), field(kind, "boostersTotalWeight", at)?, &layouts_at)?;
    Ok(BoosterKind { layouts, total_weight, sheets: read_sheets })
}

fn parse_sheet(name: &str, sheet: &Value, at: &JsonPath, uuids: &HashMap<&str, usize>) -> Result<Sheet, SetFileError> {
    name_text(name, at)?;
    let sheet = object(sheet, at)?;
    if sheet.get("fixed") == Some(&Value::Bool(true)) {
        let reason = "a fixed sheet (the same cards in every booster, as in Jumpstart) is not dealt at random";
        return Err(at.key("fixed").error(Problem::Unsupported(reason)));
    }
    let foil = match sheet.get("foil") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(foil)) => *foil,
        Some(_) => return Err(at.key("foil").error(Problem::WrongType("true or false"))),
    };
    let (cards, cards_at) = field(sheet, "cards", at)?;
    let cards = object(cards, &cards_at)?;
    check_size(cards.len(), MAX_CARDS, &cards_at)?;
    let mut read = Vec::with_capacity(cards.len());
    for (uuid, weight) in cards {
        let card_at = cards_at.key(uuid);
        let index = *uuids.get(uuid.as_str()).ok_or_else(|| card_at.clone().error(Problem::UnknownCard))?;
        read.push((index, positive(weight, &card_at)?));
    }
    read.sort_unstable();
    let total_weight = total(read.iter().map(|(_, weight)| *weight), field(sheet, "totalWeight", at)?, &cards_at)?;
    Ok(Sheet { name: name.to_owned(), cards: read, total_weight, foil })
}

fn parse_layout(layout: &Value, at: &JsonPath, sheets: &[Sheet]) -> Result<Layout, SetFileError> {
    let layout = object(layout, at)?;
    let (weight, weight_at) = field(layout, "weight", at)?;
    let weight = positive(weight, &weight_at)?;
    let (contents, contents_at) = field(layout, "contents", at)?;
    let contents = object(contents, &contents_at)?;
    check_size(contents.len(), MAX_SHEETS, &contents_at)?;
    let mut read = Vec::with_capacity(contents.len());
    let mut cards = 0u64;
    for (name, count) in contents {
        let count_at = contents_at.key(name);
        let sheet = sheets
            .binary_search_by(|sheet| sheet.name.as_str().cmp(name))
            .map_err(|_| count_at.clone().error(Problem::UnknownSheet))?;
        let count = positive(count, &count_at)?.get();
        // Saturating: any sum over the limit is refused on the next line anyway.
        cards = cards.saturating_add(count);
        if cards > MAX_BOOSTER_CARDS {
            return Err(contents_at.error(Problem::BoosterTooLarge));
        }
        read.push((sheet, count));
    }
    read.sort_unstable();
    Ok(Layout { weight, contents: read })
}

#[cfg(test)]
mod tests;
