//! Limited play in the engine: sealed pools dealt from a stack both players shuffled, unseen by the opponent, and
//! decks built from them that are checked card by card against the deal.

mod engine_support {
    include!("support/consistency.rs");
}

use std::collections::{BTreeMap, HashSet};

use engine_support::{assert_consistent, misbehaviour};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Group, Ristretto255};
use fairdeck_shared::engine::{
    AlertKind, DeckCard, DeckList, Engine, EngineConfig, Event, Intent, IntentError, LimitedConfig, PoolList,
    PoolSource,
};
use fairdeck_shared::journal::{Verdict, check};
use fairdeck_shared::pair::Pair;
use fairdeck_shared::table::{ZoneId, ZoneKind};
use fairdeck_shared::wire::{self, Action, LimitedFormat, Message, PoolHash};

const SEED: u8 = 9;

fn cube(cards: usize) -> PoolList {
    PoolList { hash: PoolHash([7; 32]), source: PoolSource::Cube(cube_cards(cards)) }
}

fn cube_cards(cards: usize) -> Vec<String> {
    (0..cards).map(|i| format!("Cube card {i}")).collect()
}

fn config(seat: Seat, pool: PoolList, dealt: u32) -> LimitedConfig {
    let format = (seat == Seat::HOST).then_some(LimitedFormat::Sealed { cards: dealt });
    LimitedConfig { pool, format }
}

fn sealed(cards: usize, dealt: u32) -> Pair<Ristretto255> {
    let host = config(Seat::HOST, cube(cards), dealt);
    let guest = config(Seat::GUEST, cube(cards), dealt);
    Pair::limited(host, guest, SEED)
}

fn pool_of(pair: &Pair<Ristretto255>, seat: Seat) -> Vec<String> {
    let pools: Vec<&Vec<String>> = pair
        .events(seat)
        .iter()
        .filter_map(|event| match event {
            Event::Pool { cards } => Some(cards),
            _ => None,
        })
        .collect();
    assert_eq!(pools.len(), 1, "{seat:?} is told its pool once");
    pools[0].clone()
}

fn cards(names: &[&str]) -> Vec<DeckCard> {
    names.iter().map(|name| DeckCard { name: name.to_string(), back: 0 }).collect()
}

/// A deck of the first `spells` cards of `pool` and `lands` Mountains.
fn deck(pool: &[String], spells: usize, lands: usize) -> DeckList {
    let mut names: Vec<&str> = pool[..spells].iter().map(String::as_str).collect();
    names.extend(std::iter::repeat_n("Mountain", lands));
    DeckList { library: cards(&names), sideboard: vec![], commander: vec![], label: "sealed".into() }
}

/// Both players build their deck, and the game is set up.
fn build_both(pair: &mut Pair<Ristretto255>, decks: [DeckList; 2]) {
    for (seat, deck) in Seat::BOTH.into_iter().zip(decks) {
        pair.intent(seat, Intent::Build(deck)).unwrap();
    }
    pair.drive();
    assert!(Seat::BOTH.into_iter().all(|seat| pair.engine(seat).is_ready()));
}

/// Both players end the game: no alert on either side, and both journals check clean.
fn end_clean(pair: &mut Pair<Ristretto255>) {
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::EndGame).unwrap();
    }
    pair.drive();
    for seat in Seat::BOTH {
        assert!(misbehaviour(pair, seat).is_empty(), "{:?}", misbehaviour(pair, seat));
        assert!(matches!(check::<Ristretto255>(pair.engine(seat).journal()), Ok(Verdict::Clean(_))));
    }
}

fn counted<'a>(names: impl Iterator<Item = &'a str>) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for name in names {
        *counts.entry(name).or_default() += 1;
    }
    counts
}

fn built(dealt: u32) -> (Pair<Ristretto255>, [Vec<String>; 2]) {
    let mut pair = sealed(60, dealt);
    pair.drive();
    let pools = Seat::BOTH.map(|seat| pool_of(&pair, seat));
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::Build(deck(&pools[seat as usize], 8, 6))).unwrap();
    }
    pair.drive();
    (pair, pools)
}

#[test]
fn each_player_is_dealt_its_own_pool_unseen_by_the_other() {
    let mut pair = sealed(60, 20);
    pair.drive();
    let host = pool_of(&pair, Seat::HOST);
    let guest = pool_of(&pair, Seat::GUEST);
    assert_eq!((host.len(), guest.len()), (20, 20));
    let listed: HashSet<String> = cube_cards(60).into_iter().collect();
    let dealt: HashSet<&String> = host.iter().chain(&guest).collect();
    assert_eq!(dealt.len(), 40, "the pools share no card of a singleton cube");
    assert!(dealt.iter().all(|card| listed.contains(*card)));
    // Neither engine holds a single identity before any deck: nothing of either pool was revealed to the other.
    for seat in Seat::BOTH {
        assert!(pair.engine(seat).identities().is_empty());
        assert!(pair.events(seat).iter().all(|e| !matches!(e, Event::Alert(_))), "{:?}", pair.events(seat));
    }
    // Another seed deals other pools: the deal follows both players' shuffles, not the file's order.
    let mut other =
        Pair::<Ristretto255>::limited(config(Seat::HOST, cube(60), 20), config(Seat::GUEST, cube(60), 20), 33);
    other.drive();
    assert_ne!(pool_of(&other, Seat::HOST), host);
    assert_ne!(host[..], cube_cards(60)[..20]);
}

