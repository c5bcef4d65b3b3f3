//! The one progress helper: every long command reports on stderr through [`bar`] or
//! [`work_bar`]. On a terminal it is an indicatif bar; off a terminal (nohup, Slurm logs, pipes)
//! it writes a plain line every few seconds with done/total, elapsed time and ETA, so a log
//! shows where a long run is. Work that ends before the first interval prints nothing.
//!
//! ETAs: [`bar`] counts items and assumes they cost the same; [`work_bar`] ([`WorkBar`]) counts
//! items but advances its ETA by each item's *expected work* (a dataset through 17 estimators
//! against one through 3; tre, which trains, beside posdis, which counts), and by the progress a
//! running item reports, so a panel whose cheap datasets come first no longer says "eta 2
//! seconds" a minute before it ends.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

/// Writes one line (`text` and a newline) on stderr, control characters other than newlines
/// and tabs escaped. A failed write is ignored: stderr is where kcomp would report it, and
/// `eprintln!` would panic instead.
pub fn note(text: &str) {
    let mut err = std::io::stderr().lock();
    let text = crate::io::names::terminal_text(text);
    let _ = err
        .write_all(text.as_bytes())
        .and_then(|()| err.write_all(b"\n"));
}

/// Seconds between two progress lines when stderr is not a terminal (default 5; the
/// environment variable `KCOMP_PROGRESS_SECONDS` changes it).
pub const LOG_INTERVAL_SECONDS: u64 = 5;

/// A bar over `total` items named `unit` ("runs", "answers", ...), with `prefix` in front
/// (empty for none). `total = 0` leaves the length to be set later. A message set on the bar
/// (`set_message`) follows the counts.
pub fn bar(total: u64, unit: &str, prefix: &str) -> ProgressBar {
    if std::io::stderr().is_terminal() {
        return terminal_bar(total, unit, prefix);
    }
    let seconds = log_interval_seconds();
    log_bar(
        total,
        unit,
        prefix,
        Box::new(std::io::stderr()),
        Duration::from_secs(seconds),
    )
}

fn terminal_bar(total: u64, unit: &str, prefix: &str) -> ProgressBar {
    terminal_bar_with(total, unit, prefix, None)
}

fn terminal_bar_with(total: u64, unit: &str, prefix: &str, ledger: Option<&Ledger>) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let template = format!(
        "{{prefix}}{}[{{elapsed_precise}}] [{{bar:30}}] {{pos}}/{{len}} {unit} (eta {{eta}}) {{msg}}",
        if prefix.is_empty() { "" } else { " " }
    );
    // The template is a constant, so it always parses; the fallback only guards edits.
    let style = with_eta(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
        ledger,
    )
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(prefix.to_string());
    bar
}

/// The remaining time at the mean rate since the start: elapsed x (total - done) / done.
/// indicatif's own `{eta}` follows a recent-rate estimate that decays while a slow item runs,
/// so a panel whose fast datasets finish first printed ETAs of years; the mean rate stays
/// within the range the run has shown. Unknown ("?") before the first item is done.
fn mean_rate_eta(state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write) {
    let _ = match remaining_at_mean_rate(state.elapsed(), state.pos(), state.len()) {
        Some(left) => write!(out, "{}", indicatif::HumanDuration(left)),
        None => out.write_str("?"),
    };
}

fn remaining_at_mean_rate(elapsed: Duration, done: u64, total: Option<u64>) -> Option<Duration> {
    let total = total?;
    if done == 0 || done > total {
        return None;
    }
    Some(elapsed.mul_f64((total - done) as f64 / done as f64))
}

/// The remaining time when `done` of `total` units of expected work took `elapsed`:
/// elapsed x (total - done) / done. Unknown before any work is done.
pub fn remaining_by_work(elapsed: Duration, done: f64, total: f64) -> Option<Duration> {
    if !(done > 0.0 && total.is_finite() && done.is_finite()) {
        return None;
    }
    let left = (total - done).max(0.0);
    Some(elapsed.mul_f64(left / done))
}

