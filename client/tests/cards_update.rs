//! `fairdeck cards update` against an HTTPS server of the test's own on loopback: a certificate authority made
//! for the test, a server certificate for 127.0.0.1, and a small HTTP/1.1 responder over rustls serving the
//! fixture xz-compressed, as MTGJSON publishes it, with its `.sha256` beside it; or a wrong checksum, half a
//! file, or nothing.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use sha2::{Digest, Sha256};
use support::fairdeck_in;

mod support;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/AtomicCards.json");
const FILE: &str = "/AtomicCards.json.xz";

/// What the server answers for a path.
#[derive(Clone)]
enum Served {
    Whole(Vec<u8>),
    /// The Content-Length of `body`, then only its first `sent` bytes; then TLS's close_notify (a clean end,
    /// which only the length tells is early) or the socket dropped.
    Cut {
        body: Vec<u8>,
        sent: usize,
        close_notify: bool,
    },
    /// A Content-Length, and no body.
    Claims(u64),
}

/// The HTTPS server: `https://127.0.0.1:PORT`, its CA's certificate in `ca.pem`.
struct Server {
    port: u16,
    dir: tempfile::TempDir,
}

impl Server {
    /// Serves `site` (path → answer; any other path is 404) until the test ends.
    fn start(site: HashMap<&'static str, Served>) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        std::fs::write(dir.path().join("ca.pem"), ca.pem()).unwrap();
        let key = KeyPair::generate().unwrap();
        let certificate = CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap().signed_by(&key, &ca).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(certificate.der().to_vec())],
                PrivateKeyDer::try_from(key.serialize_der()).unwrap(),
            )
            .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (config, site) = (Arc::new(config), Arc::new(site));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (config, site) = (Arc::clone(&config), Arc::clone(&site));
                std::thread::spawn(move || answer(stream, config, &site));
            }
        });
        Server { port, dir }
    }

    fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    fn ca(&self) -> String {
        self.dir.path().join("ca.pem").display().to_string()
    }
}

/// One request on one connection, answered as `site` says; errors only end the connection.
fn answer(stream: TcpStream, config: Arc<rustls::ServerConfig>, site: &HashMap<&'static str, Served>) {
    let Ok(connection) = rustls::ServerConnection::new(config) else { return };
    let mut tls = rustls::StreamOwned::new(connection, stream);
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match tls.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buffer[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split(' ').nth(1).unwrap_or_default();
    let respond = |tls: &mut rustls::StreamOwned<_, _>, status: &str, length: u64, body: &[u8]| {
        let head = format!("HTTP/1.1 {status}\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n");
        let _ = tls.write_all(head.as_bytes()).and_then(|()| tls.write_all(body)).and_then(|()| tls.flush());
    };
    match site.get(path) {
        None => respond(&mut tls, "404 Not Found", 9, b"not found"),
        Some(Served::Whole(body)) => respond(&mut tls, "200 OK", body.len() as u64, body),
        Some(Served::Claims(length)) => respond(&mut tls, "200 OK", *length, b""),
        Some(Served::Cut { body, sent, close_notify }) => {
            respond(&mut tls, "200 OK", body.len() as u64, &body[..*sent]);
            if *close_notify {
                tls.conn.send_close_notify();
                let _ = tls.flush();
            }
        }
    }
}

fn fixture_xz() -> Vec<u8> {
    let mut xz = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(6)).unwrap();
    xz.write_all(&std::fs::read(FIXTURE).unwrap()).unwrap();
    xz.finish().unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// MTGJSON's site: the file, and its checksum as MTGJSON writes it (the hex digest alone).
fn published(file: Served, checksum: &str) -> HashMap<&'static str, Served> {
    HashMap::from([(FILE, file), ("/AtomicCards.json.xz.sha256", Served::Whole(checksum.as_bytes().to_vec()))])
}