#[test]
fn decks_built_from_the_pools_play_and_pass_the_audit() {
    let (mut pair, pools) = built(20);
    assert!(Seat::BOTH.into_iter().all(|seat| pair.engine(seat).is_ready()));
    assert_consistent(&pair);
    pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 14 })).unwrap();
    pair.drive();
    assert_consistent(&pair);
    let host = pair.engine(Seat::HOST);
    let hand = host.table().zone(ZoneId::new(Seat::HOST, ZoneKind::Hand));
    assert_eq!(hand.len(), 14, "the whole library is drawn");
    let library: Vec<DeckCard> = deck(&pools[0], 8, 6).library;
    let drawn = hand.iter().map(|id| host.identity(*id).expect("the host knows its hand").name.as_str());
    assert_eq!(counted(drawn), counted(library.iter().map(|card| card.name.as_str())));
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::EndGame).unwrap();
    }
    pair.drive();
    for seat in Seat::BOTH {
        let audited: Vec<&str> = pair
            .events(seat.opponent())
            .iter()
            .find_map(|event| match event {
                Event::Audited { seat: whose, deck } if *whose == seat => {
                    Some(deck.iter().map(|card| card.name.as_str()).collect())
                }
                _ => None,
            })
            .expect("each deck is audited");
        let mut expected: Vec<&str> = pools[seat as usize].iter().map(String::as_str).collect();
        expected.extend(std::iter::repeat_n("Mountain", 6));
        assert_eq!(counted(audited.into_iter()), counted(expected.into_iter()), "the deck is the pool and its lands");
        assert!(misbehaviour(&pair, seat).is_empty());
        assert!(matches!(check::<Ristretto255>(pair.engine(seat).journal()), Ok(Verdict::Clean(_))));
    }
}

#[test]
fn a_build_naming_cards_outside_the_pool_is_refused_with_them() {
    let mut pair = sealed(60, 20);
    pair.drive();
    let guest_card = pool_of(&pair, Seat::GUEST)[0].clone();
    let mut list = deck(&pool_of(&pair, Seat::HOST), 5, 3);
    list.library.extend(cards(&["Black Lotus", "Black Lotus", &guest_card]));
    let refused = pair.intent(Seat::HOST, Intent::Build(list)).unwrap_err();
    let mut expected = vec![(2, "Black Lotus".to_string()), (1, guest_card)];
    expected.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(refused, IntentError::NotInPool(expected));
    // Nothing went out: the guest still waits for the host's deck.
    assert_eq!(pair.drive(), 0);
}

#[test]
fn a_second_game_takes_another_split_of_the_pool() {
    let (mut pair, pools) = built(20);
    let second = deck(&pools[0][10..], 9, 7);
    pair.intent(Seat::HOST, Intent::NewGame(Some(second))).unwrap();
    pair.intent(Seat::GUEST, Intent::NewGame(None)).unwrap();
    pair.drive();
    assert!(Seat::BOTH.into_iter().all(|seat| pair.engine(seat).is_ready()));
    assert_consistent(&pair);
    assert_eq!(pair.engine(Seat::HOST).table().zone(ZoneId::library(Seat::HOST)).len(), 16);
    for seat in Seat::BOTH {
        assert!(misbehaviour(&pair, seat).is_empty(), "{:?}", misbehaviour(&pair, seat));
    }
}

#[test]
fn different_pool_files_stop_the_match_before_anything_is_dealt() {
    let mut other = cube(60);
    other.hash = PoolHash([8; 32]);
    let mut pair = Pair::<Ristretto255>::limited(config(Seat::HOST, cube(60), 20), config(Seat::GUEST, other, 20), 1);
    pair.drive();
    for seat in Seat::BOTH {
        let alert = pair
            .events(seat)
            .iter()
            .find_map(|event| match event {
                Event::Alert(alert) => Some(alert.clone()),
                _ => None,
            })
            .expect("both are told");
        assert_eq!(alert.kind, AlertKind::Incompatible);
        assert!(
            alert.detail.contains("0707070707070707") && alert.detail.contains("0808080808080808"),
            "{}",
            alert.detail
        );
        assert!(!alert.kind.is_breach());
        assert!(pair.events(seat).iter().all(|e| !matches!(e, Event::Pool { .. })));
    }
}

#[test]
fn messages_in_any_interleaving_deal_the_same_pools() {
    let mut straight = sealed(40, 10);
    straight.drive();
    let mut guest_first = sealed(40, 10);
    while guest_first.step_from(Seat::GUEST) || guest_first.step_from(Seat::HOST) {}
    for seat in Seat::BOTH {
        assert_eq!(pool_of(&straight, seat), pool_of(&guest_first, seat));
    }
}

/// The host's message `seq` replaced by `body`, sealed after its earlier ones by a puppet built as the pair builds
/// the host.
fn reseal(pair: &Pair<Ristretto255>, seq: u64, body: Vec<u8>) -> Vec<u8> {
    reseal_as(pair, config(Seat::HOST, cube(60), 20), SEED, seq, body)
}

/// As `reseal`, for a host of `limited` built with `seed`.
fn reseal_as(pair: &Pair<Ristretto255>, limited: LimitedConfig, seed: u8, seq: u64, body: Vec<u8>) -> Vec<u8> {
    let config = EngineConfig { name: "Host".into(), software: "fairdeck-test".into() };
    let mut puppet = Engine::<Ristretto255>::new_limited(Seat::HOST, config, limited, [seed; 32]).unwrap();
    let sent: Vec<_> = pair.host.record().iter().filter(|(seat, _)| *seat == Seat::HOST).map(|(_, e)| e).collect();
    for envelope in &sent[2..seq as usize] {
        puppet.send_unchecked(envelope.body.clone(), pair.ack_of(Seat::HOST, envelope.seq));
    }
    puppet.send_unchecked(body, pair.ack_of(Seat::HOST, seq));
    std::iter::from_fn(|| puppet.poll_transmit()).last().unwrap()
}