/// `style` with the `{eta}` key: by work when a ledger is given and holds work, else by count.
fn with_eta(style: ProgressStyle, ledger: Option<&Ledger>) -> ProgressStyle {
    let Some(ledger) = ledger.cloned() else {
        return style.with_key("eta", mean_rate_eta);
    };
    style.with_key(
        "eta",
        move |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
            let left = match ledger.done_and_total() {
                Some((done, total)) => remaining_by_work(state.elapsed(), done, total),
                None => remaining_at_mean_rate(state.elapsed(), state.pos(), state.len()),
            };
            let _ = match left {
                Some(left) => write!(out, "{}", indicatif::HumanDuration(left)),
                None => out.write_str("?"),
            };
        },
    )
}

/// Expected work of a bar's items: the total, the work of finished items, and the items
/// running now with the bar each reports its own progress on.
#[derive(Clone, Default)]
struct Ledger(Arc<Mutex<LedgerState>>);

#[derive(Default)]
struct LedgerState {
    total: f64,
    done: f64,
    running: Vec<(u64, f64, ProgressBar)>,
    next_id: u64,
}

impl Ledger {
    /// (work done, counting the reported fraction of running items; total), or `None` when no
    /// work was declared (the bar then counts items).
    fn done_and_total(&self) -> Option<(f64, f64)> {
        let s = lock(&self.0);
        if s.total <= 0.0 {
            return None;
        }
        let running: f64 = s
            .running
            .iter()
            .map(|(_, work, inner)| work * fraction(inner))
            .sum();
        Some((s.done + running, s.total))
    }
}

/// The fraction of its work a running item reports through its own bar (0 when it reports
/// none).
fn fraction(inner: &ProgressBar) -> f64 {
    match inner.length() {
        Some(len) if len > 0 => (inner.position() as f64 / len as f64).clamp(0.0, 1.0),
        _ => 0.0,
    }
}

/// A bar over items of unequal expected work (see the module's documentation): it shows items
/// done / total and bases its ETA on work. It derefs to its indicatif bar for messages,
/// prefixes and `finish_and_clear`.
#[derive(Clone)]
pub struct WorkBar {
    bar: ProgressBar,
    ledger: Ledger,
}

impl std::ops::Deref for WorkBar {
    type Target = ProgressBar;
    fn deref(&self) -> &ProgressBar {
        &self.bar
    }
}

/// A running item of a [`WorkBar`]: its own hidden bar takes the item's progress (an
/// estimator's chunks or learners), which moves the outer ETA without touching its counts.
pub struct Item<'a> {
    owner: &'a WorkBar,
    id: u64,
    work: f64,
    inner: ProgressBar,
}

impl Item<'_> {
    /// The bar the item reports its own progress on (position / length = its fraction done).
    pub fn progress(&self) -> &ProgressBar {
        &self.inner
    }

    /// Marks the item done: one more item, its whole work done.
    pub fn finish(self) {}
}

impl Drop for Item<'_> {
    fn drop(&mut self) {
        let mut s = lock(&self.owner.ledger.0);
        s.running.retain(|r| r.0 != self.id);
        s.done += self.work;
        drop(s);
        self.owner.bar.inc(1);
    }
}

impl WorkBar {
    /// A bar that draws nothing (callers that read results, not a terminal).
    pub fn hidden() -> Self {
        WorkBar {
            bar: ProgressBar::hidden(),
            ledger: Ledger::default(),
        }
    }

    /// The indicatif bar (for code that takes a plain bar).
    pub fn progress_bar(&self) -> &ProgressBar {
        &self.bar
    }

    /// Adds `work` to the expected total (callers declare the work of every item they will
    /// run, in any unit: only ratios matter).
    pub fn add_work(&self, work: f64) {
        if work.is_finite() && work > 0.0 {
            lock(&self.ledger.0).total += work;
        }
    }

