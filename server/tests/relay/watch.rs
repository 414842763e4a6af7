//! Watch seats: a player's host_watch connection, spectators, their prefixed frames, the counts both players are
//! told, watch_off, and the limits a spectator shares with a player.

use std::time::{Duration, Instant};

use fairdeck_relay::Limits;
use fairdeck_relay::protocol::{GoneReason, SeatKey, ServerMessage, close};
use serde_json::json;

use crate::common::{Client, PATIENCE, Received, TestRelay, metric, metrics, test_limits};

/// A paired room whose players see `watchers`, each past the one that follows `paired` (checked, with watching
/// `open` or not): (creator, joiner, creator
/// token, joiner token).
async fn pair(url: &str, open: bool) -> (Client, Client, String, String) {
    let (mut creator, mut joiner, _, creator_token, joiner_token) = Client::pair(url).await;
    for player in [&mut creator, &mut joiner] {
        player.sees_watchers = true;
        assert_eq!(watchers(player).await, (0, 0, open, 0));
    }
    (creator, joiner, creator_token, joiner_token)
}

/// Opens the spectators' side of the seat with `token`; returns the connection and its watch nameplate.
async fn host_watch(url: &str, token: &str) -> (Client, String) {
    let mut host = Client::connect(url).await;
    host.send(json!({"type": "host_watch", "token": token})).await;
    match host.recv().await {
        Received::Control(ServerMessage::WatchOpened { nameplate, seats: 8 }) => (host, nameplate),
        other => panic!("expected watch_opened, got {other:?}"),
    }
}

/// A spectator of the watch nameplate; returns it and its watch seat.
async fn spectator(url: &str, nameplate: &str) -> (Client, u8) {
    let mut spectator = Client::connect(url).await;
    spectator.send(json!({"type": "watch", "nameplate": nameplate})).await;
    match spectator.recv().await {
        Received::Control(ServerMessage::Watching { watcher }) => (spectator, watcher),
        other => panic!("expected watching, got {other:?}"),
    }
}

/// The next `watchers` a player's game connection gets: (host, guest, open, delay).
async fn watchers(player: &mut Client) -> (u8, u8, bool, u32) {
    match player.expect(|m| matches!(m, ServerMessage::Watchers { .. })).await {
        ServerMessage::Watchers { host, guest, open, delay } => (host, guest, open, delay),
        _ => unreachable!(),
    }
}

/// The next binary frame, past any control messages (a player is told `watchers` as spectators come and go).
async fn next_frame(client: &mut Client) -> Vec<u8> {
    loop {
        match client.recv().await {
            Received::Binary(frame) => return frame,
            Received::Control(_) => continue,
            other => panic!("expected a frame, got {other:?}"),
        }
    }
}

/// Expects `peer_gone` with `reason`, then a normal close.
async fn expect_gone(client: &mut Client, reason: GoneReason) {
    assert_eq!(client.recv().await, Received::Control(ServerMessage::PeerGone { reason }));
    assert_eq!(client.recv().await, Received::Closed(Some(close::NORMAL)));
}

#[tokio::test]
async fn spectators_and_their_player_exchange_frames_with_the_watcher_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let (mut creator, mut joiner, token, _) = pair(&url, true).await;
    let (mut host, nameplate) = host_watch(&url, &token).await;
    // Watch nameplates and waiting rooms' nameplates are drawn from one set of numbers.
    let (_waiting, room_nameplate, _) = Client::create(&url).await;
    assert_ne!(nameplate, room_nameplate);
    let (mut first, one) = spectator(&url, &nameplate).await;
    let (mut second, two) = spectator(&url, &nameplate).await;
    assert_eq!((one, two), (0, 1));
    for watcher in [0, 1] {
        assert_eq!(host.recv().await, Received::Control(ServerMessage::WatcherJoined { watcher }));
    }
    for player in [&mut creator, &mut joiner] {
        assert_eq!(watchers(player).await, (1, 0, true, 0));
        assert_eq!(watchers(player).await, (2, 0, true, 0));
    }

    host.send_binary([&[1][..], b"to the second"].concat()).await;
    host.send_binary([&[0][..], &[0xff, 0, 7]].concat()).await;
    second.expect_binary(b"to the second").await;
    first.expect_binary(&[0xff, 0, 7]).await;
    first.send_binary(b"from the first".to_vec()).await;
    second.send_binary(Vec::new()).await;
    host.expect_binary(&[&[0][..], b"from the first"].concat()).await;
    host.expect_binary(&[1]).await;
    // A frame for an empty watch seat goes nowhere; the game itself is untouched.
    host.send_binary(vec![5, 1, 2]).await;
    creator.send_data(b"game").await;
    joiner.expect_data(0, b"game").await;
    for client in [&mut first, &mut second] {
        client.expect_silence().await;
    }

    second.close_normally().await;
    assert_eq!(host.recv().await, Received::Control(ServerMessage::WatcherLeft { watcher: 1 }));
    for player in [&mut creator, &mut joiner] {
        assert_eq!(watchers(player).await, (1, 0, true, 0));
    }
    relay.stop().await;
}

