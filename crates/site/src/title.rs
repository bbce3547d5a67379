//! The article's title: the page's `og:title` or `<title>`, without the
//! site name that CMSs add to it.

use canopy_extract::is_cjk;

/// Separators CMSs put between a headline and the site's name.
const SEPARATORS: &[&str] = &[" | ", " - ", " — ", " – ", " :: ", " « ", " » ", ": "];

/// Separators that titles in Chinese and Japanese write without spaces
/// ("标题-新华网", "标题_新浪网", "NEWS WEB EASY|子ども…"). They separate
/// only beside a CJK character, so that "COVID-19" and "snake_case" stay
/// whole.
const UNSPACED_SEPARATORS: &[char] = &['|', '｜', '_', '-', '－', '—', '–'];

fn normalized(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn segments(title: &str) -> Vec<&str> {
    let mut parts = vec![title];
    for sep in SEPARATORS {
        parts = parts.iter().flat_map(|p| p.split(sep)).collect();
    }
    parts
        .into_iter()
        .flat_map(split_unspaced)
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// `part` split at each of [`UNSPACED_SEPARATORS`] that stands beside a
/// CJK character.
fn split_unspaced(part: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = part.char_indices().collect();
    let cjk_at = |i: Option<usize>| {
        i.and_then(|i| chars.get(i))
            .is_some_and(|&(_, c)| is_cjk(c))
    };
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &(at, c)) in chars.iter().enumerate() {
        if UNSPACED_SEPARATORS.contains(&c) && (cjk_at(i.checked_sub(1)) || cjk_at(Some(i + 1))) {
            out.extend(part.get(start..at));
            start = at + c.len_utf8();
        }
    }
    out.extend(part.get(start..));
    out
}

/// The site's name as it would appear in a title: the longest label of the
/// site key that is not a common suffix ("bbc" for `bbc.co.uk`).
fn site_label(site: &str) -> String {
    site.split('.')
        .filter(|l| {
            !matches!(
                *l,
                "com" | "co" | "org" | "net" | "uk" | "gov" | "edu" | "www"
            )
        })
        .max_by_key(|l| l.len())
        .map(normalized)
        .unwrap_or_default()
}

/// Cleans one raw title. `siblings` are the raw titles of the other pages
/// of the same template: a segment most of them share is the site's name,
/// not the headline.
pub fn clean_title(raw: &str, site: &str, siblings: &[&str]) -> String {
    let raw = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let parts = segments(&raw);
    if parts.len() <= 1 {
        return raw;
    }
    let label = site_label(site);
    let shared = |seg: &str| {
        siblings.len() >= 2
            && siblings.iter().filter(|t| t.contains(seg)).count() * 2 >= siblings.len()
    };
    let site_like = |seg: &str| {
        let n = normalized(seg);
        !label.is_empty() && label.len() >= 3 && (n.contains(&label) && n.len() <= label.len() + 12)
    };
    let kept: Vec<&str> = parts
        .iter()
        .copied()
        .filter(|seg| !shared(seg) && !site_like(seg))
        .collect();
    match kept.len() {
        0 => raw,
        // The headline is the longest segment left; others are sections.
        _ => kept
            .iter()
            .max_by_key(|s| s.len())
            .map(|s| s.to_string())
            .unwrap_or(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_names_are_stripped() {
        assert_eq!(
            clean_title(
                "Forbes.com: AMD More Fleet-Footed Than Intel",
                "forbes.com",
                &[]
            ),
            "AMD More Fleet-Footed Than Intel"
        );
        assert_eq!(
            clean_title(
                "Spinach leaf transforms | Ars Technica",
                "arstechnica.com",
                &[]
            ),
            "Spinach leaf transforms"
        );
        assert_eq!(
            clean_title("Plain headline", "example.com", &[]),
            "Plain headline"
        );
    }

    #[test]
    fn unspaced_separators_split_beside_cjk_characters() {
        // trafbench-00040's and trafbench-00486's titles.
        assert_eq!(
            clean_title(
                "武汉的声音：有英勇的你，才有英雄的城！-新华网",
                "xinhuanet.com",
                &[]
            ),
            "武汉的声音：有英勇的你，才有英雄的城！"
        );
        assert_eq!(
            clean_title(
                "NEWS WEB EASY|子どもへの体罰を禁止する法律ができる",
                "nhk.or.jp",
                &[]
            ),
            "子どもへの体罰を禁止する法律ができる"
        );
        assert_eq!(
            clean_title("长江大桥今日通车_新闻频道_新浪网", "sina.com.cn", &[]),
            "长江大桥今日通车"
        );
        // Between letters they are part of words.
        for title in [
            "COVID-19 cases fall in May",
            "snake_case or camelCase|which",
        ] {
            assert_eq!(clean_title(title, "example.com", &[]), title);
        }
    }

    #[test]
    fn a_segment_shared_by_siblings_is_the_site_name() {
        let siblings = [
            "A story - Daily Planet",
            "B story - Daily Planet",
            "C - Daily Planet",
        ];
        assert_eq!(
            clean_title("A story - Daily Planet", "planet.example", &siblings),
            "A story"
        );
    }
}
