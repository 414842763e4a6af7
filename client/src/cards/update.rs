//! `fairdeck cards update`: MTGJSON's AtomicCards downloaded over HTTPS, checked against the SHA-256 MTGJSON
//! publishes beside it (`AtomicCards.json.xz.sha256`: the digest in hex, nothing else), then imported as
//! `fairdeck cards import` imports a file.
//!
//! HTTP is hyper's (the relay's own HTTP library), over the rustls configuration a relay connection uses
//! (`tls.rs`: Mozilla's roots compiled in, plus `--ca`), so a download trusts exactly what a relay connection
//! trusts, and there is one TLS stack in the program. The file goes to a temporary file in the cards folder that
//! is deleted whatever happens; the database is replaced only by the import, once the checksum has matched.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Empty};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{HOST, HeaderValue, LOCATION, USER_AGENT};
use hyper::{Request, Response, Uri};
use hyper_util::rt::TokioIo;
use indicatif::{ProgressBar, ProgressStyle};
use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use sha2::{Digest, Sha256};

use super::{CardsError, Imported, MAX_INPUT_BYTES};

/// Where MTGJSON publishes AtomicCards, xz-compressed (its smallest form that fairdeck reads).
pub const MTGJSON_URL: &str = "https://mtgjson.com/api/v5/AtomicCards.json.xz";
/// The longest checksum file read: 64 hex digits, perhaps followed by a file name.
const MAX_CHECKSUM_BYTES: u64 = 1 << 10;
/// The most redirects followed, each to an https:// URL.
const MAX_REDIRECTS: usize = 5;
/// The longest wait for a connection and its TLS handshake.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest wait for the server's answer, or for the next bytes of a body.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// An update done: the import, and the SHA-256 that vouched for the file (hex).
#[derive(Debug, Clone)]
pub struct Updated {
    pub imported: Imported,
    pub sha256: String,
}

/// `fairdeck cards update`: downloads `url` and its checksum `url.sha256`, trusting Mozilla's roots and the
/// certificates of `ca`, and replaces the database at `database` with it once the checksum matches. A progress
/// bar is drawn on standard error when `progress` is set. Any failure leaves the previous database as it was.
pub fn update(url: &str, ca: Option<&Path>, database: &Path, progress: bool) -> Result<Updated, CardsError> {
    let uri = https_uri(url)?;
    let checksum_uri = checksum_uri(&uri).map_err(|reason| download_error(&uri, reason))?;
    let tls = crate::tls::client_config(ca)?;
    let write_error = |reason: String| CardsError::Write { path: database.display().to_string(), reason };
    let dir = database.parent().ok_or_else(|| write_error("it has no folder".into()))?;
    std::fs::create_dir_all(dir).map_err(|e| write_error(e.to_string()))?;
    // Deleted when dropped: on every return below, the import's included.
    let mut download = tempfile::Builder::new()
        .prefix(".AtomicCards-")
        .suffix(".download")
        .tempfile_in(dir)
        .map_err(|e| write_error(e.to_string()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| download_error(&uri, format!("cannot start: {e}")))?;
    let (published, actual) = runtime.block_on(async {
        let published = published_checksum(&checksum_uri, &tls).await?;
        let actual = save(&uri, &tls, download.as_file_mut(), progress).await?;
        Ok::<_, CardsError>((published, actual))
    })?;
    drop(runtime);
    if published != actual {
        return Err(CardsError::Checksum {
            url: uri.to_string(),
            published: hex::encode(published),
            actual: hex::encode(actual),
        });
    }
    let imported = super::import(download.path(), uri.to_string(), database).map_err(|error| match error {
        // The temporary file is gone by the time the player reads this: name the URL instead.
        CardsError::Read { reason, .. } => CardsError::Read { path: uri.to_string(), reason },
        other => other,
    })?;
    Ok(Updated { imported, sha256: hex::encode(actual) })
}

/// `url` as an https:// URI: a plain http:// one is refused, since the checksum would come over the same
/// unauthenticated connection as the file and vouch for nothing.
fn https_uri(url: &str) -> Result<Uri, CardsError> {
    let uri: Uri =
        url.parse().map_err(|e| CardsError::Download { url: url.into(), reason: format!("not a URL: {e}") })?;
    match uri.scheme_str() {
        Some("https") if uri.host().is_some_and(|host| !host.is_empty()) => Ok(uri),
        Some("http") => Err(CardsError::NotHttps(url.into())),
        _ => Err(CardsError::Download { url: url.into(), reason: "not an https:// URL".into() }),
    }
}

/// Where the checksum of `uri` is published: the same path with `.sha256` added.
fn checksum_uri(uri: &Uri) -> Result<Uri, String> {
    let mut parts = uri.clone().into_parts();
    let path = format!("{}.sha256", uri.path());
    let path_and_query = match uri.query() {
        Some(query) => format!("{path}?{query}"),
        None => path,
    };
    parts.path_and_query = Some(path_and_query.parse().map_err(|e| format!("no checksum URL: {e}"))?);
    Uri::from_parts(parts).map_err(|e| format!("no checksum URL: {e}"))
}

fn download_error(uri: &Uri, reason: String) -> CardsError {
    CardsError::Download { url: uri.to_string(), reason }
}

/// The SHA-256 published at `uri`: its first word, 64 hex digits.
async fn published_checksum(uri: &Uri, tls: &Arc<ClientConfig>) -> Result<[u8; 32], CardsError> {
    let response = get(uri, tls).await?;
    let mut text = Vec::new();
    read_body(response, MAX_CHECKSUM_BYTES, |data| {
        text.extend_from_slice(data);
        Ok(())
    })
    .await
    .map_err(|reason| download_error(uri, reason))?;
    parse_checksum(&text).ok_or_else(|| download_error(uri, "it is not a SHA-256 checksum (64 hex digits)".into()))
}

fn parse_checksum(text: &[u8]) -> Option<[u8; 32]> {
    let word = std::str::from_utf8(text).ok()?.split_whitespace().next()?;
    let mut digest = [0u8; 32];
    hex::decode_to_slice(word, &mut digest).ok()?;
    Some(digest)
}

/// Downloads `uri` into `file`, at most [`MAX_INPUT_BYTES`], and gives the SHA-256 of what was received.
async fn save(
    uri: &Uri,
    tls: &Arc<ClientConfig>,
    file: &mut std::fs::File,
    progress: bool,
) -> Result<[u8; 32], CardsError> {
    let response = get(uri, tls).await?;
    let bar = progress_bar(progress, response.body().size_hint().exact());
    let mut hasher = Sha256::new();
    let received = read_body(response, MAX_INPUT_BYTES, |data| {
        hasher.update(data);
        bar.inc(data.len() as u64);
        file.write_all(data)
    })
    .await;
    bar.finish_and_clear();
    received.map_err(|reason| download_error(uri, reason))?;
    Ok(hasher.finalize().into())
}

/// A bar of the bytes received on standard error, or nothing when it is not a terminal.
fn progress_bar(shown: bool, length: Option<u64>) -> ProgressBar {
    if !shown {
        return ProgressBar::hidden();
    }
    let (bar, template) = match length {
        Some(length) => {
            (ProgressBar::new(length), "AtomicCards {wide_bar} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
        }
        None => (ProgressBar::new_spinner(), "AtomicCards {spinner} {bytes} {bytes_per_sec}"),
    };
    bar.with_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()))
}