#[tokio::test]
async fn the_ninth_spectator_finds_the_seats_crowded_and_a_late_host_watch_learns_of_all_eight() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let (_creator, _joiner, _, token) = pair(&url, true).await;
    let (mut first_host, nameplate) = host_watch(&url, &token).await;
    let mut spectators = Vec::new();
    for expected in 0..8 {
        let (client, watcher) = spectator(&url, &nameplate).await;
        assert_eq!(watcher, expected);
        spectators.push(client);
    }
    let mut ninth = Client::connect(&url).await;
    ninth.send(json!({"type": "watch", "nameplate": nameplate})).await;
    ninth.expect_error_and_close("crowded", close::CROWDED).await;

    // A second host_watch of the seat replaces the first and is told of every spectator already there.
    let (mut host, again) = host_watch(&url, &token).await;
    assert_eq!(again, nameplate);
    for watcher in 0..8 {
        assert_eq!(host.recv().await, Received::Control(ServerMessage::WatcherJoined { watcher }));
    }
    first_host.expect(|m| matches!(m, ServerMessage::Error { code, .. } if code.as_str() == "replaced")).await;
    spectators[3].send_binary(b"three".to_vec()).await;
    host.expect_binary(&[&[3][..], b"three"].concat()).await;
    relay.stop().await;
}

#[tokio::test]
async fn watch_off_sends_every_spectator_away_and_refuses_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let (mut creator, mut joiner, creator_token, joiner_token) = pair(&url, true).await;
    let (mut host, nameplate) = host_watch(&url, &creator_token).await;
    let (mut guest_host, guest_nameplate) = host_watch(&url, &joiner_token).await;
    assert_ne!(nameplate, guest_nameplate);
    let (mut watching_host, _) = spectator(&url, &nameplate).await;
    let (mut watching_guest, _) = spectator(&url, &guest_nameplate).await;
    assert_eq!(watchers(&mut creator).await, (1, 0, true, 0));
    assert_eq!(watchers(&mut creator).await, (1, 1, true, 0));

    joiner.send(json!({"type": "watch_off"})).await;
    for client in [&mut watching_host, &mut watching_guest, &mut host, &mut guest_host] {
        client.expect(|m| matches!(m, ServerMessage::PeerGone { .. })).await;
        assert_eq!(client.recv().await, Received::Closed(Some(close::NORMAL)));
    }
    assert_eq!(watchers(&mut creator).await, (0, 0, false, 0));
    for request in
        [json!({"type": "watch", "nameplate": nameplate}), json!({"type": "host_watch", "token": creator_token})]
    {
        let mut late = Client::connect(&url).await;
        late.send(request).await;
        late.expect_error_and_close("watching_off", close::WATCHING_OFF).await;
    }
    // The game goes on.
    creator.send_data(b"still playing").await;
    assert_eq!(next_frame(&mut joiner).await, b"\0still playing");
    relay.stop().await;
}

