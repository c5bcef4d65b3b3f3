//! The one progress-bar builder: every long command shows the same bar on stderr (indicatif
//! hides it when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `total` items named `unit` ("runs", "answers", ...), with `prefix` in front
/// (empty for none). `total = 0` leaves the length to be set later.
pub fn bar(total: u64, unit: &str, prefix: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    // The template is a constant, so it always parses; the fallback only guards edits.
    let template = format!(
        "{{prefix}}{}[{{elapsed_precise}}] [{{bar:30}}] {{pos}}/{{len}} {unit} (eta {{eta}})",
        if prefix.is_empty() { "" } else { " " }
    );
    let style = ProgressStyle::with_template(&template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(prefix.to_string());
    bar
}

#[cfg(test)]
mod tests {
    #[test]
    fn bar_counts_and_keeps_its_prefix() {
        let b = super::bar(7, "runs", "lookup-length");
        b.inc(3);
        assert_eq!((b.position(), b.length()), (3, Some(7)));
        assert_eq!(b.prefix(), "lookup-length");
    }
}
