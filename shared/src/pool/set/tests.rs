use serde_json::{Value, json};

use super::{Place, Problem, Rarity, SetFile, SetFileError};

const FIXTURE: &[u8] = include_bytes!("../../../../examples/pools/small-set.json");

/// The smallest set file with one booster kind: one card, one sheet, one layout.
fn minimal() -> Value {
    json!({"meta": {"version": "5.2.2"}, "data": {"code": "TST", "name": "Test", "cards": [
        {"name": "Grizzly Bears", "rarity": "common", "uuid": "a1", "artist": "ignored"}
    ], "booster": {"draft": {
        "boosters": [{"contents": {"common": 1}, "weight": 1}],
        "boostersTotalWeight": 1,
        "sheets": {"common": {"cards": {"a1": 1}, "foil": false, "totalWeight": 1}}
    }}}})
}

/// The error a file gives, as a message: place and problem.
fn refusal(file: &Value) -> String {
    refusal_of(&serde_json::to_vec(file).unwrap()).to_string()
}

fn refusal_of(bytes: &[u8]) -> SetFileError {
    SetFile::parse(bytes).expect_err("the file must be refused")
}

fn pointer<'v>(file: &'v mut Value, path: &str) -> &'v mut Value {
    file.pointer_mut(path).unwrap_or_else(|| panic!("no {path} in the test file"))
}

/// Sets the value at a JSON pointer, adding the last key to its object if it is not there.
fn put(file: &mut Value, path: &str, value: Value) {
    let (parent, key) = path.rsplit_once('/').unwrap();
    match pointer(file, parent) {
        Value::Object(map) => {
            map.insert(key.to_owned(), value);
        }
        other => *other.pointer_mut(&format!("/{key}")).unwrap() = value,
    }
}

#[test]
fn the_fixture_reads_with_its_cards_sheets_and_layouts() {
    let set = SetFile::parse(FIXTURE).unwrap();
    assert_eq!((set.code(), set.name(), set.cards().len()), ("FDS", "Fairdeck Sampler", 43));
    let mythics = set.cards().iter().filter(|card| card.rarity == Rarity::Mythic).count();
    assert_eq!(mythics, 2);
    let draft = &set.boosters()["draft"];
    let names: Vec<&str> = draft.sheets().iter().map(|sheet| sheet.name()).collect();
    assert_eq!(names, ["basicLand", "common", "foil", "rareMythic", "uncommon"]);
    let rare_mythic = &draft.sheets()[3];
    assert_eq!(rare_mythic.total_weight().get(), 14);
    for &(card, weight) in rare_mythic.cards() {
        let expected = if set.cards()[card].rarity == Rarity::Mythic { 1 } else { 2 };
        assert_eq!(weight.get(), expected, "{}", set.cards()[card].name);
    }
    assert!(draft.sheets()[2].foil() && !rare_mythic.foil());
    let weights: Vec<u64> = draft.layouts().iter().map(|layout| layout.weight().get()).collect();
    assert_eq!((weights, draft.total_weight().get()), (vec![3, 1], 4));
    assert_eq!(draft.layouts()[1].count_of(2), 1, "the second layout has a foil");
    assert_eq!(draft.layouts()[0].count_of(2), 0);
}

#[test]
fn unknown_rarities_and_extra_fields_are_kept_and_ignored() {
    let mut file = minimal();
    *pointer(&mut file, "/data/cards/0/rarity") = json!("timeshifted");
    let set = SetFile::parse(&serde_json::to_vec(&file).unwrap()).unwrap();
    assert_eq!(set.cards()[0].rarity, Rarity::Other("timeshifted".into()));
    *pointer(&mut file, "/data/booster") = Value::Null;
    assert!(SetFile::parse(&serde_json::to_vec(&file).unwrap()).unwrap().boosters().is_empty());
}

#[test]
fn truncated_json_is_refused_at_its_line_and_column() {
    let cut = &FIXTURE[..FIXTURE.len() / 2];
    let error = refusal_of(cut);
    assert_eq!(error.problem, Problem::Truncated);
    assert!(matches!(error.place, Place::Text { line, .. } if line > 100), "{error}");
    assert_eq!(refusal_of(b"{\"data\": nope}").to_string(), "line 1, column 11: not valid JSON");
}

#[test]
fn a_sheet_card_with_no_such_uuid_is_named_by_its_path() {
    let mut file = minimal();
    *pointer(&mut file, "/data/booster/draft/sheets/common/cards") = json!({"ab12-cd": 1});
    assert_eq!(refusal(&file), "data.booster.draft.sheets.common.cards[\"ab12-cd\"]: no card with this uuid");
}

