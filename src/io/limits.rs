//! Resource limits checked before anything large is allocated or started.
//!
//! Every generator, loader and model configuration estimates the memory its run needs from its
//! parameters (or from file headers and sizes) and calls [`check_memory`] before allocating; a
//! run above the limit is refused with one line naming the parameter and the estimate. The
//! limit defaults to half the machine's physical memory and is changed by `--max-memory`
//! (process-wide, through [`set_max_memory`]).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{KcompError, Result};

/// 0 = not set: half the physical memory.
static MAX_MEMORY: AtomicU64 = AtomicU64::new(0);

/// Fallback when the physical memory cannot be read (no /proc, no sysconf).
const FALLBACK_PHYSICAL: u64 = 8 << 30;

/// Largest input file read whole (answers, configs, CSV/JSONL tables).
pub const MAX_TEXT_FILE_BYTES: u64 = 256 << 20;

/// Worker threads allowed per available core.
pub const THREADS_PER_CORE: usize = 4;

/// Physical memory in bytes (sysconf, else /proc/meminfo, else 8 GiB).
pub fn physical_memory() -> u64 {
    // SAFETY: sysconf has no preconditions; it returns -1 for unknown names.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages > 0 && page > 0 {
        return (pages as u64).saturating_mul(page as u64);
    }
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(FALLBACK_PHYSICAL)
}

/// Environment variable giving the memory limit where no `--max-memory` is given (every
/// command, including those without the option, e.g. `compare`).
pub const MAX_MEMORY_ENV: &str = "KCOMP_MAX_MEMORY";

/// The limit `KCOMP_MAX_MEMORY` sets, read once: `None` when unset, an error when it is not
/// a size (then every estimate is refused with that error: fail closed).
fn env_max_memory() -> Option<&'static std::result::Result<u64, String>> {
    static ENV: std::sync::OnceLock<Option<std::result::Result<u64, String>>> =
        std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        let v = std::env::var_os(MAX_MEMORY_ENV)?;
        Some(match v.to_str() {
            Some(t) => parse_size(t).map_err(|e| format!("{MAX_MEMORY_ENV}: {e}")),
            None => Err(format!("{MAX_MEMORY_ENV} is not UTF-8")),
        })
    })
    .as_ref()
}

/// The memory limit in bytes: `--max-memory`, else `KCOMP_MAX_MEMORY`, else half the
/// physical memory. (An invalid `KCOMP_MAX_MEMORY` counts as 1 byte here; [`over_limit`]
/// names the error.)
pub fn max_memory() -> u64 {
    match MAX_MEMORY.load(Ordering::Relaxed) {
        0 => match env_max_memory() {
            Some(Ok(n)) => *n,
            Some(Err(_)) => 1,
            None => physical_memory() / 2,
        },
        n => n,
    }
}

/// Sets the process-wide memory limit (bytes, > 0).
pub fn set_max_memory(bytes: u64) {
    MAX_MEMORY.store(bytes.max(1), Ordering::Relaxed);
}

/// Parses a size such as `512M`, `8G`, `1.5GiB`, `1000000` (bytes); binary multiples.
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let bad = || {
        KcompError::param(
            "max_memory",
            format!("`{text}` is not a size (e.g. 512M, 8G, 1000000)"),
        )
    };
    let value: f64 = num.trim().parse().map_err(|_| bad())?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(bad()),
    };
    let bytes = value * mult as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < 2f64.powi(63)) {
        return Err(KcompError::param(
            "max_memory",
            format!("must be between 1 byte and 8 EiB, got `{text}`"),
        ));
    }
    Ok(bytes as u64)
}

/// [`parse_size`] as a clap value parser (`--max-memory`).
pub fn parse_max_memory(text: &str) -> std::result::Result<u64, String> {
    parse_size(text).map_err(|e| e.to_string())
}

/// Applies `--max-memory` and `--threads` (the global thread pool) for the whole process.
pub fn configure(threads: Option<usize>, max_memory: Option<u64>) -> Result<()> {
    if let Some(bytes) = max_memory {
        set_max_memory(bytes);
    }
    if let Some(n) = threads {
        check_threads("threads", n, false)?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| KcompError::Other(format!("configuring the thread pool: {e}")))?;
    }
    Ok(())
}

