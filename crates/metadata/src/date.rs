//! Publication dates to ISO 8601.
//!
//! Pages write dates in many forms (RFC 3339, `+0000` offsets, RFC 2822,
//! "July 2, 2012"); chrono parses each known form, and the output keeps
//! what the page said: a date and time with its offset
//! (`2012-07-02T14:30:00-04:00`), a local date and time
//! (`2012-07-02T14:30:00`), or a date (`2012-07-02`).

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, SecondsFormat};

const WITH_OFFSET: &[&str] = &[
    "%Y-%m-%dT%H:%M:%S%z",
    "%Y-%m-%dT%H:%M:%S%.f%z",
    "%Y-%m-%dT%H:%M%z",
    "%Y-%m-%d %H:%M:%S%z",
    "%Y-%m-%d %H:%M:%S %z",
];
const LOCAL: &[&str] = &[
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    // Java's `Date.toString()`, once its zone name is taken out.
    "%a %b %d %H:%M:%S %Y",
];
const DATE: &[&str] = &[
    "%Y-%m-%d",
    "%Y%m%d",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
    "%d %b %Y",
    "%A, %B %d, %Y",
    "%a, %b %d, %Y",
];

/// Years a web page's publication date can plausibly have.
fn plausible(year: i32) -> bool {
    (1970..=2100).contains(&year)
}

/// `s` without a time zone name (an upper-case word of 2 to 5 letters), and
/// whether that name was UTC's.
fn without_zone_name(s: &str) -> (String, bool) {
    let is_zone =
        |w: &&str| (2..=5).contains(&w.len()) && w.chars().all(|c| c.is_ascii_uppercase());
    let mut utc = false;
    let words: Vec<&str> = s
        .split(' ')
        .filter(|w| {
            let zone = is_zone(w);
            utc |= zone && matches!(*w, "UTC" | "GMT");
            !zone
        })
        .collect();
    (words.join(" "), utc)
}

/// `s` with the slashes of a leading `YYYY/MM/DD` made dashes: some CMSs
/// write ISO 8601 with slashes (`2012/07/24T14:41:54+00:00`, `2012/07/24
/// 10:50`), which is otherwise the standard form.
fn dashed(s: &str) -> std::borrow::Cow<'_, str> {
    let b = s.as_bytes();
    let slashed = b.len() >= 10
        && b[4] == b'/'
        && b[7] == b'/'
        && [0, 1, 2, 3, 5, 6, 8, 9]
            .iter()
            .all(|&i| b[i].is_ascii_digit());
    if slashed {
        // The first ten bytes are ASCII, so the rest starts on a character.
        let mut bytes = b.to_vec();
        bytes[4] = b'-';
        bytes[7] = b'-';
        String::from_utf8(bytes).map_or(s.into(), Into::into)
    } else {
        s.into()
    }
}

/// `raw` as an ISO 8601 date or date-time, or `None` if it is not a date
/// in a known form.
pub fn normalize_date(raw: &str) -> Option<String> {
    let s = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let s = dashed(s.trim_end_matches(['.', ',']));
    let s = s.as_ref();
    if s.is_empty() {
        return None;
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return plausible(d.year()).then(|| d.to_rfc3339_opts(SecondsFormat::Secs, true));
    }
    for f in WITH_OFFSET {
        if let Ok(d) = DateTime::parse_from_str(s, f) {
            return plausible(d.year()).then(|| d.to_rfc3339_opts(SecondsFormat::Secs, true));
        }
    }
    if let Ok(d) = DateTime::parse_from_rfc2822(s) {
        return plausible(d.year()).then(|| d.to_rfc3339_opts(SecondsFormat::Secs, true));
    }
    // A zone name ("EDT") is ambiguous and chrono does not parse it: the
    // time is kept as local time, except for the names of UTC.
    let (local, utc) = without_zone_name(s);
    for f in LOCAL {
        if let Ok(d) = NaiveDateTime::parse_from_str(&local, f) {
            let suffix = if utc { "Z" } else { "" };
            return plausible(d.year())
                .then(|| format!("{}{suffix}", d.format("%Y-%m-%dT%H:%M:%S")));
        }
    }
    for f in DATE {
        if let Ok(d) = NaiveDate::parse_from_str(s, f) {
            return plausible(d.year()).then(|| d.format("%Y-%m-%d").to_string());
        }
    }
    // A date-time in a form not listed above still starts with its date.
    let head = s.get(..10)?;
    NaiveDate::parse_from_str(head, "%Y-%m-%d")
        .ok()
        .filter(|d| plausible(d.year()))
        .map(|d| d.format("%Y-%m-%d").to_string())
}

#[cfg(test)]
mod tests {
    use super::normalize_date as n;

    #[test]
    fn known_forms_become_iso_8601() {
        assert_eq!(n("2012-07-02T14:30:00Z").unwrap(), "2012-07-02T14:30:00Z");
        assert_eq!(
            n("2012-07-02T14:30:00.123-04:00").unwrap(),
            "2012-07-02T14:30:00-04:00"
        );
        assert_eq!(
            n("2012-07-02T14:30:00-0400").unwrap(),
            "2012-07-02T14:30:00-04:00"
        );
        assert_eq!(
            n("Mon, 02 Jul 2012 14:30:00 +0000").unwrap(),
            "2012-07-02T14:30:00Z"
        );
        assert_eq!(n("2012-07-02 14:30").unwrap(), "2012-07-02T14:30:00");
        assert_eq!(n("2012/07/24 10:50:16").unwrap(), "2012-07-24T10:50:16");
        assert_eq!(
            n("2012/07/24T14:41:54+00:00").unwrap(),
            "2012-07-24T14:41:54Z"
        );
        assert_eq!(n("2012/07/24").unwrap(), "2012-07-24");
        assert_eq!(n(" 2012-07-02 ").unwrap(), "2012-07-02");
        assert_eq!(n("July 2, 2012").unwrap(), "2012-07-02");
        assert_eq!(n("20120702").unwrap(), "2012-07-02");
        assert_eq!(n("2012-07-02T14:30:00 EDT").unwrap(), "2012-07-02T14:30:00");
        assert_eq!(
            n("Thu Apr 06 01:42:00 EDT 2017").unwrap(),
            "2017-04-06T01:42:00"
        );
        assert_eq!(
            n("2017-04-06 01:42:00 GMT").unwrap(),
            "2017-04-06T01:42:00Z"
        );
    }

    #[test]
    fn non_dates_are_none() {
        assert_eq!(n(""), None);
        assert_eq!(n("yesterday"), None);
        assert_eq!(n("2012-13-45"), None);
        assert_eq!(n("0001-01-01T00:00:00Z"), None);
    }
}
