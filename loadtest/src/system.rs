//! What the load tool asks of the operating system: the open-file limit, the loopback addresses and ports its
//! client connections come from, memory and CPU of a process.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::OnceLock;

use fairdeck_relay::descriptors;

/// Raises the soft open-file limit to the hard one, as the relay does at start, and both past it to `needed` if
/// this process may (root with CAP_SYS_RESOURCE; a container often withholds it). Child processes inherit the
/// result. Returns the soft limit now in force (`u64::MAX`: unlimited).
pub fn raise_open_files(needed: u64) -> u64 {
    let soft = match descriptors::raise_open_file_limit() {
        (Some(soft), _) => soft,
        (None, None) => return u64::MAX,
        // The limit could not even be read: what the kernel gives by default, to be told of by the checks.
        (None, Some(_)) => 1024,
    };
    if soft >= needed {
        return soft;
    }
    let raised = libc::rlimit { rlim_cur: needed, rlim_max: needed };
    // SAFETY: setrlimit only reads the struct it is given.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 { needed } else { soft }
}

/// Client connections from one loopback address to one relay address take at most this share of the kernel's
/// ephemeral port range (`net.ipv4.ip_local_port_range`, some 28,000 ports by default), leaving the rest to the
/// machine's other connections.
const PORT_SHARE: (usize, usize) = (3, 4);

/// The loopback source addresses of the load's client connections: pair `i` comes from `127.0.0.(1 + k)` with
/// `k = 2i / per_address`, so that no address runs out of ephemeral ports towards a relay (all of 127.0.0.0/8
/// reaches the loopback interface, without any set-up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sources {
    per_address: usize,
}

impl Sources {
    /// Sources for this machine's ephemeral port range (read once).
    pub fn of_machine() -> Sources {
        static SOURCES: OnceLock<Sources> = OnceLock::new();
        *SOURCES.get_or_init(|| {
            let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok();
            Sources::for_ports(range.as_deref().and_then(port_count).unwrap_or(28_232))
        })
    }

    /// Sources when the ephemeral range has `ports` ports.
    pub fn for_ports(ports: usize) -> Sources {
        Sources { per_address: (ports * PORT_SHARE.0 / PORT_SHARE.1).max(2) }
    }

    /// The address pair `index`'s two connections come from.
    pub fn of_pair(self, index: usize) -> IpAddr {
        let k = (2 * index / self.per_address).min(usize::from(u16::MAX) - 1) as u16;
        let [high, low] = (k + 1).to_be_bytes();
        IpAddr::V4(Ipv4Addr::new(127, 0, high, low))
    }

    /// How many addresses `pairs` pairs come from.
    pub fn addresses(self, pairs: usize) -> usize {
        (2 * pairs).div_ceil(self.per_address).max(1)
    }

    /// Client connections each address makes.
    pub fn per_address(self) -> usize {
        self.per_address
    }
}

/// The number of ports in a `ip_local_port_range` file's "low high".
fn port_count(range: &str) -> Option<usize> {
    let mut bounds = range.split_whitespace().map(str::parse::<usize>);
    let (low, high) = (bounds.next()?.ok()?, bounds.next()?.ok()?);
    (high >= low).then(|| high - low + 1)
}

/// Resident memory of `pid`, in KiB.
pub fn rss_kib(pid: u32) -> std::io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:")?.trim().strip_suffix("kB")?.trim().parse().ok())
        .ok_or_else(|| std::io::Error::other("no VmRSS"))
}

/// User plus system CPU time of `pid`, in seconds.
pub fn cpu_seconds(pid: u32) -> std::io::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which may contain spaces) start at the last ')'.
    let fields: Vec<&str> = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    // utime and stime are fields 14 and 15 of the file, 12 and 13 after the state field.
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Ok((ticks(11) + ticks(12)) as f64 / per_second)
}

/// Total CPU time of the whole machine (all processes), in seconds, from /proc/stat.
pub fn machine_cpu_seconds() -> std::io::Result<f64> {
    let stat = std::fs::read_to_string("/proc/stat")?;
    let line = stat.lines().next().unwrap_or("");
    let busy: u64 = line
        .split_whitespace()
        .skip(1)
        .enumerate()
        // user nice system (idle iowait skipped) irq softirq steal
        .filter(|(i, _)| !matches!(i, 3 | 4))
        .take(6)
        .filter_map(|(_, v)| v.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Ok(busy as f64 / per_second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_move_to_the_next_source_address_before_the_ports_of_one_run_out() {
        assert_eq!(port_count("32768\t60999\n"), Some(28_232));
        assert_eq!(port_count("60999 32768"), None);
        let sources = Sources::for_ports(28_232);
        assert_eq!(sources.per_address(), 21_174);
        assert_eq!(sources.of_pair(0), IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)));
        assert_eq!(sources.of_pair(10_586), IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)));
        assert_eq!(sources.of_pair(10_587), IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)));
        // 50,000 connections: three addresses, none with more connections than its share of the ports.
        assert_eq!(sources.addresses(25_000), 3);
        assert_eq!(sources.of_pair(24_999), IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3)));
        let small = Sources::for_ports(400);
        assert_eq!(small.of_pair(150 * 255), IpAddr::V4(Ipv4Addr::new(127, 0, 1, 0)), "past 127.0.0.255");
    }

    #[test]
    fn the_open_file_limit_is_raised_to_its_hard_ceiling_and_past_it_only_if_allowed() {
        let in_force = || {
            let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            // SAFETY: getrlimit only writes the struct it is given.
            assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) }, 0);
            limit
        };
        let soft = raise_open_files(0);
        let limit = in_force();
        if limit.rlim_cur == libc::RLIM_INFINITY {
            return;
        }
        assert_eq!((soft, limit.rlim_cur), (limit.rlim_max, limit.rlim_max));
        // Past the hard limit: raised where this process may, else left; either way the answer is what holds.
        let past = raise_open_files(limit.rlim_max + 1);
        assert!(past == limit.rlim_max || past == limit.rlim_max + 1);
        assert_eq!(past, in_force().rlim_cur);
    }
}
