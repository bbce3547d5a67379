//! A per-page time budget that long-running loops check cooperatively.
//!
//! Rust cannot stop a thread from outside, so a page's work stops itself:
//! loops whose cost depends on the page (the DOM builder, per node) ask
//! [`Deadline::expired`] every so often and give up when it says so. The
//! check reads the monotonic clock, so callers space it out (every
//! [`Deadline::CHECK_EVERY`] units of work).

use std::time::{Duration, Instant};

/// When a page's processing must end; [`Deadline::none`] never ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Option<Instant>,
}

impl Deadline {
    /// How many units of work (nodes) pass between two clock reads.
    pub const CHECK_EVERY: u32 = 1024;

    /// No budget: never expires.
    pub fn none() -> Deadline {
        Deadline { at: None }
    }

    /// Expires `budget` from now; `None` means no budget.
    pub fn after(budget: Option<Duration>) -> Deadline {
        Deadline {
            at: budget.and_then(|b| Instant::now().checked_add(b)),
        }
    }

    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// The time left (`None` without a budget), zero once expired.
    pub fn remaining(&self) -> Option<Duration> {
        self.at
            .map(|at| at.saturating_duration_since(Instant::now()))
    }
}

/// A parse stopped by its [`Deadline`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    /// Input bytes parsed when it stopped.
    pub bytes_parsed: usize,
    /// Nodes built by then.
    pub nodes: usize,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "time budget exceeded while parsing ({} bytes parsed, {} nodes built)",
            self.bytes_parsed, self.nodes
        )
    }
}

impl std::error::Error for OverBudget {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_budget_never_expires_and_a_zero_budget_has_expired() {
        assert!(!Deadline::none().expired());
        assert!(!Deadline::after(None).expired());
        assert_eq!(Deadline::none().remaining(), None);
        assert!(Deadline::after(Some(Duration::ZERO)).expired());
        let long = Deadline::after(Some(Duration::from_secs(3600)));
        assert!(!long.expired());
        assert!(long.remaining().unwrap() > Duration::from_secs(3000));
    }
}