    /// One item of expected `work` finished.
    pub fn finish_item(&self, work: f64) {
        if work.is_finite() && work > 0.0 {
            lock(&self.ledger.0).done += work;
        }
        self.bar.inc(1);
    }

    /// One item skipped (read back from a saved run): counted, its work taken out of the
    /// total, so that the ETA is not based on items that took no time.
    pub fn skip_item(&self, work: f64) {
        if work.is_finite() && work > 0.0 {
            lock(&self.ledger.0).total -= work;
        }
        self.bar.inc(1);
    }

    /// Starts an item of expected `work`; it is finished when the returned [`Item`] drops.
    pub fn start_item(&self, work: f64) -> Item<'_> {
        let inner = ProgressBar::hidden();
        let work = if work.is_finite() && work > 0.0 {
            work
        } else {
            0.0
        };
        let mut s = lock(&self.ledger.0);
        let id = s.next_id;
        s.next_id += 1;
        s.running.push((id, work, inner.clone()));
        drop(s);
        Item {
            owner: self,
            id,
            work,
            inner,
        }
    }
}

/// A [`WorkBar`] over `total` items named `unit`, with `prefix` in front (see [`bar`]).
pub fn work_bar(total: u64, unit: &str, prefix: &str) -> WorkBar {
    let ledger = Ledger::default();
    let bar = if std::io::stderr().is_terminal() {
        terminal_bar_with(total, unit, prefix, Some(&ledger))
    } else {
        log_bar_with(
            total,
            unit,
            prefix,
            Box::new(std::io::stderr()),
            Duration::from_secs(log_interval_seconds()),
            Some(&ledger),
        )
    };
    WorkBar { bar, ledger }
}

fn log_interval_seconds() -> u64 {
    std::env::var("KCOMP_PROGRESS_SECONDS")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(LOG_INTERVAL_SECONDS)
}

/// A bar that writes one plain line to `sink` at most every `interval` (and none before the
/// first interval has passed), redrawn by a steady tick so a long step without progress still
/// reports its elapsed time.
fn log_bar(
    total: u64,
    unit: &str,
    prefix: &str,
    sink: Box<dyn Write + Send>,
    interval: Duration,
) -> ProgressBar {
    log_bar_with(total, unit, prefix, sink, interval, None)
}

fn log_bar_with(
    total: u64,
    unit: &str,
    prefix: &str,
    sink: Box<dyn Write + Send>,
    interval: Duration,
    ledger: Option<&Ledger>,
) -> ProgressBar {
    let template = format!(
        "{{prefix}}{}{{pos}}/{{len}} {unit} done, {{elapsed}} elapsed, eta {{eta}} {{msg}}",
        if prefix.trim().is_empty() { "" } else { ": " }
    );
    let style = with_eta(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
        ledger,
    );
    let log = LineLog {
        sink: Mutex::new(sink),
        pending: Mutex::new(String::new()),
        last: Mutex::new(Instant::now()),
        interval,
    };
    let bar = ProgressBar::with_draw_target(
        Some(total),
        ProgressDrawTarget::term_like_with_hz(Box::new(log), 1),
    );
    bar.set_style(style);
    bar.set_prefix(prefix.trim().to_string());
    if !interval.is_zero() {
        bar.enable_steady_tick(interval);
    }
    bar
}

/// indicatif's terminal interface turned into a log: cursor moves and clears are ignored, each
/// drawn frame becomes one line, written when `interval` has passed since the last one.
struct LineLog {
    sink: Mutex<Box<dyn Write + Send>>,
    pending: Mutex<String>,
    last: Mutex<Instant>,
    interval: Duration,
}

