//! Dates a page does not mark up: in its URL's path and in its visible
//! text ("Posted by Ann on July 2, 2012"), and the bounds any date found
//! must keep.

use std::sync::LazyLock;

use chrono::{Datelike, NaiveDate};
use regex::{Captures, Regex};

/// Month names read in visible text, by language: English, German, French
/// and Spanish (the languages of the corpora's pages, trafbench's German
/// first among them), full names and the usual abbreviations (an
/// abbreviation may end with a dot); and Russian, Polish and Greek in the
/// genitive that follows a day ("2 июля 2012", "2 lipca 2012",
/// "2 Ιουλίου 2012"; Greek also without its accents, as capitals write
/// it: "2 ΙΟΥΛΙΟΥ 2012"). Names are matched ignoring case.
/// Numeric dates are read in the unambiguous forms only: ISO
/// `2012-07-02` / `2012/07/02`, the dotted European `02.07.2012`, the
/// Chinese, Japanese and Korean `2012年7月2日` / `2012년 7월 2일` (year,
/// month and day each followed by its character, in every language written
/// with them), and `07/19/2012` or `19/07/2012` (also with dashes) where a
/// number over 12 says which is the day; `07/02/2012` is July 2nd in the
/// US and 7 February elsewhere, and is read only as a dateline, the way the
/// page's other numeric dates say it writes them ([`TextDates::orders`]).
///
/// | month | English | German | French | Spanish |
/// |---|---|---|---|---|
/// | 1 | january, jan | januar, jänner | janvier, janv | enero, ene |
/// | 2 | february, feb | februar | février, fevrier, févr | febrero |
/// | 3 | march, mar | märz, maerz, mär | mars | marzo |
/// | 4 | april, apr | april | avril, avr | abril, abr |
/// | 5 | may | mai | mai | mayo |
/// | 6 | june, jun | juni | juin | junio |
/// | 7 | july, jul | juli | juillet, juil | julio |
/// | 8 | august, aug | august | août, aout | agosto, ago |
/// | 9 | september, sept, sep | september | septembre | septiembre, setiembre |
/// | 10 | october, oct | oktober, okt | octobre | octubre |
/// | 11 | november, nov | november | novembre | noviembre |
/// | 12 | december, dec | dezember, dez | décembre, decembre, déc | diciembre, dic |
///
/// | month | Russian | Polish | Greek |
/// |---|---|---|---|
/// | 1 | января | stycznia | ιανουαρίου |
/// | 2 | февраля | lutego | φεβρουαρίου |
/// | 3 | марта | marca | μαρτίου |
/// | 4 | апреля | kwietnia | απριλίου |
/// | 5 | мая | maja | μαΐου |
/// | 6 | июня | czerwca | ιουνίου |
/// | 7 | июля | lipca | ιουλίου |
/// | 8 | августа | sierpnia | αυγούστου |
/// | 9 | сентября | września | σεπτεμβρίου |
/// | 10 | октября | października | οκτωβρίου |
/// | 11 | ноября | listopada | νοεμβρίου |
/// | 12 | декабря | grudnia | δεκεμβρίου |
const MONTHS: &[(&str, u32)] = &[
    ("january", 1),
    ("jan", 1),
    ("januar", 1),
    ("jänner", 1),
    ("janvier", 1),
    ("janv", 1),
    ("enero", 1),
    ("ene", 1),
    ("february", 2),
    ("feb", 2),
    ("februar", 2),
    ("février", 2),
    ("fevrier", 2),
    ("févr", 2),
    ("febrero", 2),
    ("march", 3),
    ("mar", 3),
    ("märz", 3),
    ("maerz", 3),
    ("mär", 3),
    ("mars", 3),
    ("marzo", 3),
    ("april", 4),
    ("apr", 4),
    ("avril", 4),
    ("avr", 4),
    ("abril", 4),
    ("abr", 4),
    ("may", 5),
    ("mai", 5),
    ("mayo", 5),
    ("june", 6),
    ("jun", 6),
    ("juni", 6),
    ("juin", 6),
    ("junio", 6),
    ("july", 7),
    ("jul", 7),
    ("juli", 7),
    ("juillet", 7),
    ("juil", 7),
    ("julio", 7),
    ("august", 8),
    ("aug", 8),
    ("août", 8),
    ("aout", 8),
    ("agosto", 8),
    ("ago", 8),
    ("september", 9),
    ("sept", 9),
    ("sep", 9),
    ("septembre", 9),
    ("septiembre", 9),
    ("setiembre", 9),
    ("october", 10),
    ("oct", 10),
    ("oktober", 10),
    ("okt", 10),
    ("octobre", 10),
    ("octubre", 10),
    ("november", 11),
    ("nov", 11),
    ("novembre", 11),
    ("noviembre", 11),
    ("december", 12),
    ("dec", 12),
    ("dezember", 12),
    ("dez", 12),
    ("décembre", 12),
    ("decembre", 12),
    ("déc", 12),
    ("diciembre", 12),
    ("dic", 12),
    ("января", 1),
    ("февраля", 2),
    ("марта", 3),
    ("апреля", 4),
    ("мая", 5),
    ("июня", 6),
    ("июля", 7),
    ("августа", 8),
    ("сентября", 9),
    ("октября", 10),
    ("ноября", 11),
    ("декабря", 12),
    ("stycznia", 1),
    ("lutego", 2),
    ("marca", 3),
    ("kwietnia", 4),
    ("maja", 5),
    ("czerwca", 6),
    ("lipca", 7),
    ("sierpnia", 8),
    ("września", 9),
    ("października", 10),
    ("listopada", 11),
    ("grudnia", 12),
    ("ιανουαρίου", 1),
    ("φεβρουαρίου", 2),
    ("μαρτίου", 3),
    ("απριλίου", 4),
    ("μαΐου", 5),
    ("ιουνίου", 6),
    ("ιουλίου", 7),
    ("αυγούστου", 8),
    ("σεπτεμβρίου", 9),
    ("οκτωβρίου", 10),
    ("νοεμβρίου", 11),
    ("δεκεμβρίου", 12),
    ("ιανουαριου", 1),
    ("φεβρουαριου", 2),
    ("μαρτιου", 3),
    ("απριλιου", 4),
    ("μαϊου", 5),
    ("μαιου", 5),
    ("ιουνιου", 6),
    ("ιουλιου", 7),
    ("αυγουστου", 8),
    ("σεπτεμβριου", 9),
    ("οκτωβριου", 10),
    ("νοεμβριου", 11),
    ("δεκεμβριου", 12),
];

