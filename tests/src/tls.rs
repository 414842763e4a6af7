//! A real TLS endpoint on loopback: a certificate authority made for the test, and Caddy (the reverse proxy
//! operators put in front of the relay) serving `wss://localhost:PORT/v1` with the repository's own
//! `deploy/Caddyfile`, adapted only where a test must differ (address, certificate, no admin endpoint).

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

use crate::{Relay, free_port, workspace_root};

/// How long Caddy may take to start listening.
const CADDY_START: Duration = Duration::from_secs(30);

/// A certificate authority of the test's own, and a certificate it issued for `localhost` only.
pub struct TestCa {
    dir: tempfile::TempDir,
}

impl TestCa {
    /// Makes the CA and the server certificate; the files live as long as this value.
    pub fn new() -> TestCa {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(DnType::CommonName, "fairdeck test CA");
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("CA key")).expect("CA");
        let server_key = KeyPair::generate().expect("server key");
        let server = CertificateParams::new(vec!["localhost".to_string()])
            .expect("server parameters")
            .signed_by(&server_key, &ca)
            .expect("server certificate");
        std::fs::write(dir.path().join("ca.pem"), ca.pem()).expect("write CA");
        std::fs::write(dir.path().join("server.pem"), server.pem()).expect("write certificate");
        std::fs::write(dir.path().join("server.key"), server_key.serialize_pem()).expect("write key");
        TestCa { dir }
    }

    /// The CA's certificate (PEM), for `--ca`.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    fn server_files(&self) -> (PathBuf, PathBuf) {
        (self.dir.path().join("server.pem"), self.dir.path().join("server.key"))
    }
}

impl Default for TestCa {
    fn default() -> Self {
        TestCa::new()
    }
}

/// A Caddy process proxying `https://localhost:PORT` to one relay or several; dropping it stops Caddy.
pub struct Caddy {
    port: u16,
    child: Child,
    dir: tempfile::TempDir,
}

impl Caddy {
    /// Starts Caddy (the `caddy` on PATH; `scripts/ensure-test-tools.sh` installs it) in front of `relay`
    /// with the server certificate of `ca`, and waits until it accepts connections.
    pub fn start(relay: &Relay, ca: &TestCa) -> Caddy {
        Caddy::start_for(&[relay.addr], ca)
    }

    /// Starts Caddy in front of the relays at `upstreams` (see [`test_caddyfile`]), and waits until it accepts
    /// connections.
    pub fn start_for(upstreams: &[SocketAddr], ca: &TestCa) -> Caddy {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let deployed = std::fs::read_to_string(workspace_root().join("deploy/Caddyfile")).expect("deploy/Caddyfile");
        let (certificate, key) = ca.server_files();
        let config = test_caddyfile(&deployed, port, upstreams, &certificate, &key, dir.path());
        let config_path = dir.path().join("Caddyfile");
        std::fs::write(&config_path, config).expect("write Caddyfile");
        let log = std::fs::File::create(dir.path().join("caddy.log")).expect("caddy log");
        let child = Command::new("caddy")
            .args(["run", "--adapter", "caddyfile", "--config"])
            .arg(&config_path)
            // Caddy keeps its state under HOME and the XDG folders: the test's directory, not the user's.
            .env("HOME", dir.path())
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log handle"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start caddy ({e}): run scripts/ensure-test-tools.sh"));
        let mut caddy = Caddy { port, child, dir };
        caddy.wait_listening();
        caddy
    }

    /// The URL clients use: `wss://localhost:PORT/v1`.
    pub fn url(&self) -> String {
        format!("wss://localhost:{}/v1", self.port)
    }

    /// Caddy's listening address.
    pub fn address(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// The same endpoint by address, which the certificate does not name.
    pub fn url_by_address(&self) -> String {
        format!("wss://127.0.0.1:{}/v1", self.port)
    }

    fn wait_listening(&mut self) {
        let deadline = Instant::now() + CADDY_START;
        while TcpStream::connect_timeout(&self.address(), Duration::from_millis(200)).is_err() {
            if let Some(status) = self.child.try_wait().expect("wait for caddy") {
                panic!("caddy exited ({status}):\n{}", self.log());
            }
            assert!(Instant::now() < deadline, "caddy did not listen within {CADDY_START:?}:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// What Caddy wrote, for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("caddy.log")).unwrap_or_default()
    }
}

impl Drop for Caddy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `deploy/Caddyfile` for a test: the site address becomes `localhost:PORT` with the test's certificate, the
/// relay's address the test relay's; the global options gain what keeps Caddy to itself (no admin endpoint,
/// no automatic certificates or redirects, state in `state_dir`) and `default_sni`, so that a client without
/// SNI (one dialling an IP address) is shown the certificate too. Everything else is the operators' file.
///
/// With several `upstreams`, the proxy takes them in turn (`round_robin`, so that a guest who connects just after
/// its host lands on another instance), retries a connection that cannot reach one on the next, and checks each
/// one's `/healthz` every second, so that a test's restarts do not wait for the operators' intervals.
pub fn test_caddyfile(
    deployed: &str,
    port: u16,
    upstreams: &[SocketAddr],
    certificate: &Path,
    key: &Path,
    state_dir: &Path,
) -> String {
    const SITE: &str = "relay.example.org {";
    const PROXY: &str = "reverse_proxy 127.0.0.1:7171\n";
    assert!(deployed.contains(SITE), "deploy/Caddyfile has no site block `{SITE}`");
    assert!(deployed.contains(PROXY), "deploy/Caddyfile does not proxy to 127.0.0.1:7171");
    let site = format!("localhost:{port} {{\n\ttls {} {}", certificate.display(), key.display());
    let addresses: Vec<String> = upstreams.iter().map(SocketAddr::to_string).collect();
    let proxy = match upstreams {
        [_] => format!("reverse_proxy {}\n", addresses[0]),
        _ => format!(
            "reverse_proxy {} {{\n\t\tlb_policy round_robin\n\t\tlb_try_duration 10s\n\t\tlb_try_interval 100ms\n\t\t\
             health_uri /healthz\n\t\thealth_interval 1s\n\t\thealth_timeout 1s\n\t}}\n",
            addresses.join(" ")
        ),
    };
    let body = deployed.replacen(SITE, &site, 1).replacen(PROXY, &proxy, 1);
    let options = format!(
        "\tadmin off\n\tauto_https off\n\tdefault_sni localhost\n\tstorage file_system {}\n",
        state_dir.display()
    );
    // A global options block must come first; the deployed file may have one of its own.
    let starts_with_options = body
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .is_some_and(|line| line == "{");
    if !starts_with_options {
        return format!("{{\n{options}}}\n\n{body}");
    }
    let mut adapted = String::with_capacity(body.len() + options.len());
    let mut inserted = false;
    for line in body.lines() {
        adapted.push_str(line);
        adapted.push('\n');
        if !inserted && line.trim() == "{" {
            adapted.push_str(&options);
            inserted = true;
        }
    }
    adapted
}
