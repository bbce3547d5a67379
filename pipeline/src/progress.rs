//! The progress bars on stderr (hidden when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn counting_bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(&format!(
        "{{spinner}} {what} [{{bar:30}}] {{pos}}/{{len}} {{wide_msg}}"
    )) {
        bar.set_style(style);
    }
    bar
}

/// A progress bar in bytes, with the rate and the time left, on stderr
/// (hidden when stderr is not a terminal).
pub fn bytes_bar(what: &str) -> ProgressBar {
    let bar = ProgressBar::new(0);
    if let Ok(style) = ProgressStyle::with_template(&format!(
        "{{spinner}} {what} [{{bar:30}}] {{bytes}}/{{total_bytes}} {{bytes_per_sec}} ETA {{eta}} {{wide_msg}}"
    )) {
        bar.set_style(style);
    }
    bar
}

/// Sites extracted, of those found so far.
pub fn sites_bar() -> ProgressBar {
    counting_bar(0, "sites")
}

/// A library note on stderr, as the command's own lines are.
pub fn note(text: &str) {
    eprintln!("canopy: {text}");
}