#[tokio::test]
async fn delays_reach_both_players_and_one_over_twenty_turns_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut creator, mut joiner, _, _) = pair(&relay.url(), true).await;
    creator.send(json!({"type": "watch_delay", "turns": 3})).await;
    for player in [&mut creator, &mut joiner] {
        assert_eq!(watchers(player).await, (0, 0, true, 3));
    }
    joiner.send(json!({"type": "watch_delay", "turns": 20})).await;
    for player in [&mut creator, &mut joiner] {
        assert_eq!(watchers(player).await, (0, 0, true, 20));
    }
    joiner.send(json!({"type": "watch_delay", "turns": 21})).await;
    joiner.expect_error_and_close("bad_message", close::BAD_MESSAGE).await;
    relay.stop().await;
}

#[tokio::test]
async fn bad_watch_nameplates_and_tokens_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let (_waiting, room_nameplate, _) = Client::create(&url).await;
    // A room's nameplate is no watch nameplate.
    for nameplate in [room_nameplate.as_str(), "42", "x", ""] {
        let mut client = Client::connect(&url).await;
        client.send(json!({"type": "watch", "nameplate": nameplate})).await;
        client.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    }
    for token in ["00".repeat(16), "not hex".into()] {
        let mut client = Client::connect(&url).await;
        client.send(json!({"type": "host_watch", "token": token})).await;
        client.expect_error_and_close("bad_token", close::BAD_TOKEN).await;
    }
    // A watch connection sends frames only.
    let (_creator, _joiner, token, _) = pair(&url, true).await;
    let (mut host, _) = host_watch(&url, &token).await;
    host.send(json!({"type": "leave"})).await;
    host.expect_error_and_close("bad_message", close::BAD_MESSAGE).await;
    relay.stop().await;
}

#[tokio::test]
async fn a_spectator_that_does_not_read_is_cut_off_while_the_game_flows() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { max_message_bytes: 16 * 1024, queue_bytes: 64 * 1024, ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let url = relay.url();
    let (mut creator, mut joiner, token, _) = pair(&url, true).await;
    let (mut host, nameplate) = host_watch(&url, &token).await;
    let (mut never_reads, _) = spectator(&url, &nameplate).await;
    assert_eq!(host.recv().await, Received::Control(ServerMessage::WatcherJoined { watcher: 0 }));

    let frame = [&[0][..], &[0x5a; 16 * 1024 - 1]].concat();
    let started = Instant::now();
    'pushing: loop {
        assert!(started.elapsed() < 3 * PATIENCE, "the spectator was not cut off");
        for _ in 0..8 {
            host.send_binary(frame.clone()).await;
        }
        creator.send_data(b"move").await;
        assert_eq!(next_frame(&mut joiner).await, b"\0move");
        while let Some(message) = host.try_recv(Duration::from_millis(1)).await {
            if message == Received::Control(ServerMessage::WatcherLeft { watcher: 0 }) {
                break 'pushing;
            }
        }
    }
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, r#"fairdeck_relay_rejections_total{reason="slow_reader"}"#), 1.0);
    assert_eq!(metric(&text, "fairdeck_relay_watchers"), 0.0);
    loop {
        match never_reads.recv().await {
            Received::Binary(_) => {}
            Received::Closed(code) => break assert_eq!(code, Some(close::SLOW_READER)),
            Received::Control(message) => panic!("unexpected {message:?}"),
        }
    }
    // The player's host_watch connection and the game are still there.
    let (mut next, watcher) = spectator(&url, &nameplate).await;
    host.send_binary(vec![watcher, 9]).await;
    next.expect_binary(&[9]).await;
    joiner.send_data(b"reply").await;
    assert_eq!(next_frame(&mut creator).await, b"\x01reply");
    relay.stop().await;
}