#[test]
fn a_deck_card_that_is_not_a_pool_card_is_an_alert_with_the_signed_deck_as_evidence() {
    let mut pair = sealed(60, 20);
    pair.drive();
    let pool = pool_of(&pair, Seat::HOST);
    pair.intent(Seat::HOST, Intent::Build(deck(&pool, 8, 2))).unwrap();
    let genuine = pair.queue.pop_back().expect("the host's deck is on its way");
    let envelope = wire::decode_envelope(&genuine.bytes).unwrap();
    let Message::PoolDeck { key, library, sideboard, mut forms, pool_proof, basic_proof, label, difference } =
        wire::decode_body::<Ristretto255>(&envelope.body).unwrap()
    else {
        panic!("not the deck");
    };
    // The first library card swapped for another card's point: a card the host was never dealt.
    forms[0] = Ristretto255::hash_to_element(b"a card from elsewhere");
    let forged = Message::PoolDeck { key, library, sideboard, forms, pool_proof, basic_proof, label, difference };
    let bytes = reseal(&pair, envelope.seq, wire::encode_body(&forged));
    pair.deliver(fairdeck_shared::pair::InFlight { from: Seat::HOST, bytes: bytes.clone() });
    let alert = pair
        .events(Seat::GUEST)
        .iter()
        .find_map(|event| match event {
            Event::Alert(alert) => Some(alert.clone()),
            _ => None,
        })
        .expect("the guest is told");
    assert_eq!(alert.kind, AlertKind::NotInDeck);
    assert_eq!(alert.evidence, Some(wire::decode_envelope(&bytes).unwrap()));
    let verdict = check::<Ristretto255>(pair.engine(Seat::GUEST).journal()).unwrap();
    assert!(matches!(verdict, Verdict::Breach { by: Seat::HOST, .. }), "{verdict:?}");
}

#[test]
fn uniform_players_build_from_the_whole_list_and_neither_learns_the_others_choice_before_the_audit() {
    let list = cube(40);
    let host = LimitedConfig { pool: list.clone(), format: Some(LimitedFormat::Uniform) };
    let guest = LimitedConfig { pool: list.clone(), format: None };
    let mut pair = Pair::<Ristretto255>::limited(host, guest, 4);
    pair.drive();
    let pools = Seat::BOTH.map(|seat| pool_of(&pair, seat));
    let listed = cube_cards(40);
    for pool in &pools {
        assert_eq!(counted(pool.iter().map(String::as_str)), counted(listed.iter().map(String::as_str)));
    }
    assert_ne!(pools[0], listed, "each player's pool is its own shuffle of the list");
    // Both take the same first ten cards of the list: in uniform play a card is everyone's.
    let chosen = &listed[..10];
    build_both(&mut pair, Seat::BOTH.map(|_| deck(chosen, 10, 5)));
    assert_consistent(&pair);
    for seat in Seat::BOTH {
        let engine = pair.engine(seat);
        let theirs = engine.identities().values().filter(|card| card.owner != seat).count();
        assert_eq!(theirs, 0, "{seat:?} knows none of the opponent's cards");
        let side = ZoneId::new(seat, ZoneKind::Sideboard);
        assert_eq!(engine.table().zone(side).len(), 0, "a uniform deck's sideboard is what its file says");
    }
    end_clean(&mut pair);
    for seat in Seat::BOTH {
        let audited = pair
            .events(seat)
            .iter()
            .any(|e| matches!(e, Event::Audited { seat: s, deck } if *s != seat && deck.len() == 15));
        assert!(audited, "{seat:?} audited the opponent's 15 cards");
    }
}

const SMALL_SET: &[u8] = include_bytes!("../../examples/pools/small-set.json");

fn set_pool() -> PoolList {
    PoolList { hash: PoolHash([9; 32]), source: PoolSource::Set(SMALL_SET.to_vec()) }
}

#[test]
fn sealed_boosters_of_a_set_are_opened_unseen_and_follow_the_layouts() {
    let set = fairdeck_shared::pool::SetFile::parse(SMALL_SET).unwrap();
    let kind = set.boosters().get("draft").expect("the fixture has draft boosters");
    let sizes: Vec<u64> = kind.layouts().iter().map(|layout| layout.contents().iter().map(|(_, n)| n).sum()).collect();
    let format = LimitedFormat::SealedBoosters { boosters: 3 };
    let host = LimitedConfig { pool: set_pool(), format: Some(format) };
    let guest = LimitedConfig { pool: set_pool(), format: None };
    let mut pair = Pair::<Ristretto255>::limited(host, guest, 12);
    pair.drive();
    let names: HashSet<&str> = set.cards().iter().map(|card| card.name.as_str()).collect();
    for seat in Seat::BOTH {
        let pool = pool_of(&pair, seat);
        // Three boosters, each of one of the layouts' sizes.
        let mut possible = HashSet::new();
        for a in &sizes {
            for b in &sizes {
                for c in &sizes {
                    possible.insert(a + b + c);
                }
            }
        }
        assert!(possible.contains(&(pool.len() as u64)), "{} cards in three boosters", pool.len());
        assert!(pool.iter().all(|card| names.contains(card.as_str())));
        assert!(misbehaviour(&pair, seat).is_empty(), "{:?}", misbehaviour(&pair, seat));
        assert!(pair.engine(seat).identities().is_empty(), "nothing of either pool is revealed");
    }
    let pools = Seat::BOTH.map(|seat| pool_of(&pair, seat));
    build_both(&mut pair, Seat::BOTH.map(|seat| deck(&pools[seat as usize], 10, 7)));
    assert_consistent(&pair);
    end_clean(&mut pair);
}

