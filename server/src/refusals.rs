//! The operator's refusal list: addresses and prefixes (CIDR, IPv4 and IPv6) whose connections are closed at
//! accept, before any handshake work. Read from a file at start and read again whenever the file changes (its
//! modification time or size, polled every [`POLL`]), so that it takes effect without a restart.
//!
//! One entry per line (`192.0.2.7`, `198.51.100.0/24`, `2001:db8::/32`); `#` starts a comment. A line that does
//! not parse is logged with its number and skipped: the rest of the file applies.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime};

use tokio::sync::watch;

/// How often the file's modification time is checked.
pub(crate) const POLL: Duration = Duration::from_secs(2);

/// One refused prefix: an address with its low bits cleared, and how many bits count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Prefix {
    network: IpAddr,
    bits: u8,
}

impl Prefix {
    fn contains(&self, addr: IpAddr) -> bool {
        match (self.network, addr) {
            (IpAddr::V4(network), IpAddr::V4(addr)) => {
                mask(u32::from(addr).into(), self.bits, 32) == u128::from(u32::from(network))
            }
            (IpAddr::V6(network), IpAddr::V6(addr)) => mask(u128::from(addr), self.bits, 128) == u128::from(network),
            _ => false,
        }
    }
}

/// `value` (of `width` bits) with all but its first `bits` bits cleared.
fn mask(value: u128, bits: u8, width: u8) -> u128 {
    let cleared = u32::from(width - bits);
    value.checked_shr(cleared).and_then(|high| high.checked_shl(cleared)).unwrap_or(0)
}

/// Parses one entry (without comment or surrounding space).
fn parse_entry(entry: &str) -> Result<Prefix, String> {
    let (addr, bits) = match entry.split_once('/') {
        Some((addr, bits)) => (addr, Some(bits)),
        None => (entry, None),
    };
    let addr: IpAddr = addr.parse().map_err(|_| format!("not an IP address: {addr:?}"))?;
    let addr = addr.to_canonical();
    let width: u8 = if addr.is_ipv4() { 32 } else { 128 };
    let bits = match bits {
        None => width,
        Some(bits) => match bits.parse::<u8>() {
            Ok(bits) if bits <= width => bits,
            _ => return Err(format!("prefix length must be 0 to {width}: {bits:?}")),
        },
    };
    let network = match addr {
        IpAddr::V4(addr) => IpAddr::V4((mask(u32::from(addr).into(), bits, 32) as u32).into()),
        IpAddr::V6(addr) => IpAddr::V6(mask(u128::from(addr), bits, 128).into()),
    };
    Ok(Prefix { network, bits })
}

/// Parses a refusal file: the prefixes, and each bad line's number (from 1) with what is wrong with it.
fn parse(text: &str) -> (Vec<Prefix>, Vec<(usize, String)>) {
    let mut prefixes = Vec::new();
    let mut bad = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let entry = line.split('#').next().unwrap_or("").trim();
        if entry.is_empty() {
            continue;
        }
        match parse_entry(entry) {
            Ok(prefix) => prefixes.push(prefix),
            Err(error) => bad.push((index + 1, error)),
        }
    }
    (prefixes, bad)
}

/// The refused prefixes now in force (none without a file).
#[derive(Debug, Default)]
pub(crate) struct RefusalList {
    file: Option<PathBuf>,
    prefixes: RwLock<Arc<Vec<Prefix>>>,
}

/// What identifies a version of the file, to notice a change without reading it.
type Version = Option<(SystemTime, u64)>;

impl RefusalList {
    /// The list in `file`, read now: a file that cannot be read is an error (bad lines are not: they are logged).
    pub(crate) fn load(file: &Path) -> std::io::Result<RefusalList> {
        let list = RefusalList { file: Some(file.to_path_buf()), prefixes: RwLock::default() };
        list.read(file)?;
        Ok(list)
    }

    /// Whether connections from `addr` are refused. (An IPv4 address mapped into IPv6, as a dual-stack listener
    /// sees it, counts as the IPv4 address.)
    pub(crate) fn refuses(&self, addr: IpAddr) -> bool {
        let addr = addr.to_canonical();
        let prefixes = self.prefixes.read().unwrap_or_else(PoisonError::into_inner).clone();
        prefixes.iter().any(|prefix| prefix.contains(addr))
    }

    /// Reads the file and puts its prefixes in force.
    fn read(&self, file: &Path) -> std::io::Result<()> {
        let text = std::fs::read_to_string(file)?;
        let (prefixes, bad) = parse(&text);
        for (line, error) in &bad {
            tracing::warn!(file = %file.display(), line, error, "refusal list: line skipped");
        }
        tracing::info!(file = %file.display(), prefixes = prefixes.len(), skipped = bad.len(), "refusal list read");
        *self.prefixes.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(prefixes);
        Ok(())
    }

    /// Reads the file again each time it changes, until `shutdown` turns true. While it cannot be read (it is
    /// being replaced, or was removed), the previous list stays in force.
    pub(crate) async fn watch(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let Some(file) = self.file.clone() else { return };
        let version = |file: &Path| -> Version {
            let metadata = std::fs::metadata(file).ok()?;
            Some((metadata.modified().ok()?, metadata.len()))
        };
        let mut seen = version(&file);
        let mut ticks = tokio::time::interval(POLL);
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                _ = shutdown.wait_for(|stopping| *stopping) => return,
            }
            let now = version(&file);
            if now == seen {
                continue;
            }
            seen = now;
            if let Err(error) = self.read(&file) {
                tracing::warn!(file = %file.display(), %error, "refusal list unreadable: the previous one stays");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn list(text: &str) -> RefusalList {
        let (prefixes, _) = parse(text);
        RefusalList { file: None, prefixes: RwLock::new(Arc::new(prefixes)) }
    }

    #[test]
    fn addresses_and_prefixes_of_both_families_are_refused() {
        let refused = list("192.0.2.7\n198.51.100.0/24 # a noisy network\n2001:db8:1::/48\n");
        for address in ["192.0.2.7", "198.51.100.255", "::ffff:198.51.100.1", "2001:db8:1:ffff::1"] {
            assert!(refused.refuses(ip(address)), "{address}");
        }
        for allowed in ["192.0.2.8", "198.51.101.0", "2001:db8:2::1", "::1", "127.0.0.1"] {
            assert!(!refused.refuses(ip(allowed)), "{allowed}");
        }
        let everything = list("0.0.0.0/0\n::/0");
        assert!(everything.refuses(ip("203.0.113.1")) && everything.refuses(ip("2001:db8::1")));
    }

    #[test]
    fn bad_lines_are_reported_by_number_and_the_rest_applies() {
        let text = "# comment\n\n10.0.0.0/8\n10.1.2.3/33\nnot-an-address\n2001:db8::/129\n::1/x\nfe80::/10\n";
        let (prefixes, bad) = parse(text);
        assert_eq!(prefixes.len(), 2);
        assert_eq!(bad.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [4, 5, 6, 7]);
        assert!(bad[0].1.contains("0 to 32"), "{bad:?}");
    }

    #[test]
    fn host_bits_of_a_prefix_are_ignored() {
        assert_eq!(parse_entry("192.0.2.77/24").unwrap(), parse_entry("192.0.2.0/24").unwrap());
        assert_eq!(parse_entry("2001:db8::1/0").unwrap().network, ip("::"));
    }
}