fn month_number(name: &str) -> Option<u32> {
    let name = name.to_lowercase();
    MONTHS.iter().find(|(n, _)| *n == name).map(|&(_, m)| m)
}

/// A date written in text, in one of the forms [`MONTHS`] describes. Years
/// are four digits (a two-digit year is ambiguous across centuries).
static TEXT_DATE: LazyLock<Regex> = LazyLock::new(|| {
    let mut names: Vec<&str> = MONTHS.iter().map(|(n, _)| *n).collect();
    // Longest first, so that "june" is not read as "jun" + "e".
    names.sort_by_key(|n| std::cmp::Reverse(n.chars().count()));
    let month = names.join("|");
    let year = r"(?:19|20)\d\d";
    let patterns = [
        // July 2, 2012 / Jul. 2nd 2012 / Wednesday, November 7 2012
        format!(r"(?P<m1>{month})\.?\s+(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?,?\s+(?P<y1>{year})"),
        // 2 July 2012 / 2nd of July, 2012 / 2. Juli 2012 / 1er juillet 2012 / 2 de julio de 2012
        format!(
            r"(?P<d2>[0-3]?\d)(?:st|nd|rd|th|er|\.)?\s+(?:of\s+|de\s+)?(?P<m2>{month})\.?,?\s+(?:de\s+)?(?P<y2>{year})"
        ),
        // 2012-07-02 / 2012/07/02
        format!(r"(?P<y3>{year})[-/](?P<m3>[01]\d)[-/](?P<d3>[0-3]\d)"),
        // 02.07.2012
        format!(r"(?P<d4>[0-3]?\d)\.(?P<m4>[01]?\d)\.(?P<y4>{year})"),
        // 07/19/2012, 19/07/2012, 07-19-2012: read only where one of the
        // first two numbers cannot be a month (`numeric_date`)
        format!(r"(?P<a6>[0-3]?\d)/(?P<b6>[0-3]?\d)/(?P<y6>{year})"),
        format!(r"(?P<a7>[0-3]?\d)-(?P<b7>[0-3]?\d)-(?P<y7>{year})"),
    ];
    let alternatives = patterns
        .iter()
        .map(|p| format!("(?:{p})"))
        .collect::<Vec<_>>()
        .join("|");
    // Outside the word boundaries: a Han character before or after the
    // date is a word character too ("于2012年7月2日发布").
    let cjk =
        format!(r"(?P<y5>{year})\s*[年년]\s*(?P<m5>[01]?\d)\s*[月월]\s*(?P<d5>[0-3]?\d)\s*[日일]");
    Regex::new(&format!(r"(?i)\b(?:{alternatives})\b|{cjk}")).expect("valid date pattern")
});