fn succeeded(output: Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn failed(output: Output) -> String {
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stdout));
    String::from_utf8(output.stderr).unwrap()
}

/// The files of the cards folder: the database, and nothing left behind by a download.
fn cards_folder(data: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data.join("fairdeck/cards"))
        .map(|entries| entries.flatten().map(|entry| entry.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// A data folder holding a database of an older MTGJSON build (another date), and its bytes.
fn older_database() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let data = tempfile::tempdir().unwrap();
    let older = std::fs::read_to_string(FIXTURE).unwrap().replace("\"2026-11-20\"", "\"2026-01-01\"");
    let file = data.path().join("older.json");
    std::fs::write(&file, older).unwrap();
    succeeded(fairdeck_in(data.path(), &["cards", "import", &file.display().to_string()]));
    let database = data.path().join("fairdeck/cards/cards.db");
    let bytes = std::fs::read(&database).unwrap();
    (data, database, bytes)
}

#[test]
fn an_update_checks_the_published_checksum_then_imports_the_file() {
    let xz = fixture_xz();
    let server = Server::start(published(Served::Whole(xz.clone()), &sha256_hex(&xz)));
    let (data, _, _) = older_database();
    let url = server.url(FILE);
    let updated = succeeded(fairdeck_in(data.path(), &["cards", "update", "--url", &url, "--ca", &server.ca()]));
    assert!(
        updated.starts_with(&format!("Imported 37 cards (MTGJSON 5.2.2+20261120 of 2026-11-20) from {url}\n")),
        "{updated}"
    );
    assert!(updated.contains(&format!("SHA-256 {}, as published beside it", sha256_hex(&xz))), "{updated}");
    let status = succeeded(fairdeck_in(data.path(), &["cards"]));
    assert!(status.starts_with("Card database: 37 cards, MTGJSON 5.2.2+20261120 of 2026-11-20\n"), "{status}");
    assert!(status.contains(&format!(" from {url}\n")), "{status}");
    let guide = succeeded(fairdeck_in(data.path(), &["card", "Goblin Guide"]));
    assert!(guide.starts_with("Goblin Guide  {R}\nCreature — Goblin Scout\nHaste\n"), "{guide}");
    assert_eq!(cards_folder(data.path()), ["cards.db"]);
}

#[test]
fn a_wrong_checksum_is_refused_and_the_database_kept() {
    let xz = fixture_xz();
    let other = sha256_hex(b"another file");
    let server = Server::start(published(Served::Whole(xz.clone()), &format!("{other}\n")));
    let (data, database, before) = older_database();
    let url = server.url(FILE);
    let error = failed(fairdeck_in(data.path(), &["cards", "update", "--url", &url, "--ca", &server.ca()]));
    assert_eq!(
        error,
        format!(
            "fairdeck: {url} does not match the SHA-256 published beside it (published {other}, downloaded {}): \
             refused, and the previous database, if any, is kept\n",
            sha256_hex(&xz)
        )
    );
    assert_eq!(std::fs::read(&database).unwrap(), before);
    assert_eq!(cards_folder(data.path()), ["cards.db"]);
}

#[test]
fn a_checked_file_that_is_not_atomic_cards_is_refused_by_its_url() {
    let mut broken_xz = fixture_xz();
    let middle = broken_xz.len() / 2;
    broken_xz[middle..].fill(0);
    let cases: [(&[u8], &str); 2] =
        [(b"not JSON", " is not an AtomicCards file: "), (&broken_xz, ": cannot decompress it (xz): ")];
    for (file, needle) in cases {
        let server = Server::start(published(Served::Whole(file.to_vec()), &sha256_hex(file)));
        let (data, database, before) = older_database();
        let url = server.url(FILE);
        let error = failed(fairdeck_in(data.path(), &["cards", "update", "--url", &url, "--ca", &server.ca()]));
        let named = if needle.starts_with(':') { format!("cannot read {url}") } else { url.clone() };
        assert!(error.starts_with(&format!("fairdeck: {named}{needle}")), "{error}");
        assert_eq!(std::fs::read(&database).unwrap(), before);
        assert_eq!(cards_folder(data.path()), ["cards.db"]);
    }
}

#[test]
fn an_interrupted_download_leaves_the_old_database_and_no_file_behind() {
    let xz = fixture_xz();
    let half = xz.len() / 2;
    for close_notify in [true, false] {
        let cut = Served::Cut { body: xz.clone(), sent: half, close_notify };
        let server = Server::start(published(cut, &sha256_hex(&xz)));
        let (data, database, before) = older_database();
        let url = server.url(FILE);
        let error = failed(fairdeck_in(data.path(), &["cards", "update", "--url", &url, "--ca", &server.ca()]));
        let cause = format!(
            "fairdeck: cannot download {url}: the connection failed after {half} bytes: error reading a body from \
             connection: "
        );
        assert!(error.starts_with(&cause), "{error}");
        assert!(error.ends_with("(the previous database, if any, is kept)\n"), "{error}");
        assert_eq!(std::fs::read(&database).unwrap(), before, "close_notify: {close_notify}");
        assert_eq!(cards_folder(data.path()), ["cards.db"], "close_notify: {close_notify}");
    }
}

#[test]
fn a_file_longer_than_the_limit_is_refused_before_it_is_read() {
    let server = Server::start(published(Served::Claims(600 << 20), &sha256_hex(b"")));
    let data = tempfile::tempdir().unwrap();
    let url = server.url(FILE);
    let error = failed(fairdeck_in(data.path(), &["cards", "update", "--url", &url, "--ca", &server.ca()]));
    assert!(
        error.contains(&format!("cannot download {url}: it is 629145600 bytes long: at most 536870912")),
        "{error}"
    );
    assert!(cards_folder(data.path()).is_empty(), "{:?}", cards_folder(data.path()));
}

#[test]
fn a_missing_file_or_checksum_is_the_server_s_answer() {
    let xz = fixture_xz();
    let no_checksum = Server::start(HashMap::from([(FILE, Served::Whole(xz.clone()))]));
    let no_file =
        Server::start(HashMap::from([("/AtomicCards.json.xz.sha256", Served::Whole(sha256_hex(&xz).into()))]));
    let data = tempfile::tempdir().unwrap();
    for (server, missing) in [(&no_checksum, format!("{FILE}.sha256")), (&no_file, FILE.to_string())] {
        let error =
            failed(fairdeck_in(data.path(), &["cards", "update", "--url", &server.url(FILE), "--ca", &server.ca()]));
        assert_eq!(
            error,
            format!(
                "fairdeck: cannot download {}: the server answered 404 Not Found (the previous database, if any, \
                 is kept)\n",
                server.url(&missing)
            )
        );
    }
    assert!(cards_folder(data.path()).is_empty(), "{:?}", cards_folder(data.path()));
}

#[test]
fn plain_http_and_an_untrusted_certificate_are_refused() {
    let xz = fixture_xz();
    let server = Server::start(published(Served::Whole(xz.clone()), &sha256_hex(&xz)));
    let data = tempfile::tempdir().unwrap();
    let plain = format!("http://127.0.0.1:{}{FILE}", server.port);
    let error = failed(fairdeck_in(data.path(), &["cards", "update", "--url", &plain]));
    assert!(error.starts_with(&format!("fairdeck: refusing {plain}: ")) && error.contains("https:// only"), "{error}");
    // Without --ca, the test's CA is not among the public roots.
    let error = failed(fairdeck_in(data.path(), &["cards", "update", "--url", &server.url(FILE)]));
    assert!(error.contains("the TLS handshake failed: invalid peer certificate: UnknownIssuer"), "{error}");
    assert!(!data.path().join("fairdeck/cards/cards.db").exists());
}
