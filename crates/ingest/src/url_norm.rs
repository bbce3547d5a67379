//! URL normalisation used to join feed items to pages, and the key under
//! which two captures are the same URL for deduplication.

use url::Url;

/// Query parameters that only say where a click came from, dropped from
/// the deduplication key ([`dedup_url`]): a name ending in `*` is a prefix.
/// Google Analytics campaign tags (`utm_source`, `utm_medium`…), the click
/// ids of Facebook, Google Ads, DoubleClick and Microsoft Ads, and
/// Mailchimp's campaign and member ids. Compared ASCII case-insensitively.
pub const TRACKING_PARAMS: &[&str] = &[
    "utm_*", "fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid",
];

/// Whether a query parameter name is one of [`TRACKING_PARAMS`].
fn is_tracking(name: &str) -> bool {
    TRACKING_PARAMS.iter().any(|t| match t.strip_suffix('*') {
        Some(prefix) => name
            .get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix)),
        None => name.eq_ignore_ascii_case(t),
    })
}

/// The key under which two captures are one URL for deduplication:
/// [`normalize_url`], then the [`TRACKING_PARAMS`] removed from the query
/// (the other parameters keep their order and their bytes; a query left
/// empty goes with its `?`). Scheme, host (`www.` included) and the rest of
/// the query still tell URLs apart.
pub fn dedup_url(u: &str) -> String {
    let normal = normalize_url(u);
    let Some((base, query)) = normal.split_once('?') else {
        return normal;
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let name = pair.split_once('=').map_or(*pair, |(n, _)| n);
            !is_tracking(name)
        })
        .collect();
    if kept.len() == query.split('&').count() {
        return normal;
    }
    if kept.iter().all(|p| p.is_empty()) {
        return base.to_string();
    }
    format!("{base}?{}", kept.join("&"))
}

/// Normalises a URL for joining feed items to pages.
///
/// Scheme and host are lowercased and a default port is removed (both done by
/// the `url` crate's parser), the fragment is removed, and a trailing slash of
/// the path is removed (the root path `/` stays). A string that does not parse
/// as an absolute URL is returned trimmed.
pub fn normalize_url(u: &str) -> String {
    let trimmed = u.trim();
    let Ok(mut url) = Url::parse(trimmed) else {
        return trimmed.to_string();
    };
    url.set_fragment(None);
    let path = url.path();
    if path.len() > 1 && path.ends_with('/') {
        let new_path = path.trim_end_matches('/');
        let new_path = if new_path.is_empty() { "/" } else { new_path }.to_string();
        url.set_path(&new_path);
    }
    url.to_string()
}

#[cfg(test)]
mod tests {
    use super::{dedup_url, normalize_url};

    #[test]
    fn the_dedup_key_drops_tracking_parameters_only() {
        assert_eq!(
            dedup_url("http://Example.com/a/?utm_source=x&id=3&UTM_Medium=y#top"),
            "http://example.com/a?id=3"
        );
        assert_eq!(
            dedup_url("http://example.com/a?fbclid=1&gclid=2"),
            "http://example.com/a"
        );
        assert_eq!(
            dedup_url("http://example.com/a?id=3&utm=1&x"),
            "http://example.com/a?id=3&utm=1&x"
        );
        assert_eq!(
            dedup_url("https://example.com/a?utm_source=x"),
            "https://example.com/a"
        );
        assert_ne!(
            dedup_url("http://www.example.com/a"),
            dedup_url("http://example.com/a")
        );
        assert_eq!(dedup_url(" not a url "), "not a url");
    }

    #[test]
    fn lowercases_scheme_and_host() {
        assert_eq!(
            normalize_url("HTTP://WWW.Example.COM/Path"),
            "http://www.example.com/Path"
        );
    }

    #[test]
    fn removes_default_port_but_keeps_others() {
        assert_eq!(
            normalize_url("http://example.com:80/a"),
            "http://example.com/a"
        );
        assert_eq!(
            normalize_url("https://example.com:443/a"),
            "https://example.com/a"
        );
        assert_eq!(
            normalize_url("http://example.com:8080/a"),
            "http://example.com:8080/a"
        );
    }

    #[test]
    fn removes_fragment() {
        assert_eq!(
            normalize_url("http://example.com/a#top"),
            "http://example.com/a"
        );
        assert_eq!(
            normalize_url("http://example.com/a?x=1#top"),
            "http://example.com/a?x=1"
        );
    }

    #[test]
    fn removes_trailing_slash_but_keeps_root() {
        assert_eq!(
            normalize_url("http://example.com/a/b/"),
            "http://example.com/a/b"
        );
        assert_eq!(normalize_url("http://example.com/"), "http://example.com/");
        assert_eq!(normalize_url("http://example.com"), "http://example.com/");
        assert_eq!(
            normalize_url("http://example.com/a/?q=1"),
            "http://example.com/a?q=1"
        );
    }

    #[test]
    fn invalid_urls_are_trimmed() {
        assert_eq!(normalize_url("  not a url  "), "not a url");
        assert_eq!(normalize_url(" /relative/path/ "), "/relative/path/");
    }

    #[test]
    fn surrounding_whitespace_is_ignored() {
        assert_eq!(
            normalize_url("  http://Example.com/x/  "),
            "http://example.com/x"
        );
    }
}