/// The answer to a GET of `uri`, following redirects to https:// URLs; an answer other than 2xx is an error.
async fn get(uri: &Uri, tls: &Arc<ClientConfig>) -> Result<Response<Incoming>, CardsError> {
    let mut uri = uri.clone();
    for _ in 0..=MAX_REDIRECTS {
        let response = request(&uri, tls).await.map_err(|reason| download_error(&uri, reason))?;
        let status = response.status();
        match response.headers().get(LOCATION) {
            Some(location) if status.is_redirection() => uri = redirected(&uri, location)?,
            _ if status.is_success() => return Ok(response),
            _ => return Err(download_error(&uri, format!("the server answered {status}"))),
        }
    }
    Err(download_error(&uri, format!("more than {MAX_REDIRECTS} redirects")))
}

/// Where a redirect from `from` leads: an absolute https:// URL, or a path on the same server.
fn redirected(from: &Uri, location: &HeaderValue) -> Result<Uri, CardsError> {
    let bad = |reason: &str| download_error(from, format!("a redirect {reason}"));
    let location = location.to_str().map_err(|_| bad("to a location that is not text"))?;
    if location.starts_with('/') {
        let mut parts = from.clone().into_parts();
        parts.path_and_query = Some(location.parse().map_err(|_| bad("to a path that is not one"))?);
        return Uri::from_parts(parts).map_err(|_| bad("to a path that is not one"));
    }
    https_uri(location)
}