/// The matches of [`TEXT_DATE`] in `text`. Every form it reads has a year,
/// "19" or "20" and two digits: a text without one (most short texts with
/// a number: "3 comments", "10:45", "Page 2") is not searched.
fn text_dates(text: &str) -> impl Iterator<Item = regex::Captures<'_>> {
    let has_year = text.as_bytes().windows(2).enumerate().any(|(at, pair)| {
        matches!(pair, b"19" | b"20")
            && text
                .get(at + 2..)
                .is_some_and(|rest| rest.chars().take(2).filter(|c| c.is_numeric()).count() == 2)
    });
    has_year
        .then(|| TEXT_DATE.captures_iter(text))
        .into_iter()
        .flatten()
}

/// The date a text writes: a day, or only a numeric date whose month and
/// day could be either way round (`07/02/2012`: July 2nd, or 7 February),
/// with both readings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Day(NaiveDate),
    EitherWay(NaiveDate, NaiveDate),
}

fn written_of(c: &Captures<'_>) -> Option<Written> {
    let num = |name: &str| c.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
    for (y, a, b) in [("y6", "a6", "b6"), ("y7", "a7", "b7")] {
        if let Some(y) = num(y) {
            return numeric_date(i32::try_from(y).ok()?, num(a)?, num(b)?);
        }
    }
    date_of(c).map(Written::Day)
}

fn date_of(c: &Captures<'_>) -> Option<NaiveDate> {
    let num = |name: &str| c.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
    let (y, m, d) = if let Some(y) = num("y1") {
        (y, month_number(&c["m1"])?, num("d1")?)
    } else if let Some(y) = num("y2") {
        (y, month_number(&c["m2"])?, num("d2")?)
    } else if let Some(y) = num("y3") {
        (y, num("m3")?, num("d3")?)
    } else if let Some(y) = num("y5") {
        (y, num("m5")?, num("d5")?)
    } else {
        (num("y4")?, num("m4")?, num("d4")?)
    };
    NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)
}

/// A numeric date written `a/b/year`: the US writes the month first, most
/// of the world the day. A number over 12 tells which is the day
/// (07/19/2012, 19/07/2012); with both at 12 or under and different
/// (07/02/2012) it could be either.
fn numeric_date(y: i32, a: u32, b: u32) -> Option<Written> {
    let day = |m, d| NaiveDate::from_ymd_opt(y, m, d);
    match (a > 12, b > 12) {
        (false, true) => day(a, b).map(Written::Day),
        (true, false) => day(b, a).map(Written::Day),
        (false, false) if a == b => day(a, b).map(Written::Day),
        (false, false) => Some(Written::EitherWay(day(a, b)?, day(b, a)?)),
        (true, true) => None,
    }
}

