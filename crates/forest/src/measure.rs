//! Forest's measures of a node's informativeness (forest.md §3.3, §3.5).
//!
//! `x` and `y` are the numbers of signifier and other terms in a node's
//! text (with multiplicity); `big_x` and `big_y` the same for the whole page.
//! Logarithms are natural: that is what reproduces the paper's worked numbers
//! (U = 23 and 6 "bits" in §3.3 are nats).

/// Jeffrey's statistical density, eq. (2): the lower end of the ≈70 %
/// interval of eq. (1) around the add-half estimate of the signifier
/// density, floored at 0.
pub fn jeffrey_density(x: f64, y: f64) -> f64 {
    let n = x + y;
    if n <= 0.0 {
        return 0.0;
    }
    let spread = ((x + 0.5) * (y + 0.5) / n).sqrt();
    ((x + 0.5 - spread) / (n + 1.0)).max(0.0)
}

/// Unexpectedness, eq. (3): generation complexity minus description
/// complexity, `(x+y) ln(X+Y) − x ln X − y ln Y`.
pub fn unexpectedness(x: f64, y: f64, big_x: f64, big_y: f64) -> f64 {
    let ln_total = if big_x + big_y > 0.0 {
        (big_x + big_y).ln()
    } else {
        0.0
    };
    let ln_x = if big_x > 0.0 { big_x.ln() } else { 0.0 };
    let ln_y = if big_y > 0.0 { big_y.ln() } else { 0.0 };
    (x + y) * ln_total - x * ln_x - y * ln_y
}

/// Informativeness, eq. (4): `I = J × U`.
pub fn informativeness(x: f64, y: f64, big_x: f64, big_y: f64) -> f64 {
    jeffrey_density(x, y) * unexpectedness(x, y, big_x, big_y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jeffrey_density_matches_the_papers_examples() {
        // §3.3: "when x = 1 and y = 0 we have a J ≈ 0.32".
        assert!((jeffrey_density(1.0, 0.0) - 0.317).abs() < 0.005);
        // §3.3: J(8, 20) "is comparable to" J(3, 5).
        let (a, b) = (jeffrey_density(8.0, 20.0), jeffrey_density(3.0, 5.0));
        assert!((a - b).abs() < 0.02, "{a} vs {b}");
        // Floored at zero, and zero for an empty node.
        assert_eq!(jeffrey_density(0.0, 50.0), 0.0);
        assert_eq!(jeffrey_density(0.0, 0.0), 0.0);
    }

    #[test]
    fn unexpectedness_matches_the_papers_examples() {
        // §3.3: on a page with 20 signifiers and 100 other terms, a node
        // with 10 and 26 has U ≈ 23, a node with 3 and 1 has U ≈ 6.
        assert!((unexpectedness(10.0, 26.0, 20.0, 100.0) - 23.0).abs() < 0.5);
        assert!((unexpectedness(3.0, 1.0, 20.0, 100.0) - 6.0).abs() < 0.5);
        // A node with the page's own proportions but half its size is
        // half as unexpected as the page itself: U is extensive.
        let whole = unexpectedness(20.0, 100.0, 20.0, 100.0);
        let half = unexpectedness(10.0, 50.0, 20.0, 100.0);
        assert!((whole - 2.0 * half).abs() < 1e-9);
    }
}
