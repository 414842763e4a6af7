//! The standard `process_*` Prometheus metrics (resident memory, open file descriptors, CPU time...), read from
//! `/proc/self` at each scrape. Elsewhere than Linux they are left out.

use std::fmt::Write;

/// What `/proc/self` tells about this process.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ProcessStats {
    pub(crate) cpu_seconds: f64,
    pub(crate) resident_bytes: u64,
    pub(crate) virtual_bytes: u64,
    pub(crate) open_fds: u64,
    pub(crate) max_fds: Option<u64>,
    pub(crate) start_time_seconds: Option<f64>,
}

impl ProcessStats {
    /// Reads the current figures; `None` if `/proc` is not there.
    pub(crate) fn read() -> Option<ProcessStats> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name.
        let (ticks, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK), libc::sysconf(libc::_SC_PAGESIZE)) };
        let fields = parse_stat(&stat)?;
        let ticks = if ticks > 0 { ticks as f64 } else { 100.0 };
        let open_fds = std::fs::read_dir("/proc/self/fd").ok()?.count() as u64;
        let boot_time = std::fs::read_to_string("/proc/stat")
            .ok()
            .and_then(|text| text.lines().find_map(|line| line.strip_prefix("btime ")?.trim().parse::<f64>().ok()));
        Some(ProcessStats {
            cpu_seconds: (fields.utime + fields.stime) as f64 / ticks,
            resident_bytes: fields.rss_pages.saturating_mul(page.max(0) as u64),
            virtual_bytes: fields.vsize,
            open_fds,
            max_fds: max_fds(),
            start_time_seconds: boot_time.map(|boot| boot + fields.start_ticks as f64 / ticks),
        })
    }
}

/// Appends the `process_*` metrics to a Prometheus text exposition.
pub(crate) fn render(text: &mut String) {
    let Some(stats) = ProcessStats::read() else { return };
    let mut metric = |name: &str, kind: &str, help: &str, value: String| {
        let _ = write!(text, "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n\n");
    };
    metric(
        "process_cpu_seconds_total",
        "counter",
        "User and system CPU time, in seconds.",
        stats.cpu_seconds.to_string(),
    );
    metric("process_resident_memory_bytes", "gauge", "Resident memory, in bytes.", stats.resident_bytes.to_string());
    metric("process_virtual_memory_bytes", "gauge", "Virtual memory, in bytes.", stats.virtual_bytes.to_string());
    metric("process_open_fds", "gauge", "Open file descriptors.", stats.open_fds.to_string());
    if let Some(max) = stats.max_fds {
        metric("process_max_fds", "gauge", "The open-file limit (soft).", max.to_string());
    }
    if let Some(start) = stats.start_time_seconds {
        metric(
            "process_start_time_seconds",
            "gauge",
            "Start time, in seconds since the Unix epoch.",
            start.to_string(),
        );
    }
}

struct StatFields {
    utime: u64,
    stime: u64,
    start_ticks: u64,
    vsize: u64,
    rss_pages: u64,
}

/// Reads the fields of `/proc/self/stat` used here. The second field, the command name, is in parentheses and may
/// hold spaces, so counting starts after its closing parenthesis (at field 3).
fn parse_stat(stat: &str) -> Option<StatFields> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Field n (1-based, as in proc(5)) is at index n - 3.
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some(StatFields {
        utime: field(14)?,
        stime: field(15)?,
        start_ticks: field(22)?,
        vsize: field(23)?,
        rss_pages: field(24)?,
    })
}

fn max_fds() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes the struct it is given.
    let done = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    (done == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_even_with_spaces_in_the_command_name() {
        let line = "4242 (tokio (rt) w) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 8 0 12345 \
                    104857600 2560 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        let fields = parse_stat(line).unwrap();
        assert_eq!((fields.utime, fields.stime, fields.start_ticks), (250, 50, 12345));
        assert_eq!((fields.vsize, fields.rss_pages), (104_857_600, 2560));
        assert!(parse_stat("garbage").is_none());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_memory_and_open_files() {
        let stats = ProcessStats::read().unwrap();
        assert!(stats.resident_bytes > 1 << 20 && stats.open_fds >= 3, "{stats:?}");
        assert!(stats.start_time_seconds.unwrap() > 1.6e9);
    }
}