#[tokio::test]
async fn spectators_leave_when_the_room_ends_and_stay_while_a_seat_is_held() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let (creator, mut joiner, token, _) = pair(&url, true).await;
    let (mut host, nameplate) = host_watch(&url, &token).await;
    let (mut watching, _) = spectator(&url, &nameplate).await;
    assert_eq!(host.recv().await, Received::Control(ServerMessage::WatcherJoined { watcher: 0 }));

    // The creator's game connection drops: its seat is held, and its spectators stay.
    drop(creator);
    joiner.expect(|m| matches!(m, ServerMessage::PeerAway { .. })).await;
    host.send_binary(vec![0, 1]).await;
    watching.expect_binary(&[1]).await;
    let mut creator = Client::connect(&url).await;
    creator.sees_watchers = true;
    creator.send(json!({"type": "resume", "token": token})).await;
    creator.expect(|m| matches!(m, ServerMessage::Resumed { .. })).await;
    assert_eq!(watchers(&mut creator).await, (1, 0, true, 0));

    joiner.send(json!({"type": "leave"})).await;
    expect_gone(&mut watching, GoneReason::Left).await;
    expect_gone(&mut host, GoneReason::Left).await;
    let mut late = Client::connect(&url).await;
    late.send(json!({"type": "watch", "nameplate": nameplate})).await;
    late.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    relay.stop().await;
}

#[tokio::test]
async fn players_meeting_at_their_rendezvous_are_told_the_watchers_and_keep_their_watch_seats() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let keys = [SeatKey::from_secret(&[7; 32]), SeatKey::from_secret(&[8; 32])];
    // Takes `seat` at the rendezvous; returns the player and its token, after `met`.
    let meet = async |seat: usize| {
        let mut player = Client::connect(&url).await;
        player.sees_watchers = true;
        let message = keys[seat].rendezvous(seat as u8, &keys[1 - seat].public(), &player.challenge, None);
        player.send(serde_json::to_value(message).unwrap()).await;
        match player.recv().await {
            Received::Control(ServerMessage::Met { token, .. }) => (player, token),
            other => panic!("expected met, got {other:?}"),
        }
    };
    let (mut first, token) = meet(0).await;
    let (mut second, _) = meet(1).await;
    for player in [&mut first, &mut second] {
        player.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
        assert_eq!(watchers(player).await, (0, 0, true, 0));
    }
    let (mut host, nameplate) = host_watch(&url, &token).await;
    let (mut watching, watcher) = spectator(&url, &nameplate).await;
    assert_eq!(watchers(&mut second).await, (1, 0, true, 0));

    // The host takes its seat again at the rendezvous (a new token): told the watchers, its spectator stays.
    let (mut again, token) = meet(0).await;
    assert_eq!(watchers(&mut again).await, (1, 0, true, 0));
    host.send_binary(vec![watcher, 3]).await;
    watching.expect_binary(&[3]).await;
    let (_host, same) = host_watch(&url, &token).await;
    assert_eq!(same, nameplate);
    relay.stop().await;
}

#[tokio::test]
async fn no_watch_seats_turns_watching_off_relay_wide() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), Limits { watch_seats: 0, ..test_limits() }).await;
    let url = relay.url();
    let (mut creator, mut joiner, token, _) = pair(&url, false).await;
    let mut host = Client::connect(&url).await;
    host.send(json!({"type": "host_watch", "token": token})).await;
    host.expect_error_and_close("watching_off", close::WATCHING_OFF).await;
    let mut watching = Client::connect(&url).await;
    watching.send(json!({"type": "watch", "nameplate": "1"})).await;
    watching.expect_error_and_close("watching_off", close::WATCHING_OFF).await;
    joiner.send(json!({"type": "watch_delay", "turns": 1})).await;
    assert_eq!(watchers(&mut creator).await, (0, 0, false, 1));
    relay.stop().await;
}

