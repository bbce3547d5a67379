//! The progress bars on stderr (hidden when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar in bytes, with the rate and the time left.
pub fn bytes_bar(what: &str) -> ProgressBar {
    styled(
        ProgressBar::new(0),
        &format!(
            "{{spinner}} {what} [{{bar:30}}] {{bytes}}/{{total_bytes}} {{bytes_per_sec}} ETA {{eta}} {{wide_msg}}"
        ),
    )
}

/// Pages extracted, of all the partition found, with the time left
/// (its length is set once the partition is done).
pub fn pages_bar() -> ProgressBar {
    styled(
        ProgressBar::new(0),
        "{spinner} pages [{bar:30}] {pos}/{len} ETA {eta} {wide_msg}",
    )
}

/// Pages extracted, and the time taken, where their number is not known ahead
/// (one bucket of a scale-out partition).
pub fn pages_counter() -> ProgressBar {
    styled(
        ProgressBar::new_spinner(),
        "{spinner} pages {pos} in {elapsed} {wide_msg}",
    )
}

fn styled(bar: ProgressBar, template: &str) -> ProgressBar {
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// A library note on stderr, as the command's own lines are.
pub fn note(text: &str) {
    eprintln!("canopy: {text}");
}