/// One GET on a new connection: TCP, TLS, then HTTP/1.1.
async fn request(uri: &Uri, tls: &Arc<ClientConfig>) -> Result<Response<Incoming>, String> {
    let authority = uri.authority().map(|a| a.as_str()).unwrap_or_default();
    let host = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
    let port = uri.port_u16().unwrap_or(443);
    let connect = async {
        let tcp = tokio::net::TcpStream::connect((host, port)).await.map_err(|e| format!("cannot connect: {e}"))?;
        let name = ServerName::try_from(host.to_string()).map_err(|e| format!("{host} is not a server name: {e}"))?;
        let connector = tokio_rustls::TlsConnector::from(Arc::clone(tls));
        connector.connect(name, tcp).await.map_err(|e| format!("the TLS handshake failed: {e}"))
    };
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, connect)
        .await
        .map_err(|_| format!("no connection within {} s", CONNECT_TIMEOUT.as_secs()))??;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| error_chain(&e))?;
    // The connection runs beside the request: its failures reach the response or the body being read.
    tokio::spawn(connection);
    let request = Request::get(uri.path_and_query().map_or("/", |path| path.as_str()))
        .header(HOST, authority)
        .header(USER_AGENT, concat!("fairdeck/", env!("CARGO_PKG_VERSION")))
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    tokio::time::timeout(READ_TIMEOUT, sender.send_request(request))
        .await
        .map_err(|_| format!("no answer within {} s", READ_TIMEOUT.as_secs()))?
        .map_err(|e| error_chain(&e))
}

/// Passes the body of `response` to `sink`, refusing more than `limit` bytes and a silence longer than
/// [`READ_TIMEOUT`]. A body that ends before its Content-Length is hyper's error, passed on.
async fn read_body(
    response: Response<Incoming>,
    limit: u64,
    mut sink: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> Result<(), String> {
    let mut body = response.into_body();
    if let Some(length) = body.size_hint().exact()
        && length > limit
    {
        return Err(format!("it is {length} bytes long: at most {limit}"));
    }
    let mut received = 0u64;
    loop {
        let frame = tokio::time::timeout(READ_TIMEOUT, body.frame())
            .await
            .map_err(|_| format!("nothing came for {} s after {received} bytes", READ_TIMEOUT.as_secs()))?;
        let Some(frame) = frame else { break };
        let frame = frame.map_err(|e| format!("the connection failed after {received} bytes: {}", error_chain(&e)))?;
        let Ok(data) = frame.into_data() else { continue };
        received += data.len() as u64;
        if received > limit {
            return Err(format!("it is longer than {limit} bytes"));
        }
        sink(&data).map_err(|e| format!("cannot write it: {e}"))?;
    }
    Ok(())
}

/// An error and its causes, as one line: hyper's own message is often only "connection error".
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_urls_are_taken() {
        assert!(https_uri("https://mtgjson.com/api/v5/AtomicCards.json.xz").is_ok());
        let plain = https_uri("http://mtgjson.com/api/v5/AtomicCards.json.xz").unwrap_err();
        assert!(matches!(plain, CardsError::NotHttps(_)), "{plain}");
        for url in ["ftp://mtgjson.com/AtomicCards.json.xz", "AtomicCards.json.xz", "https:///x", "not a url"] {
            let error = https_uri(url).unwrap_err();
            assert!(matches!(error, CardsError::Download { .. }), "{url}: {error}");
        }
    }

    #[test]
    fn the_checksum_is_published_beside_the_file() {
        let uri: Uri = MTGJSON_URL.parse().unwrap();
        assert_eq!(checksum_uri(&uri).unwrap().to_string(), "https://mtgjson.com/api/v5/AtomicCards.json.xz.sha256");
        let uri: Uri = "https://127.0.0.1:8443/a.json.xz?v=2".parse().unwrap();
        assert_eq!(checksum_uri(&uri).unwrap().to_string(), "https://127.0.0.1:8443/a.json.xz.sha256?v=2");
    }

    #[test]
    fn a_checksum_is_64_hex_digits_alone_or_before_a_name() {
        let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        let digest = parse_checksum(hex.as_bytes()).unwrap();
        assert_eq!(hex::encode(digest), hex);
        assert_eq!(parse_checksum(format!("{}  AtomicCards.json.xz\n", hex.to_uppercase()).as_bytes()), Some(digest));
        for bad in ["", "9f86", &format!("{hex}00"), "<html>Not Found</html>", &format!("sha256:{hex}")] {
            assert_eq!(parse_checksum(bad.as_bytes()), None, "{bad}");
        }
        assert_eq!(parse_checksum(&[0xff, 0xfe]), None);
    }

    #[test]
    fn a_redirect_stays_on_https() {
        let from: Uri = "https://mtgjson.com/api/v5/AtomicCards.json.xz".parse().unwrap();
        let to = |location: &str| redirected(&from, &HeaderValue::from_str(location).unwrap());
        assert_eq!(
            to("/files/AtomicCards.json.xz").unwrap().to_string(),
            "https://mtgjson.com/files/AtomicCards.json.xz"
        );
        assert_eq!(to("https://cdn.example/a.xz").unwrap().to_string(), "https://cdn.example/a.xz");
        assert!(matches!(to("http://cdn.example/a.xz"), Err(CardsError::NotHttps(_))));
    }
}
