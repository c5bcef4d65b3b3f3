//! Host ids of a root kcomp's samples: every running sample gets a uid (= gid) of its own,
//! so nothing the kernel counts per uid (pending signals, processes under RLIMIT_NPROC,
//! user namespaces, inotify instances, locked memory) is shared with another sample, with
//! the host's `nobody` processes or with any other user.
//!
//! The ids come from a reserved range (`KCOMP_SANDBOX_IDS=FIRST-LAST`, else the first of
//! [`DEFAULT_RANGES`] that the current user namespace maps): the first is unused by the
//! conventions of Linux distributions (systemd's table of uid ranges), the second is for
//! containers that map only 65,536 ids. A worker thread leases one id for the samples it
//! runs one after another (a sample's processes are all gone before the next starts: it is
//! pid 1 of its own PID namespace). A lease is an abstract unix socket named after the id,
//! bound for as long as the lease lives: two kcomp processes (or threads) never hold one id
//! at once, and the kernel releases it when kcomp dies, even by kill -9.
//!
//! Hand-written: no crate allocates ids across processes without files or a daemon.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// Candidate ranges (first id, count), tried in this order.
pub const DEFAULT_RANGES: [(u32, u32); 2] = [(2_100_000_000, 4096), (60_578, 606)];

/// The environment variable that sets the range (`FIRST-LAST`, inclusive).
pub const IDS_VAR: &str = "KCOMP_SANDBOX_IDS";

/// An id leased for one worker's samples; released when dropped.
#[derive(Debug)]
pub struct Lease {
    pub id: u32,
    _claim: UnixDatagram,
}

/// The range in use: (first id, count).
fn range() -> Result<(u32, u32), String> {
    static RANGE: OnceLock<Result<(u32, u32), String>> = OnceLock::new();
    RANGE
        .get_or_init(|| {
            let maps = [
                std::fs::read_to_string("/proc/self/uid_map"),
                std::fs::read_to_string("/proc/self/gid_map"),
            ];
            let mapped = |first: u32, count: u32| {
                maps.iter().all(|m| match m {
                    Ok(text) => covers(text, first, count),
                    Err(_) => false,
                })
            };
            if let Ok(text) = std::env::var(IDS_VAR) {
                let (first, count) = parse_range(&text)?;
                if !mapped(first, count) {
                    return Err(format!(
                        "{IDS_VAR}={text}: the ids are not all mapped in this user namespace"
                    ));
                }
                return Ok((first, count));
            }
            DEFAULT_RANGES
                .into_iter()
                .find(|&(first, count)| mapped(first, count))
                .ok_or_else(|| {
                    format!(
                        "no id range for the samples is mapped in this user namespace; set \
                         {IDS_VAR}=FIRST-LAST to ids no one else uses"
                    )
                })
        })
        .clone()
}

/// `FIRST-LAST`: unprivileged ids (not 0, not 65534/65535 or 2^32-1), at most 2^20.
pub fn parse_range(text: &str) -> Result<(u32, u32), String> {
    let bad = |why: &str| format!("{IDS_VAR}={text}: {why}");
    let (a, b) = text
        .split_once('-')
        .ok_or_else(|| bad("expected FIRST-LAST"))?;
    let first: u32 = a.trim().parse().map_err(|_| bad("FIRST is not an id"))?;
    let last: u32 = b.trim().parse().map_err(|_| bad("LAST is not an id"))?;
    if first == 0 || last < first || last >= u32::MAX - 1 {
        return Err(bad("need 0 < FIRST <= LAST < 4294967294"));
    }
    if (first..=last).contains(&65534) || (first..=last).contains(&65535) {
        return Err(bad("the range holds 65534 (nobody) or 65535"));
    }
    let count = last - first + 1;
    if count > 1 << 20 {
        return Err(bad("at most 1048576 ids"));
    }
    Ok((first, count))
}

/// Whether the extents of a uid_map/gid_map text cover `first .. first + count`.
fn covers(map: &str, first: u32, count: u32) -> bool {
    let end = u64::from(first) + u64::from(count);
    map.lines().any(|line| {
        let f: Vec<u64> = line
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        f.len() == 3 && f[0] <= u64::from(first) && end <= f[0] + f[2]
    })
}

/// Leases a free id of the range.
pub fn lease() -> Result<Lease, String> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let (first, count) = range()?;
    // Start each search elsewhere, so concurrent kcomp processes rarely probe the same ids.
    let start = (std::process::id()
        .wrapping_mul(2_654_435_761)
        .wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed)))
        % count;
    for k in 0..count {
        let id = first + (start + k) % count;
        let name = format!("kcomp-sandbox-id-{id}");
        let addr = SocketAddr::from_abstract_name(name.as_bytes())
            .map_err(|e| format!("abstract socket name: {e}"))?;
        match UnixDatagram::bind_addr(&addr) {
            Ok(claim) => return Ok(Lease { id, _claim: claim }),
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => continue,
            Err(e) => return Err(format!("cannot lease a sample id: {e}")),
        }
    }
    Err(format!(
        "all {count} sample ids from {first} are in use by running kcomp processes"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_maps() {
        assert_eq!(parse_range("100000-100099"), Ok((100_000, 100)));
        for bad in ["0-10", "10-5", "1-70000", "x-1", "5", "1-4294967295"] {
            assert!(parse_range(bad).is_err(), "{bad}");
        }
        let full = "         0          0 4294967295\n";
        assert!(covers(full, 2_100_000_000, 4096));
        let small = "0 100000 65536\n";
        assert!(!covers(small, 2_100_000_000, 4096));
        assert!(covers(small, 60_578, 606));
        assert!(!covers(small, 65_000, 606));
    }

    #[test]
    fn leases_are_exclusive_until_dropped() {
        if range().is_err() {
            eprintln!("SKIPPED: no sample id range is mapped here");
            return;
        }
        let leases: Vec<Lease> = (0..8).map(|_| lease().unwrap()).collect();
        let mut ids: Vec<u32> = leases.iter().map(|l| l.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 8);
        let taken = leases[0].id;
        let name = format!("kcomp-sandbox-id-{taken}");
        let addr = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        assert!(UnixDatagram::bind_addr(&addr).is_err());
        drop(leases);
        assert!(UnixDatagram::bind_addr(&addr).is_ok());
    }
}