impl std::fmt::Debug for LineLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineLog")
            .field("interval", &self.interval)
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves plain data; keep reporting.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl TermLike for LineLog {
    fn width(&self) -> u16 {
        // Wide enough that indicatif never wraps or truncates a line.
        400
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write_str(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        lock(&self.pending).push_str(s);
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        let line = std::mem::take(&mut *lock(&self.pending));
        let line = line.trim();
        if line.is_empty() {
            return Ok(());
        }
        let mut last = lock(&self.last);
        // 9/10 of the interval: the steady tick fires about every interval, a little late or
        // early, and must not skip every other line.
        if last.elapsed() < self.interval.mul_f64(0.9) {
            return Ok(());
        }
        *last = Instant::now();
        let mut sink = lock(&self.sink);
        writeln!(sink, "{line}")?;
        sink.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn bar_counts_and_keeps_its_prefix() {
        let b = super::bar(7, "runs", "lookup-length");
        b.inc(3);
        assert_eq!((b.position(), b.length()), (3, Some(7)));
        assert_eq!(b.prefix(), "lookup-length");
    }

    /// A sink the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            lock(&self.0).extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn off_a_terminal_lines_say_done_total_and_eta() {
        let sink = Shared::default();
        let b = log_bar(7, "runs", "  sweep", Box::new(sink.clone()), Duration::ZERO);
        b.set_position(3);
        b.finish();
        let text = String::from_utf8(lock(&sink.0).clone()).unwrap();
        let last = text.lines().last().unwrap_or_default();
        assert!(last.starts_with("sweep: 7/7 runs done, "), "{text}");
        assert!(last.contains(" elapsed, eta "), "{text}");
        // No bar characters or escape codes in a log.
        assert!(!text.contains('\u{1b}') && !text.contains("=>"), "{text}");
    }

    #[test]
    fn eta_follows_the_mean_rate_since_the_start() {
        let e = Duration::from_secs(300);
        assert_eq!(
            remaining_at_mean_rate(e, 45, Some(90)),
            Some(Duration::from_secs(300))
        );
        assert_eq!(
            remaining_at_mean_rate(e, 60, Some(90)),
            Some(Duration::from_secs(150))
        );
        assert_eq!(
            remaining_at_mean_rate(e, 90, Some(90)),
            Some(Duration::ZERO)
        );
        // Nothing done, no length, or more done than the length: unknown.
        assert_eq!(remaining_at_mean_rate(e, 0, Some(90)), None);
        assert_eq!(remaining_at_mean_rate(e, 5, None), None);
        assert_eq!(remaining_at_mean_rate(e, 91, Some(90)), None);
    }

    #[test]
    fn off_a_terminal_short_work_prints_nothing() {
        let sink = Shared::default();
        let b = log_bar(
            4,
            "runs",
            "",
            Box::new(sink.clone()),
            Duration::from_secs(3600),
        );
        b.inc(4);
        b.finish();
        assert!(lock(&sink.0).is_empty());
    }

    #[test]
    fn a_work_bar_counts_items_and_weighs_their_work() {
        let b = WorkBar::hidden();
        b.set_length(4);
        b.add_work(10.0);
        // Nothing declared done yet.
        assert_eq!(b.ledger.done_and_total(), Some((0.0, 10.0)));
        b.finish_item(1.0);
        {
            // A running item of 6 units reports half its own progress.
            let item = b.start_item(6.0);
            item.progress().set_length(4);
            item.progress().set_position(2);
            assert_eq!(b.ledger.done_and_total(), Some((4.0, 10.0)));
        }
        assert_eq!(b.ledger.done_and_total(), Some((7.0, 10.0)));
        // A resumed item leaves the total; counts still advance.
        b.skip_item(3.0);
        assert_eq!(b.ledger.done_and_total(), Some((7.0, 7.0)));
        assert_eq!(b.position(), 3);
        // Without declared work, the bar's ETA counts items.
        assert_eq!(WorkBar::hidden().ledger.done_and_total(), None);
    }
}
