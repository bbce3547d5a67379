//! The article's title: the page's `og:title` or `<title>`, without the
//! site name that CMSs add to it.

/// Separators CMSs put between a headline and the site's name.
const SEPARATORS: &[&str] = &[" | ", " - ", " — ", " – ", " :: ", " « ", " » ", ": "];

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
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
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