/// The dates a text writes, read in one search of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextDates {
    /// The first day written (see `MONTHS` for the forms read), else the
    /// first numeric date that could be read either way.
    pub written: Option<Written>,
    /// How many numeric dates say, by a number over 12, that they are
    /// written month first (07/19/2012) and how many day first
    /// (19/07/2012). A page writes its dates one way: these tell which way
    /// its dates with both numbers at 12 or under are read.
    pub orders: (u32, u32),
}

impl TextDates {
    pub fn read(text: &str) -> TextDates {
        let mut dates = TextDates::default();
        let mut either = None;
        for c in text_dates(text) {
            match written_of(&c) {
                Some(Written::Day(d)) => {
                    dates.written.get_or_insert(Written::Day(d));
                }
                Some(w) => {
                    either.get_or_insert(w);
                }
                None => {}
            }
            let num = |name: &str| c.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
            for (a, b) in [("a6", "b6"), ("a7", "b7")] {
                match (num(a), num(b)) {
                    (Some(a), Some(b)) if a <= 12 && b > 12 => dates.orders.0 += 1,
                    (Some(a), Some(b)) if a > 12 && b <= 12 => dates.orders.1 += 1,
                    _ => {}
                }
            }
        }
        dates.written = dates.written.or(either);
        dates
    }
}

/// The first day written in `text` (see `MONTHS` for the forms read), else
/// the first numeric date that could be read either way
/// ([`TextDates::written`]).
pub fn written_date(text: &str) -> Option<Written> {
    TextDates::read(text).written
}

/// The first day written in `text` (see `MONTHS` for the forms read).
pub fn text_date(text: &str) -> Option<NaiveDate> {
    match written_date(text)? {
        Written::Day(d) => Some(d),
        Written::EitherWay(..) => None,
    }
}

/// A date in a URL's path: `/2012/07/02/`, `/2012/7/2/`, `/2012-07-02-title`,
/// `/2012_07_02/`, or `20120702` ending a segment (`/20120702/`,
/// `/title-20121106/`). Only year, month
/// and day together: `/2012/07/` alone names a month, not a day.
static URL_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        /(?P<y>(?:19|20)\d\d)[/_-](?P<m>0?[1-9]|1[0-2])[/_-](?P<d>0?[1-9]|[12]\d|3[01])(?:[/_.-]|$)
        | [/_-](?P<cy>(?:19|20)\d\d)(?P<cm>0[1-9]|1[0-2])(?P<cd>0[1-9]|[12]\d|3[01])(?:/|\.html?|$)",
    )
    .expect("valid URL date pattern")
});

/// The date in `url`'s path (the query and fragment are not read: they
/// hold search and tracking values, not the page's date).
pub fn url_date(url: &str) -> Option<NaiveDate> {
    let path = url::Url::parse(url).ok()?.path().to_string();
    URL_DATE.captures_iter(&path).find_map(|c| {
        let num = |a: &str, b: &str| {
            c.name(a)
                .or_else(|| c.name(b))
                .and_then(|m| m.as_str().parse::<u32>().ok())
        };
        let y = i32::try_from(num("y", "cy")?).ok()?;
        NaiveDate::from_ymd_opt(y, num("m", "cm")?, num("d", "cd")?)
    })
}

/// Words that mark a dateline as the date of a change, not of publication
/// ("Updated: July 3, 2012"), in the languages of [`MONTHS`]. Such a
/// dateline is passed over: the original publication date is wanted.
const MODIFIED_WORDS: &[&str] = &[
    "updated",
    "modified",
    "last edited",
    "revised",
    "aktualisiert",
    "geändert",
    "mis à jour",
    "mise à jour",
    "modifié",
    "actualizado",
    "modificado",
];

