//! URL normalisation used to join feed items to pages.

use url::Url;

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
    use super::normalize_url;

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