/// A byte count for messages: `12.0 GiB`.
pub fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if v >= 1e6 {
        format!("{bytes:.3e} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Refuses an estimate above the limit. `estimate` is in bytes, computed in `f64` so that
/// absurd parameters cannot overflow the estimate itself.
pub fn check_memory(name: &str, what: &str, estimate: f64) -> Result<()> {
    match over_limit(what, estimate) {
        Some(reason) => Err(KcompError::param(name, reason)),
        None => Ok(()),
    }
}

/// Why `estimate` bytes are refused, or `None` when they fit under the limit.
pub fn over_limit(what: &str, estimate: f64) -> Option<String> {
    if MAX_MEMORY.load(Ordering::Relaxed) == 0
        && let Some(Err(e)) = env_max_memory()
    {
        return Some(e.clone());
    }
    let limit = max_memory();
    (!(estimate.is_finite() && estimate <= limit as f64)).then(|| {
        format!(
            "{what} needs about {} of memory, above the limit of {} (half the physical \
             memory by default; raise it with --max-memory or {MAX_MEMORY_ENV})",
            human_bytes(estimate),
            human_bytes(limit as f64)
        )
    })
}

/// The largest thread count accepted: [`THREADS_PER_CORE`] x the available cores.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    cores * THREADS_PER_CORE
}

/// Checks a thread count (`0` allowed when it means "all cores").
pub fn check_threads(name: &str, threads: usize, zero_means_all: bool) -> Result<()> {
    if threads == 0 && !zero_means_all {
        return Err(KcompError::param(name, "must be at least 1"));
    }
    let max = max_threads();
    if threads > max {
        return Err(KcompError::param(
            name,
            format!(
                "{threads} threads is more than {THREADS_PER_CORE} x the {} available cores ({max})",
                max / THREADS_PER_CORE
            ),
        ));
    }
    Ok(())
}

// Regular-file checks and capped reads live in `io::files`; re-exported for the callers here.
pub use crate::io::files::{read_capped, regular_file_size};

/// Reads a UTF-8 text file of at most [`MAX_TEXT_FILE_BYTES`].
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = read_capped(path, MAX_TEXT_FILE_BYTES)?;
    String::from_utf8(bytes).map_err(|e| {
        KcompError::file(
            path,
            format!("is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

/// Reads a text file of at most [`MAX_TEXT_FILE_BYTES`], replacing invalid UTF-8.
pub fn read_text_lossy(path: &Path) -> Result<String> {
    let bytes = read_capped(path, MAX_TEXT_FILE_BYTES)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("1000").unwrap(), 1000);
        assert_eq!(parse_size("512M").unwrap(), 512 << 20);
        assert_eq!(parse_size("8G").unwrap(), 8 << 30);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        for bad in ["", "x", "-1G", "NaN", "inf", "1e30G", "0", "5Q"] {
            let e = parse_size(bad).unwrap_err().to_string();
            assert!(e.contains("max_memory"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_clap_parser_gives_the_message() {
        assert_eq!(parse_max_memory("4G"), Ok(4 << 30));
        let e = parse_max_memory("12Q").unwrap_err();
        assert!(
            e.starts_with("invalid parameter `max_memory`: `12Q`"),
            "{e}"
        );
    }

    #[test]
    fn physical_memory_is_plausible() {
        let m = physical_memory();
        assert!(m > (64 << 20), "{m}");
        assert!(max_memory() > 0);
    }

    #[test]
    fn estimates_above_the_limit_name_the_parameter() {
        assert!(check_memory("samples", "the data", 1024.0).is_ok());
        let e = check_memory("samples", "the data", 1e18)
            .unwrap_err()
            .to_string();
        assert!(e.contains("samples") && e.contains("max-memory"), "{e}");
        assert!(check_memory("dim", "x", f64::INFINITY).is_err());
        assert!(check_memory("dim", "x", f64::NAN).is_err());
    }

    #[test]
    fn threads_are_capped() {
        assert!(check_threads("threads", 1, false).is_ok());
        assert!(check_threads("threads", 0, true).is_ok());
        assert!(check_threads("threads", 0, false).is_err());
        let e = check_threads("threads", 100_000, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("threads") && e.contains("cores"), "{e}");
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            read_text(dir.path())
                .unwrap_err()
                .to_string()
                .contains("directory")
        );
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(
            read_text(&fifo)
                .unwrap_err()
                .to_string()
                .contains("regular file")
        );
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "hello").unwrap();
        assert_eq!(read_text(&f).unwrap(), "hello");
        assert!(read_capped(&f, 3).is_err());
        assert!(read_text(&dir.path().join("missing")).is_err());
    }
}