#[tokio::test]
async fn the_statistics_row_and_the_metrics_count_spectators() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let (mut creator, mut joiner, creator_token, joiner_token) = pair(&url, true).await;
    let (_host, nameplate) = host_watch(&url, &creator_token).await;
    let (_guest_host, guest_nameplate) = host_watch(&url, &joiner_token).await;
    let (mut leaving, _) = spectator(&url, &nameplate).await;
    let (_second, _) = spectator(&url, &nameplate).await;
    let (_third, _) = spectator(&url, &guest_nameplate).await;
    leaving.close_normally().await;
    assert_eq!(leaving.recv().await, Received::Closed(Some(close::NORMAL)));
    assert_eq!(watchers(&mut creator).await, (1, 0, true, 0));
    assert_eq!(watchers(&mut creator).await, (2, 0, true, 0));
    assert_eq!(watchers(&mut creator).await, (2, 1, true, 0));
    assert_eq!(watchers(&mut creator).await, (1, 1, true, 0));
    let (_fourth, _) = spectator(&url, &guest_nameplate).await;
    assert_eq!(watchers(&mut creator).await, (1, 2, true, 0));

    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, "fairdeck_relay_watchers"), 3.0);
    assert_eq!(metric(&text, "fairdeck_relay_watch_joins_total"), 4.0);
    let mut refused = Client::connect(&url).await;
    refused.send(json!({"type": "watch", "nameplate": "999"})).await;
    refused.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, r#"fairdeck_relay_rejections_total{reason="unknown_nameplate"}"#), 1.0);

    creator.send(json!({"type": "leave"})).await;
    joiner.expect(|m| matches!(m, ServerMessage::PeerGone { .. })).await;
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, "fairdeck_relay_watchers"), 0.0);
    let store = relay.stop().await;
    let rows = store.recent(10).await.expect("read rows");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].watchers, 3, "the most spectators at once");
    let summary = store.summary(rows[0].created_ms, 1).await.expect("summary");
    assert_eq!((summary.watched, summary.most_watchers), (1, 3));
}

#[tokio::test]
async fn a_restart_keeps_the_watch_nameplates_and_the_switch() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (creator, joiner, creator_token, joiner_token) = pair(&relay.url(), true).await;
    let (host, nameplate) = host_watch(&relay.url(), &creator_token).await;
    drop((creator, joiner, host));
    relay.stop().await;

    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let mut creator = Client::connect(&url).await;
    creator.sees_watchers = true;
    creator.send(json!({"type": "resume", "token": creator_token})).await;
    creator.expect(|m| matches!(m, ServerMessage::Resumed { .. })).await;
    assert_eq!(watchers(&mut creator).await, (0, 0, true, 0));
    let (mut host, again) = host_watch(&url, &creator_token).await;
    assert_eq!(again, nameplate);
    let (mut watching, watcher) = spectator(&url, &nameplate).await;
    assert_eq!(host.recv().await, Received::Control(ServerMessage::WatcherJoined { watcher }));
    watching.send_binary(b"hello".to_vec()).await;
    host.expect_binary(&[&[watcher][..], b"hello"].concat()).await;

    creator.send(json!({"type": "watch_off"})).await;
    expect_gone(&mut host, GoneReason::WatchingOff).await;
    relay.stop().await;
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let mut late = Client::connect(&relay.url()).await;
    late.send(json!({"type": "host_watch", "token": joiner_token})).await;
    late.expect_error_and_close("watching_off", close::WATCHING_OFF).await;
    relay.stop().await;
}

#[tokio::test]
async fn spectators_are_held_to_the_size_limit_with_their_number_and_to_the_joins_rate() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { max_message_bytes: 8192, joins_per_minute: 4, ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let url = relay.url();
    // One join and three watches: the joins' rate.
    let (_creator, _joiner, token, _) = pair(&url, true).await;
    let (mut host, nameplate) = host_watch(&url, &token).await;
    let (mut largest, watcher) = spectator(&url, &nameplate).await;
    largest.send_binary(vec![7; 8191]).await;
    host.expect(|m| matches!(m, ServerMessage::WatcherJoined { .. })).await;
    host.expect_binary(&[&[watcher][..], &[7; 8191]].concat()).await;
    let (mut too_large, _) = spectator(&url, &nameplate).await;
    too_large.send_binary(vec![7; 8192]).await;
    too_large.expect_error_and_close("too_big", close::TOO_BIG).await;
    let mut unknown = Client::connect(&url).await;
    unknown.send(json!({"type": "watch", "nameplate": "77"})).await;
    unknown.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    let mut limited = Client::connect(&url).await;
    limited.send(json!({"type": "watch", "nameplate": nameplate})).await;
    limited.expect_error_and_close("rate_limited", close::RATE_LIMITED).await;
    relay.stop().await;
}