/// Whether a dateline speaks of a change rather than of publication.
pub fn speaks_of_change(text: &str) -> bool {
    let lower = text.to_lowercase();
    MODIFIED_WORDS.iter().any(|w| lower.contains(w))
}

/// The days a page's publication date can fall on.
#[derive(Debug, Clone, Copy)]
pub struct DateBounds {
    earliest: NaiveDate,
    latest: Option<NaiveDate>,
}

/// No page date before 1995: web publishing (news sites, the first blogs)
/// starts in 1994–95, and earlier values are placeholders such as the Unix
/// epoch `1970-01-01` or a CMS's `0001-01-01`. htmldate uses the same floor.
const EARLIEST: (i32, u32, u32) = (1995, 1, 1);

/// How far past its capture a page's date may fall. A page cannot be
/// published after it was fetched, but WARC-Dates are not always the fetch
/// time: archives re-packaged into WARC carry a placeholder (dragnet's
/// records all say 2012-06-01, while its pages are dated up to 2012-12;
/// big9's say June 1st of their year). A year covers those, and still
/// rejects what the bound is for: event dates, calendar widgets and typos
/// years ahead of the page.
const CAPTURE_SLACK_DAYS: i64 = 366;

impl DateBounds {
    /// The bounds for a page captured on `captured` (a WARC-Date, RFC 3339
    /// or at least starting with `YYYY-MM-DD`); without one, no upper bound.
    pub fn new(captured: Option<&str>) -> DateBounds {
        let (y, m, d) = EARLIEST;
        let latest = captured
            .and_then(|s| s.get(..10))
            .and_then(|s| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
            .and_then(|d| d.checked_add_signed(chrono::TimeDelta::days(CAPTURE_SLACK_DAYS)));
        DateBounds {
            earliest: NaiveDate::from_ymd_opt(y, m, d).expect("valid date"),
            latest,
        }
    }

    /// Whether `day` is within the bounds.
    pub fn admit(&self, day: NaiveDate) -> bool {
        day >= self.earliest && self.latest.is_none_or(|l| day <= l)
    }

    /// Whether the ISO 8601 date (or date-time) `iso` is within the bounds.
    pub fn admit_iso(&self, iso: &str) -> bool {
        iso.get(..10)
            .and_then(|s| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
            .is_some_and(|d| d.year() > 0 && self.admit(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    /// Each text, and the day `f` should read in it (`None`: no date).
    fn check(f: impl Fn(&str) -> Option<NaiveDate>, cases: &[(&str, Option<&str>)]) {
        for &(text, want) in cases {
            assert_eq!(f(text), want.map(day), "{text}");
        }
    }

    #[test]
    fn datelines_in_text() {
        check(
            text_date,
            &[
                // Typepad, Blogger, WordPress and news bylines as written.
                (" on July 19, 2012", Some("2012-07-19")),
                (
                    "posted on Tuesday, October 30, 2012 at 9:46 AM by",
                    Some("2012-10-30"),
                ),
                ("Wednesday, November 7 2012", Some("2012-11-07")),
                ("Posted 29 October 2012 | 3:25 pm", Some("2012-10-29")),
                ("Sept. 3rd, 2012", Some("2012-09-03")),
                ("the 2nd of July, 2012", Some("2012-07-02")),
                ("Veröffentlicht am 2. Juli 2012", Some("2012-07-02")),
                ("Publié le 1er août 2012", Some("2012-08-01")),
                ("3 de julio de 2012", Some("2012-07-03")),
                ("Stand: 02.07.2012, 10:00", Some("2012-07-02")),
                ("2012/07/02 10:00", Some("2012-07-02")),
                ("Опубликовано 2 июля 2012 г.", Some("2012-07-02")),
                ("Dodano: 12 października 2012", Some("2012-10-12")),
                ("Δημοσίευση: 2 Ιουλίου 2012", Some("2012-07-02")),
                ("ΔΕΥΤΕΡΑ 2 ΙΟΥΛΙΟΥ 2012", Some("2012-07-02")),
                ("ΤΡΙΤΗ 15 ΜΑΪΟΥ 2012", Some("2012-05-15")),
                ("于2012年7月2日发布", Some("2012-07-02")),
                ("2019年06月24日 11時30分", Some("2019-06-24")),
                ("2012년 7월 2일", Some("2012-07-02")),
                // Numeric dates whose day is over 12, read past one that
                // could be read either way.
                ("Posted on 07/19/2012 at 03:08 PM", Some("2012-07-19")),
                ("19/07/2012", Some("2012-07-19")),
                ("08-17-2012", Some("2012-08-17")),
                ("07/02/2012 - 07/19/2012", Some("2012-07-19")),
                // Not dates: a month without a day, a numeric date either
                // way round, a two-digit year, no month, an impossible
                // day, a word that merely starts like a month.
                ("July 2012", None),
                ("07/02/2012", None),
                ("07/19/12", None),
                ("13/19/2012", None),
                ("February 30, 2012", None),
                ("Mayday 2, 2012", None),
                ("2012年7月", None),
                ("2012年13月2日", None),
            ],
        );
    }

    #[test]
    fn numeric_dates_either_way_round() {
        let either = |a: &str, b: &str| Some(Written::EitherWay(day(a), day(b)));
        assert_eq!(
            written_date("Posted on: 08-7-2012"),
            either("2012-08-07", "2012-07-08")
        );
        assert_eq!(
            written_date("07/02/2012 - 07/19/2012"),
            Some(Written::Day(day("2012-07-19")))
        );
        assert_eq!(
            written_date("07/07/2012"),
            Some(Written::Day(day("2012-07-07")))
        );
        assert_eq!(written_date("13/19/2012"), None);
        assert_eq!(written_date("no date"), None);
        assert_eq!(
            TextDates::read("07-28-2008, 05-30-2008 and 08-7-2012").orders,
            (2, 0)
        );
        assert_eq!(TextDates::read("19/07/2012 or 07/02/2012").orders, (0, 1));
        // A day in words after a numeric date read either way is the day.
        assert_eq!(
            written_date("07/02/2012 or July 9, 2012"),
            Some(Written::Day(day("2012-07-09")))
        );
    }

    #[test]
    fn dates_in_url_paths() {
        check(
            url_date,
            &[
                ("http://247wallst.com/2012/10/27/sandy-over-250000-homes-at-risk/", Some("2012-10-27")),
                ("http://www.diebytheblade.com/2012/8/8/3229307/the-best-of", Some("2012-08-08")),
                ("http://x.example/news/2012-07-02-title.html", Some("2012-07-02")),
                ("http://x.example/a/20120702/", Some("2012-07-02")),
                (
                    "http://androidcommunity.com/motorola-photon-q-update-rolling-out-now-20121106/",
                    Some("2012-11-06"),
                ),
                // A month alone, an id that holds digits, a date in the
                // query, an impossible month.
                ("http://x.example/2012/07/title/", None),
                ("http://x.example/8301-13579_3-57478520-37/title/", None),
                ("http://x.example/story?date=2012-07-02", None),
                ("http://x.example/2012/13/02/title", None),
            ],
        );
    }

    #[test]
    fn bounds() {
        let b = DateBounds::new(Some("2012-06-01T12:00:00Z"));
        assert!(b.admit(day("2012-11-30")));
        assert!(b.admit(day("1995-01-01")));
        assert!(!b.admit(day("1994-12-31")));
        assert!(!b.admit(day("2013-06-03")));
        assert!(!b.admit_iso("1970-01-01T00:00:00Z"));
        let open = DateBounds::new(None);
        assert!(open.admit(day("2099-01-01")));
        assert!(!open.admit_iso("nonsense"));
    }

    #[test]
    fn change_datelines() {
        assert!(speaks_of_change("Updated: July 3, 2012"));
        assert!(speaks_of_change("Zuletzt aktualisiert am 3. Juli 2012"));
        assert!(!speaks_of_change("Posted on July 3, 2012"));
    }
}
