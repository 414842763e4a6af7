//! End-to-end over TLS, as players reach a public relay: two real `fairdeck --script` processes play through
//! Caddy (with the repository's deploy/Caddyfile) on `wss://localhost:PORT/v1`, trusting the test's own CA
//! with `--ca`; and what a player is told when the certificate cannot be trusted.

use std::time::{Duration, Instant};

use fairdeck_e2e::tls::{Caddy, TestCa};
use fairdeck_e2e::{Player, Relay, deck, public, run_once, zone_cards};

#[test]
fn a_game_is_played_through_caddy_over_wss_with_a_private_ca() {
    let relay = Relay::start_behind_proxy();
    let ca = TestCa::new();
    let caddy = Caddy::start(&relay, &ca);
    let ca_file = ca.ca_file();
    let ca_arg = ca_file.to_str().unwrap();
    let burn = deck("burn.txt");

    let mut host = Player::spawn_at("host", &caddy.url(), &burn, &["host", "--ca", ca_arg]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn_at("guest", &caddy.url(), &burn, &["join", &code, "--ca", ca_arg]);
    for player in [&mut host, &mut guest] {
        player.expect_event("connected");
        player.expect_event("ready");
    }

    host.send("draw 7");
    guest.send("draw 7");
    host.send("roll 2d6");
    let rolled = host.expect_event("rolled");
    assert_eq!(guest.expect_event("rolled"), rolled);
    guest.send("say over TLS");
    assert_eq!(host.expect_event("chat")["text"], "over TLS");
    host.wait_idle();
    guest.wait_idle();
    host.wait_idle();
    let host_table = host.table();
    assert_eq!(public(&host_table), public(&guest.table()), "caddy log:\n{}", caddy.log());
    assert_eq!(zone_cards(&host_table, "guest hand").len(), 7);

    host.send("quit");
    guest.send("quit");
    assert!(host.wait_exit().success());
    assert!(guest.wait_exit().success());
}

#[test]
fn an_untrusted_or_misnamed_certificate_is_refused_with_the_host_and_the_reason() {
    let relay = Relay::start_behind_proxy();
    let ca = TestCa::new();
    let caddy = Caddy::start(&relay, &ca);

    // Without --ca the test CA is unknown: the public roots alone do not trust it.
    let (code, error) = run_once(&["host"], &caddy.url());
    assert_eq!(code, Some(1));
    assert_eq!(error["kind"], "certificate", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("localhost") && message.contains("--ca"), "{message}");

    // Another CA does not help either.
    let other = TestCa::new();
    let (_, error) = run_once(&["host", "--ca", other.ca_file().to_str().unwrap()], &caddy.url());
    assert_eq!(error["kind"], "certificate", "{error}");

    // The right CA, but a name the certificate does not carry.
    let (_, error) = run_once(&["host", "--ca", ca.ca_file().to_str().unwrap()], &caddy.url_by_address());
    assert_eq!(error["kind"], "certificate", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("not valid for the name 127.0.0.1"), "{message}");

    // A CA file that is missing or holds no certificate is refused before any connection.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pem");
    let (code, error) = run_once(&["host", "--ca", missing.to_str().unwrap()], &caddy.url());
    assert_eq!((code, error["kind"].as_str()), (Some(1), Some("ca")), "{error}");
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    let (_, error) = run_once(&["host", "--ca", empty.to_str().unwrap()], &caddy.url());
    assert!(error["message"].as_str().unwrap().contains("no PEM certificate"), "{error}");
}

#[test]
fn the_deployed_caddyfile_closes_silent_connections_and_sends_hsts() {
    let relay = Relay::start_behind_proxy();
    let ca = TestCa::new();
    let caddy = Caddy::start(&relay, &ca);

    // A connection that never sends a byte (not even a TLS hello) is closed by Caddy's read_header timeout.
    let mut silent = std::net::TcpStream::connect(caddy.address()).unwrap();
    silent.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let started = Instant::now();
    let read = std::io::Read::read(&mut silent, &mut [0u8; 16]);
    assert!(matches!(read, Ok(0)) || read.as_ref().is_err_and(|e| e.kind() != std::io::ErrorKind::WouldBlock));
    assert!(started.elapsed() < Duration::from_secs(60), "still open after a minute: {read:?}");

    // Ordinary responses carry the security headers: ask for /healthz with a WebSocket handshake, which the
    // relay answers with a plain 200 that the handshake returns as its error.
    let tls = fairdeck::tls::client_config(Some(&ca.ca_file())).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = caddy.url().replace("/v1", "/healthz");
    let refused = runtime.block_on(async {
        let connector = tokio_tungstenite::Connector::Rustls(tls);
        tokio_tungstenite::connect_async_tls_with_config(url, None, true, Some(connector)).await
    });
    let Err(tokio_tungstenite::tungstenite::Error::Http(response)) = refused else {
        panic!("expected the plain /healthz response, got {refused:?}")
    };
    assert_eq!(response.status(), 200);
    let header = |name: &str| response.headers().get(name).map(|v| v.to_str().unwrap().to_string());
    assert_eq!(header("strict-transport-security").as_deref(), Some("max-age=31536000; includeSubDomains"));
    assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));
    assert_eq!(header("server"), None, "{:?}", response.headers());
}