#[test]
fn a_format_that_does_not_fit_the_pool_file_is_refused_before_anything_is_sent() {
    let config = EngineConfig { name: "Host".into(), software: "test".into() };
    let boosters_of_a_cube =
        LimitedConfig { pool: cube(60), format: Some(LimitedFormat::SealedBoosters { boosters: 6 }) };
    let refused = Engine::<Ristretto255>::new_limited(Seat::HOST, config.clone(), boosters_of_a_cube, [1; 32]);
    assert!(matches!(refused, Err(fairdeck_shared::engine::PoolError::WrongFile { .. })));
    let sealed_of_a_set = LimitedConfig { pool: set_pool(), format: Some(LimitedFormat::Sealed { cards: 10 }) };
    let refused = Engine::<Ristretto255>::new_limited(Seat::HOST, config.clone(), sealed_of_a_set, [1; 32]);
    assert!(matches!(refused, Err(fairdeck_shared::engine::PoolError::WrongFile { .. })));
    let broken = LimitedConfig {
        pool: PoolList { hash: PoolHash([1; 32]), source: PoolSource::Set(b"{\"data\": {".to_vec()) },
        format: None,
    };
    let refused = Engine::<Ristretto255>::new_limited(Seat::GUEST, config, broken, [1; 32]);
    assert!(matches!(refused, Err(fairdeck_shared::engine::PoolError::Set(_))), "a set file that does not read");
}

/// Delivers messages in order until the host's message `seq` is the next on its way, and takes it out.
fn until_host_message(pair: &mut Pair<Ristretto255>, seq: u64) -> Option<fairdeck_shared::pair::InFlight> {
    loop {
        let next = pair.queue.iter().position(|m| {
            m.from == Seat::HOST && wire::decode_envelope(&m.bytes).is_ok_and(|envelope| envelope.seq == seq)
        });
        if let Some(at) = next {
            return pair.queue.remove(at);
        }
        if !pair.step() {
            return None;
        }
    }
}

#[test]
fn mutated_limited_messages_are_refused_never_panicked_on() {
    // The host's messages of an honest sealed match after its limited-pool (which the puppet that reseals sends
    // itself), to its pool-deck.
    let mut tried = 0;
    for seq in 2..=9u64 {
        for at in [0usize, 1, 5, 17, 40, 77, 150, 333] {
            let mut pair = sealed(60, 20);
            if seq >= 4 {
                // Its pool-deck needs a build; the pools come first.
                pair.drive();
                let pool = pool_of(&pair, Seat::HOST);
                pair.intent(Seat::HOST, Intent::Build(deck(&pool, 8, 2))).unwrap();
            }
            let Some(message) = until_host_message(&mut pair, seq) else { continue };
            let mut body = wire::decode_envelope(&message.bytes).unwrap().body;
            let Some(byte) = body.get_mut(at) else { continue };
            *byte ^= 0x5a;
            tried += 1;
            let bytes = reseal(&pair, seq, body);
            pair.deliver(fairdeck_shared::pair::InFlight { from: Seat::HOST, bytes });
            pair.drive();
            // Refused with an alert, or (a change that still reads as an honest message) taken: never a panic, and
            // the guest's engine answers afterwards.
            let _ = pair.intent(Seat::GUEST, Intent::Ping);
        }
    }
    assert!(tried > 20, "only {tried} mutations reached the guest");
}

#[test]
fn no_message_makes_a_player_strip_the_stack_for_the_other_beyond_its_deal() {
    let mut pair = sealed(60, 20);
    pair.drive();
    // Each honest engine stripped its layer once, off exactly the other's positions.
    for (seat, positions) in [(Seat::HOST, 20..40u32), (Seat::GUEST, 0..20u32)] {
        let deals: Vec<Vec<u32>> = pair
            .engine(seat)
            .record()
            .iter()
            .filter(|(from, _)| *from == seat)
            .filter_map(|(_, envelope)| match wire::decode_body::<Ristretto255>(&envelope.body) {
                Ok(Message::StackDeal { positions, .. }) => Some(positions),
                _ => None,
            })
            .collect();
        assert_eq!(deals, vec![positions.collect::<Vec<u32>>()], "{seat:?}'s deals");
    }
    // A host that sends its deal again (or any stack message after the deal) is refused: nothing asks the guest for
    // more.
    let again = pair
        .engine(Seat::HOST)
        .record()
        .iter()
        .filter(|(from, _)| *from == Seat::HOST)
        .find_map(|(_, envelope)| match wire::decode_body::<Ristretto255>(&envelope.body) {
            Ok(message @ Message::StackDeal { .. }) => Some(message),
            _ => None,
        })
        .unwrap();
    let seq = pair.engine(Seat::HOST).record().iter().filter(|(from, _)| *from == Seat::HOST).count() as u64;
    let ack = pair.ack_of(Seat::HOST, seq);
    pair.host.send_unchecked(wire::encode_body(&again), ack);
    pair.collect();
    pair.drive();
    let alerts = misbehaviour(&pair, Seat::GUEST);
    assert!(alerts.iter().any(|alert| alert.contains("stack-deal")), "{alerts:?}");
}

fn grid_pair(grids: u32) -> Pair<Ristretto255> {
    let host = LimitedConfig { pool: cube(60), format: Some(LimitedFormat::Grid { grids }) };
    let mut pair = Pair::<Ristretto255>::limited(host, LimitedConfig { pool: cube(60), format: None }, 21);
    pair.drive();
    pair
}

/// The last grid `seat` was shown, and who picks from it.
fn shown_grid(pair: &Pair<Ristretto255>, seat: Seat) -> Option<(u32, Vec<Option<String>>, Option<Seat>)> {
    pair.events(seat).iter().rev().find_map(|event| match event {
        Event::Grid { grid, cells, picker } => Some((*grid, cells.clone(), *picker)),
        _ => None,
    })
}

/// The first row, then column, with a card left.
fn open_line(cells: &[Option<String>]) -> wire::GridLine {
    let lines = (0..3).map(wire::GridLine::Row).chain((0..3).map(wire::GridLine::Column));
    lines.into_iter().find(|line| line.cells().iter().any(|&cell| cells[cell].is_some())).unwrap()
}

