//! What `/proc` says about a server process: CPU time (utime + stime of
//! `/proc/<pid>/stat`) and memory (`VmRSS`, `VmHWM` of `/proc/<pid>/status`).

use std::time::Duration;

/// Clock ticks per second of `/proc/<pid>/stat` times. Linux reports them
/// in USER_HZ, which is 100 on every architecture it ships for.
const TICKS_PER_SECOND: u64 = 100;

/// One reading of a process's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sample {
    /// User plus system CPU time so far.
    pub cpu: Duration,
    /// Resident memory now, in KiB.
    pub rss_kib: u64,
    /// Peak resident memory so far, in KiB.
    pub hwm_kib: u64,
}

/// Reads the counters of process `pid` (zeros when it is gone).
pub fn sample(pid: u32) -> Sample {
    let cpu = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| cpu_ticks(&stat))
        .map_or(Duration::ZERO, |ticks| {
            Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND)
        });
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    Sample {
        cpu,
        rss_kib: status_kib(&status, "VmRSS:").unwrap_or(0),
        hwm_kib: status_kib(&status, "VmHWM:").unwrap_or(0),
    }
}

/// utime + stime (fields 14 and 15) of a `/proc/<pid>/stat` line. The
/// command name (field 2) may hold spaces, so fields count from its `)`.
fn cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = after_name.split_whitespace();
    // After the name come field 3 (state) onwards: utime is field 14.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// The KiB figure of one `Name:   123 kB` line of `/proc/<pid>/status`.
fn status_kib(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with(name))?;
    line.get(name.len()..)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_reads_utime_and_stime_after_a_name_with_spaces() {
        let stat = "42 (a b) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 5 0";
        assert_eq!(cpu_ticks(stat), Some(10));
    }

    #[test]
    fn our_own_process_has_memory_and_cpu() {
        let mine = sample(std::process::id());
        assert!(mine.rss_kib > 0 && mine.hwm_kib >= mine.rss_kib, "{mine:?}");
    }

    #[test]
    fn status_kib_reads_the_named_line() {
        let status = "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(status_kib(status, "VmRSS:"), Some(1024));
        assert_eq!(status_kib(status, "VmHWM:"), Some(2048));
        assert_eq!(status_kib(status, "VmSwap:"), None);
    }
}