#[test]
fn zero_fractional_and_negative_weights_are_refused() {
    for weight in [json!(0), json!(1.5), json!(-1), json!("1"), json!(1e30)] {
        let mut file = minimal();
        *pointer(&mut file, "/data/booster/draft/boosters/0/weight") = weight;
        assert_eq!(refusal(&file), "data.booster.draft.boosters[0].weight: must be a positive integer");
    }
    let mut file = minimal();
    *pointer(&mut file, "/data/booster/draft/sheets/common/cards/a1") = json!(0);
    assert_eq!(refusal(&file), "data.booster.draft.sheets.common.cards.a1: must be a positive integer");
}

#[test]
fn a_layout_naming_no_sheet_is_refused() {
    let mut file = minimal();
    *pointer(&mut file, "/data/booster/draft/boosters/0/contents") = json!({"common": 1, "rare sheet": 1});
    assert_eq!(
        refusal(&file),
        "data.booster.draft.boosters[0].contents[\"rare sheet\"]: no sheet of this name in the booster kind"
    );
}

#[test]
fn weights_that_overflow_64_bits_are_refused() {
    let mut file = minimal();
    *pointer(&mut file, "/data/cards") = json!([
        {"name": "Forest", "rarity": "common", "uuid": "a1"},
        {"name": "Island", "rarity": "common", "uuid": "a2"}
    ]);
    let big = 10_000_000_000_000_000_000u64;
    *pointer(&mut file, "/data/booster/draft/sheets/common/cards") = json!({"a1": big, "a2": big});
    assert_eq!(refusal(&file), "data.booster.draft.sheets.common.cards: the weights add up to more than 2^64 - 1");
}

#[test]
fn stated_totals_must_be_the_sums() {
    let mut file = minimal();
    *pointer(&mut file, "/data/booster/draft/sheets/common/totalWeight") = json!(2);
    assert_eq!(refusal(&file), "data.booster.draft.sheets.common.totalWeight: states 2, but the weights add up to 1");
    let mut file = minimal();
    *pointer(&mut file, "/data/booster/draft/boostersTotalWeight") = json!(7);
    assert_eq!(refusal(&file), "data.booster.draft.boostersTotalWeight: states 7, but the weights add up to 1");
}

#[test]
fn missing_fields_wrong_types_and_duplicates_are_refused() {
    let cases: [(&str, Value, &str); 7] = [
        ("/data/cards/0/uuid", json!(7), "data.cards[0].uuid: must be a text"),
        ("/data/cards/0/name", json!(""), "data.cards[0].name: must be a text of 1 to 256 bytes"),
        ("/data/cards", json!([]), "data.cards: must not be empty"),
        ("/data/booster/draft/boosters", json!({}), "data.booster.draft.boosters: must be a list"),
        (
            "/data/booster/draft/sheets/common/foil",
            json!("yes"),
            "data.booster.draft.sheets.common.foil: must be true or false",
        ),
        (
            "/data/booster/draft/boosters/0/contents/common",
            json!(65),
            "data.booster.draft.boosters[0].contents: a booster of more than 64 cards",
        ),
        (
            "/data/booster/draft/sheets/common/fixed",
            json!(true),
            "data.booster.draft.sheets.common.fixed: not supported: a fixed sheet (the same cards in every booster, as in Jumpstart) is not dealt at random",
        ),
    ];
    for (path, value, message) in cases {
        let mut file = minimal();
        put(&mut file, path, value);
        assert_eq!(refusal(&file), message);
    }
    let mut file = minimal();
    pointer(&mut file, "/data").as_object_mut().unwrap().remove("code");
    assert_eq!(refusal(&file), "data.code: missing");
    let mut file = minimal();
    pointer(&mut file, "/data/cards")
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "X", "rarity": "rare", "uuid": "a1"}));
    assert_eq!(refusal(&file), "data.cards[1].uuid: the same uuid as data.cards[0]");
    assert_eq!(refusal(&json!([1])), "the top level: must be an object");
}

#[test]
fn limits_are_checked_where_the_data_enters() {
    let too_large = vec![b' '; super::MAX_SET_FILE_BYTES + 1];
    assert_eq!(refusal_of(&too_large).problem, Problem::TooLarge { bytes: super::MAX_SET_FILE_BYTES + 1 });
    let mut file = minimal();
    let card = json!({"name": "Forest", "rarity": "common", "uuid": "a1"});
    *pointer(&mut file, "/data/cards") = Value::Array(vec![card; super::MAX_CARDS + 1]);
    assert_eq!(refusal(&file), "data.cards: has 20001 entries: at most 20000");
    // Nesting deep enough to exhaust the stack is refused by serde_json's depth limit, not a crash.
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    assert_eq!(refusal_of(deep.as_bytes()).problem, Problem::NotJson);
    // A hostile key is shortened in the message.
    let mut file = minimal();
    *pointer(&mut file, "/data/booster/draft/sheets/common/cards") = json!({"\"".repeat(1000): 1});
    let message = refusal(&file);
    assert!(message.len() < 200 && message.contains("\\\"…\"]"), "{message}");
}