fn picked(pair: &Pair<Ristretto255>, seat: Seat) -> Vec<(Seat, u32, Vec<String>)> {
    pair.events(seat)
        .iter()
        .filter_map(|event| match event {
            Event::Picked { by, grid, cards, .. } => Some((*by, *grid, cards.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_grid_draft_shows_both_the_same_grids_and_each_pick_joins_the_pickers_pool() {
    let mut pair = grid_pair(4);
    for _ in 0..8 {
        let (host_view, guest_view) = (shown_grid(&pair, Seat::HOST), shown_grid(&pair, Seat::GUEST));
        assert_eq!(host_view, guest_view, "both see the same grid");
        let (_, cells, picker) = host_view.expect("a grid is shown");
        let picker = picker.expect("someone picks");
        // Out of turn, and an empty line, are refused, and nothing is sent.
        let refused = pair.intent(picker.opponent(), Intent::Pick(open_line(&cells)));
        assert!(matches!(refused, Err(IntentError::Invalid(_))), "{refused:?}");
        pair.intent(picker, Intent::Pick(open_line(&cells))).unwrap();
        pair.drive();
    }
    assert_eq!(picked(&pair, Seat::HOST), picked(&pair, Seat::GUEST));
    let picks = picked(&pair, Seat::HOST);
    assert_eq!(picks.len(), 8);
    // The first pick of each grid is the host's in even grids, the guest's in odd ones, and takes three cards.
    for (grid, pair_of_picks) in picks.chunks(2).enumerate() {
        let first = if grid % 2 == 0 { Seat::HOST } else { Seat::GUEST };
        assert_eq!((pair_of_picks[0].0, pair_of_picks[1].0), (first, first.opponent()));
        assert_eq!(pair_of_picks[0].2.len(), 3);
    }
    for seat in Seat::BOTH {
        let mut taken: Vec<String> =
            picks.iter().filter(|(by, ..)| *by == seat).flat_map(|(_, _, cards)| cards.clone()).collect();
        let mut pool = pool_of(&pair, seat);
        taken.sort();
        pool.sort();
        assert_eq!(pool, taken, "{seat:?}'s pool is what it took");
        assert!(misbehaviour(&pair, seat).is_empty(), "{:?}", misbehaviour(&pair, seat));
    }
    let pools = Seat::BOTH.map(|seat| pool_of(&pair, seat));
    build_both(&mut pair, Seat::BOTH.map(|seat| deck(&pools[seat as usize], 6, 10)));
    end_clean(&mut pair);
}

/// The forms `seat` sent in messages: its grid reveals' strips, or its pool shuffle's outputs.
fn sent_forms(pair: &Pair<Ristretto255>, seat: Seat, pool_shuffle: bool) -> Vec<Vec<u8>> {
    let sent = pair.engine(seat).record().iter().filter(|(from, _)| *from == seat);
    let forms = sent.flat_map(|(_, envelope)| match wire::decode_body::<Ristretto255>(&envelope.body) {
        Ok(Message::GridReveal { forms, .. }) if !pool_shuffle => forms,
        Ok(Message::PoolShuffle { forms, .. }) if pool_shuffle => forms,
        _ => vec![],
    });
    forms.map(|form| Ristretto255::encode_element(&form)).collect()
}

#[test]
fn a_drafted_pool_is_shuffled_by_its_owner_so_a_deck_does_not_tell_which_cards_seen_drafted_it_kept() {
    let mut pair = grid_pair(2);
    for _ in 0..4 {
        let (_, cells, picker) = shown_grid(&pair, Seat::HOST).expect("a grid is shown");
        pair.intent(picker.unwrap(), Intent::Pick(open_line(&cells))).unwrap();
        pair.drive();
    }
    // Every card of a grid draft is public, and the guest holds the host's picks in the forms it stripped for it.
    // The host's pool, which its decks name positions of, is none of those forms: a deck's positions cannot be
    // matched to the picks the guest saw.
    let drafted = sent_forms(&pair, Seat::GUEST, false);
    let pool = sent_forms(&pair, Seat::HOST, true);
    assert_eq!(pool.len(), pool_of(&pair, Seat::HOST).len());
    assert!(pool.iter().all(|form| !drafted.contains(form)), "the host's pool is in the forms the guest drafted");
    let pools = Seat::BOTH.map(|seat| pool_of(&pair, seat));
    build_both(&mut pair, Seat::BOTH.map(|seat| deck(&pools[seat as usize], 3, 10)));
    end_clean(&mut pair);
}

#[test]
fn a_pick_of_a_line_not_offered_is_an_alert() {
    let mut pair = grid_pair(2);
    let (_, cells, _) = shown_grid(&pair, Seat::HOST).unwrap();
    let line = open_line(&cells);
    pair.intent(Seat::HOST, Intent::Pick(line)).unwrap();
    pair.drive();
    // The guest's turn: it takes the same row again, which holds nothing now.
    let seq = pair.engine(Seat::GUEST).record().iter().filter(|(from, _)| *from == Seat::GUEST).count() as u64;
    let ack = pair.ack_of(Seat::GUEST, seq);
    pair.guest.send_unchecked(wire::encode_body(&Message::<Ristretto255>::GridPick { grid: 0, line }), ack);
    pair.collect();
    pair.drive();
    let alerts = misbehaviour(&pair, Seat::HOST);
    assert!(alerts.iter().any(|alert| alert.contains("not offered")), "{alerts:?}");
}

fn winston_pair(cards: u32) -> Pair<Ristretto255> {
    let host = LimitedConfig { pool: cube(60), format: Some(LimitedFormat::Winston { cards }) };
    let mut pair = Pair::<Ristretto255>::limited(host, LimitedConfig { pool: cube(60), format: None }, 31);
    pair.drive();
    pair
}

/// Who looks at which pile now, as `seat` was last told.
fn looking(pair: &Pair<Ristretto255>, seat: Seat) -> Option<(Seat, u8)> {
    pair.events(seat).iter().rev().find_map(|event| match event {
        Event::Winston { looking, .. } => Some(*looking),
        _ => None,
    })?
}

#[test]
fn a_winston_draft_shares_out_every_card_and_shows_each_player_only_what_it_looked_at() {
    let mut pair = winston_pair(24);
    let mut turns = 0;
    while let Some((seat, pile)) = looking(&pair, Seat::HOST) {
        assert_eq!(looking(&pair, Seat::GUEST), Some((seat, pile)), "both engines agree on whose turn it is");
        // Out of turn is refused, and nothing is sent.
        assert!(pair.intent(seat.opponent(), Intent::Pile(wire::PileChoice::Take)).is_err());
        // Pass three looks in four, so that piles grow and the last pile is passed too (taking the stack's top card
        // unseen), and take the fourth.
        let choice = if turns % 4 == 3 { wire::PileChoice::Take } else { wire::PileChoice::Pass };
        if pair.intent(seat, Intent::Pile(choice)).is_err() {
            pair.intent(seat, Intent::Pile(wire::PileChoice::Take)).unwrap();
        }
        pair.drive();
        turns += 1;
        assert!(turns < 200, "the draft ends");
    }
    let pools = Seat::BOTH.map(|seat| pool_of(&pair, seat));
    assert_eq!(pools[0].len() + pools[1].len(), 24, "every card of the draft went to a pool: {pools:?}");
    let unseen = pair.events(Seat::HOST).iter().filter(|e| matches!(e, Event::PileTaken { pile: None, .. })).count();
    assert!(unseen > 0, "a card was taken from the stack unseen");
    assert!(pools[0].iter().all(|card| !pools[1].contains(card)));
    for seat in Seat::BOTH {
        // What the other took unseen by this player is a count, never names.
        for event in pair.events(seat) {
            if let Event::PileTaken { by, cards, count, .. } = event {
                assert!(*by == seat || cards.is_empty(), "{seat:?} told the names of {by:?}'s cards");
                assert!(*by != seat || cards.len() as u32 == *count);
            }
            if let Event::PileShown { cards, .. } = event {
                assert!(cards.iter().all(|card| !card.is_empty()));
            }
        }
        assert!(misbehaviour(&pair, seat).is_empty(), "{:?}", misbehaviour(&pair, seat));
    }
    build_both(&mut pair, Seat::BOTH.map(|seat| deck(&pools[seat as usize], 4, 10)));
    end_clean(&mut pair);
}

#[test]
fn a_winston_choice_of_a_pile_not_offered_is_an_alert() {
    let mut pair = winston_pair(12);
    // The host looks at pile 0; the guest answers for pile 2 in its place.
    let seq = pair.engine(Seat::GUEST).record().iter().filter(|(from, _)| *from == Seat::GUEST).count() as u64;
    let ack = pair.ack_of(Seat::GUEST, seq);
    let choice = Message::<Ristretto255>::WinstonChoice { pile: 2, choice: wire::PileChoice::Take };
    pair.guest.send_unchecked(wire::encode_body(&choice), ack);
    pair.collect();
    pair.drive();
    let alerts = misbehaviour(&pair, Seat::HOST);
    assert!(alerts.iter().any(|alert| alert.contains("not offered")), "{alerts:?}");
}

fn draft_pair(packs: u32, cards: u32, seed: u8) -> Pair<Ristretto255> {
    let host = LimitedConfig { pool: cube(60), format: Some(LimitedFormat::Draft { packs, cards }) };
    let mut pair = Pair::<Ristretto255>::limited(host, LimitedConfig { pool: cube(60), format: None }, seed);
    pair.drive();
    pair
}

#[test]
fn a_booster_draft_of_a_sets_boosters_drafts_every_card_of_them() {
    let host = LimitedConfig { pool: set_pool(), format: Some(LimitedFormat::BoosterDraft { packs: 2 }) };
    let mut pair = Pair::<Ristretto255>::limited(host, LimitedConfig { pool: set_pool(), format: None }, 49);
    pair.drive();
    draft_through(&mut pair, false, |_, size| size as u32 - 1);
    // Every booster opened (four, each shown first whole to its opener) went to the pools, card by card.
    let opened: usize = Seat::BOTH
        .iter()
        .flat_map(|&seat| {
            let mut seen = BTreeMap::new();
            for (pack, cards) in packs_shown(&pair, seat) {
                seen.entry(pack).or_insert(cards.len());
            }
            seen.into_iter().filter(move |(pack, _)| pack % 2 == seat as u32).map(|(_, size)| size)
        })
        .sum();
    let pools = Seat::BOTH.map(|seat| pool_of(&pair, seat));
    assert!(opened > 4);
    assert_eq!(pools[0].len() + pools[1].len(), opened);
    for seat in Seat::BOTH {
        assert!(misbehaviour(&pair, seat).is_empty(), "{:?}", misbehaviour(&pair, seat));
    }
}

/// The packs `seat` was shown, in order.
fn packs_shown(pair: &Pair<Ristretto255>, seat: Seat) -> Vec<(u32, Vec<String>)> {
    let shown = pair.events(seat).iter().filter_map(|event| match event {
        Event::Pack { pack, cards } => Some((*pack, cards.clone())),
        _ => None,
    });
    shown.collect()
}

/// Both players take card `pick(seat, pack size)` of each pack shown, until the pools are drafted; `guest_first`
/// delivers the guest's messages before the host's.
fn draft_through(pair: &mut Pair<Ristretto255>, guest_first: bool, pick: impl Fn(Seat, usize) -> u32) {
    let mut taken = [0usize; 2];
    for _ in 0..500 {
        let mut moved = false;
        for seat in Seat::BOTH {
            let shown = packs_shown(pair, seat);
            if shown.len() > taken[seat as usize] {
                let size = shown[taken[seat as usize]].1.len();
                pair.intent(seat, Intent::TakeCard(pick(seat, size))).unwrap();
                taken[seat as usize] += 1;
                moved = true;
            }
        }
        if guest_first {
            while pair.step_from(Seat::GUEST) || pair.step_from(Seat::HOST) {}
        } else {
            pair.drive();
        }
        if !moved {
            return;
        }
    }
    panic!("the draft ends");
}

/// The stack positions `seat` sent in messages of one kind.
fn sent_positions(pair: &Pair<Ristretto255>, seat: Seat, pick: bool) -> Vec<u32> {
    let sent = pair.engine(seat).record().iter().filter(|(from, _)| *from == seat);
    sent.flat_map(|(_, envelope)| match wire::decode_body::<Ristretto255>(&envelope.body) {
        Ok(Message::PackPick { position, .. }) if pick => vec![position],
        Ok(Message::StackReveal { positions, .. }) if !pick => positions,
        _ => vec![],
    })
    .collect()
}

#[test]
fn a_booster_draft_passes_every_pack_and_shows_nobody_a_card_before_its_pack_comes() {
    let mut pair = draft_pair(2, 5, 41);
    draft_through(&mut pair, false, |seat, size| if seat == Seat::HOST { 0 } else { size as u32 - 1 });
    let pools = Seat::BOTH.map(|seat| pool_of(&pair, seat));
    assert_eq!([pools[0].len(), pools[1].len()], [10, 10], "two packs of five each, both passed: {pools:?}");
    assert!(pools[0].iter().all(|card| !pools[1].contains(card)));
    for seat in Seat::BOTH {
        let shown = packs_shown(&pair, seat);
        // Each player picks from its own pack, the other's, its own, ... down to one card, in both rounds.
        let sizes: Vec<usize> = shown.iter().map(|(_, cards)| cards.len()).collect();
        assert_eq!(sizes, [5, 4, 3, 2, 1, 5, 4, 3, 2, 1], "{seat:?}'s packs");
        // The card the other took first from its own pack never came to this player: it never read it.
        let peer = seat.opponent();
        let first_picks: Vec<String> = packs_shown(&pair, peer)
            .iter()
            .zip(pair.events(peer).iter().filter_map(|event| match event {
                Event::CardTaken { by, card: Some(card), .. } if *by == peer => Some(card.clone()),
                _ => None,
            }))
            .filter(|((_, cards), _)| cards.len() == 5)
            .map(|(_, card)| card)
            .collect();
        assert_eq!(first_picks.len(), 2);
        for (_, cards) in &shown {
            assert!(first_picks.iter().all(|card| !cards.contains(card)), "{seat:?} saw {first_picks:?}");
        }
        // The other's picks are never named to this player.
        let named =
            pair.events(seat).iter().any(|e| matches!(e, Event::CardTaken { by, card: Some(_), .. } if *by == peer));
        assert!(!named);
        // Nothing the other picked first from its own pack was revealed by it at all.
        let revealed = sent_positions(&pair, peer, false);
        let picked = sent_positions(&pair, peer, true);
        assert!(!revealed.contains(&picked[0]), "{peer:?} revealed its first pick");
    }
    build_both(&mut pair, Seat::BOTH.map(|seat| deck(&pools[seat as usize], 6, 10)));
    end_clean(&mut pair);
}

#[test]
fn a_booster_draft_drafts_the_same_pools_whichever_messages_arrive_first() {
    let pick = |seat: Seat, size: usize| if seat == Seat::HOST { (size / 2) as u32 } else { 0 };
    let mut straight = draft_pair(3, 4, 43);
    draft_through(&mut straight, false, pick);
    let mut guest_first = draft_pair(3, 4, 43);
    draft_through(&mut guest_first, true, pick);
    for seat in Seat::BOTH {
        assert_eq!(pool_of(&straight, seat), pool_of(&guest_first, seat));
        assert!(misbehaviour(&guest_first, seat).is_empty(), "{:?}", misbehaviour(&guest_first, seat));
    }
}

#[test]
fn a_pick_of_a_card_not_offered_is_an_alert() {
    // The host's first pack is pack 0; the guest picks from it, then from its own with a position of pack 0.
    for (pack, position) in [(0u32, 1u32), (1, 2)] {
        let mut pair = draft_pair(1, 5, 45);
        let seq = pair.engine(Seat::GUEST).record().iter().filter(|(from, _)| *from == Seat::GUEST).count() as u64;
        let ack = pair.ack_of(Seat::GUEST, seq);
        let pick = Message::<Ristretto255>::PackPick { pack, position };
        pair.guest.send_unchecked(wire::encode_body(&pick), ack);
        pair.collect();
        pair.drive();
        let alerts = misbehaviour(&pair, Seat::HOST);
        assert!(alerts.iter().any(|alert| alert.contains("not offered")), "{alerts:?}");
    }
}

#[test]
fn a_pass_that_swaps_a_card_is_an_alert() {
    for swap_form in [false, true] {
        let mut pair = draft_pair(1, 5, 47);
        pair.intent(Seat::HOST, Intent::TakeCard(2)).unwrap();
        // The host's pass: its pick, then its reveal of the rest of the pack to the guest.
        let genuine = pair.queue.pop_back().expect("the pass is on its way");
        let envelope = wire::decode_envelope(&genuine.bytes).unwrap();
        let Ok(Message::StackReveal { mut positions, mut forms, proof }) =
            wire::decode_body::<Ristretto255>(&envelope.body)
        else {
            panic!("the pass reveals the rest of the pack");
        };
        if swap_form {
            // The same positions, two cards' forms swapped.
            forms.swap(0, 1);
        } else {
            // The card taken passed in place of one kept.
            positions[0] = sent_positions(&pair, Seat::HOST, true)[0];
        }
        let body = wire::encode_body(&Message::StackReveal { positions, forms, proof });
        let host = LimitedConfig { pool: cube(60), format: Some(LimitedFormat::Draft { packs: 1, cards: 5 }) };
        let bytes = reseal_as(&pair, host, 47, envelope.seq, body);
        // The pick goes first, as sent.
        pair.drive();
        pair.deliver(fairdeck_shared::pair::InFlight { from: Seat::HOST, bytes });
        pair.drive();
        let alerts = misbehaviour(&pair, Seat::GUEST);
        let expected = if swap_form { "reveal of stack positions" } else { "other cards than owed" };
        assert!(alerts.iter().any(|alert| alert.contains(expected)), "{alerts:?}");
    }
}

#[test]
fn passing_every_pile_with_one_card_left_in_the_stack_takes_that_card_unseen() {
    // Six cards: piles 0, 1, 2 and three in the stack. The host passes pile 0 and pile 1 (each gets a card of the
    // stack), then the last pile with one card left: it takes that card unseen, and pile 2 stays as it was.
    let mut pair = winston_pair(6);
    for pile in 0..3 {
        assert_eq!(looking(&pair, Seat::HOST), Some((Seat::HOST, pile)));
        pair.intent(Seat::HOST, Intent::Pile(wire::PileChoice::Pass)).unwrap();
        pair.drive();
    }
    let winston = |pair: &Pair<Ristretto255>, seat| {
        pair.events(seat).iter().rev().find_map(|event| match event {
            Event::Winston { piles, stack, looking } => Some((*piles, *stack, *looking)),
            _ => None,
        })
    };
    for seat in Seat::BOTH {
        assert_eq!(winston(&pair, seat), Some(([2, 2, 1], 0, Some((Seat::GUEST, 0)))), "{seat:?}");
        assert!(misbehaviour(&pair, seat).is_empty(), "{:?}", misbehaviour(&pair, seat));
    }
    let unseen = |event: &Event| matches!(event, Event::PileTaken { by: Seat::HOST, pile: None, count: 1, cards } if cards.len() == 1);
    assert!(pair.events(Seat::HOST).iter().any(unseen), "the host is told the card it took");
    // With the stack empty, the guest may not pass its only pile with no later card: it takes it.
    assert!(pair.intent(Seat::GUEST, Intent::Pile(wire::PileChoice::Take)).is_ok());
    pair.drive();
    while let Some((seat, _)) = looking(&pair, Seat::HOST) {
        pair.intent(seat, Intent::Pile(wire::PileChoice::Take)).unwrap();
        pair.drive();
    }
    let pools = Seat::BOTH.map(|seat| pool_of(&pair, seat));
    assert_eq!(pools[0].len() + pools[1].len(), 6, "every card went to a pool: {pools:?}");
    build_both(&mut pair, Seat::BOTH.map(|seat| deck(&pools[seat as usize], 1, 6)));
    end_clean(&mut pair);
}

#[test]
fn a_pass_of_the_last_pile_with_the_stack_empty_is_refused_and_the_message_is_an_alert() {
    let mut pair = winston_pair(3);
    // Three cards: the three piles, no stack. Passing pile 0 is allowed (later piles hold cards); passing the last
    // one is not.
    for _ in 0..2 {
        pair.intent(Seat::HOST, Intent::Pile(wire::PileChoice::Pass)).unwrap();
        pair.drive();
    }
    assert_eq!(looking(&pair, Seat::HOST), Some((Seat::HOST, 2)));
    assert!(pair.intent(Seat::HOST, Intent::Pile(wire::PileChoice::Pass)).is_err());
    // The same pass, made up by the host's program, is refused by the guest with an alert, and nothing crashes.
    let seq = pair.engine(Seat::HOST).record().iter().filter(|(from, _)| *from == Seat::HOST).count() as u64;
    let ack = pair.ack_of(Seat::HOST, seq);
    let pass = Message::<Ristretto255>::WinstonChoice { pile: 2, choice: wire::PileChoice::Pass };
    pair.host.send_unchecked(wire::encode_body(&pass), ack);
    pair.collect();
    pair.drive();
    let alerts = misbehaviour(&pair, Seat::GUEST);
    assert!(alerts.iter().any(|alert| alert.contains("not offered")), "{alerts:?}");
}

/// The names of `kind`'s sheet `sheet` of the small set.
fn sheet_names(set: &fairdeck_shared::pool::SetFile, sheet: &str) -> HashSet<String> {
    let kind = &set.boosters()["draft"];
    let sheet = kind.sheets().iter().find(|s| s.name() == sheet).expect("the fixture has the sheet");
    sheet.cards().iter().map(|(card, _)| set.cards()[*card].name.clone()).collect()
}

#[test]
fn a_players_boosters_tell_nothing_of_the_others_pool() {
    // The small set's common sheet is twenty cards, one each, and a booster holds nine or ten of them. Were both
    // players' boosters dealt from one stack, the commons the guest did not get would be the host's: the guest
    // would name the host's commons exactly in most matches. Dealt from stacks of their own, it names them by
    // chance alone, one in 184,756.
    let set = fairdeck_shared::pool::SetFile::parse(SMALL_SET).unwrap();
    let commons = sheet_names(&set, "common");
    let mut named = 0;
    for seed in 40..46 {
        let host = LimitedConfig { pool: set_pool(), format: Some(LimitedFormat::SealedBoosters { boosters: 1 }) };
        let mut pair = Pair::<Ristretto255>::limited(host, LimitedConfig { pool: set_pool(), format: None }, seed);
        pair.drive();
        let [host_pool, guest_pool] = Seat::BOTH.map(|seat| pool_of(&pair, seat));
        let guess: HashSet<&String> = commons.iter().filter(|card| !guest_pool.contains(card)).collect();
        if guess.len() <= 10 && guess.iter().all(|card| host_pool.contains(card)) {
            named += 1;
        }
    }
    assert_eq!(named, 0, "the guest named the host's commons from its own pool");
}
