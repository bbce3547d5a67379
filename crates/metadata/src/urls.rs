//! Absolute URLs: the page's base and links resolved against it.

use canopy_dom::{local_name, Document, NodeId};
use url::Url;

/// The URL relative links of the page resolve against: the page's URL,
/// overridden by the first `<base href>`. `None` when the page has no
/// http(s) URL (a bare file): relative links then cannot be resolved.
pub fn base_url(doc: &Document, page_url: &str) -> Option<Url> {
    let page = Url::parse(page_url).ok().filter(is_web);
    let base_href = (0..doc.len())
        .find(|&n| doc.tag(n) == "base" && doc.attr_named(n, &local_name!("href")).is_some())
        .and_then(|n| doc.attr_named(n, &local_name!("href")));
    match base_href {
        Some(href) => {
            let joined = match &page {
                Some(p) => p.join(href.trim()).ok(),
                None => Url::parse(href.trim()).ok(),
            };
            joined.filter(is_web).or(page)
        }
        None => page,
    }
}

fn is_web(u: &Url) -> bool {
    matches!(u.scheme(), "http" | "https")
}

/// `href` as an absolute http(s) URL, or `None` (empty, unresolvable, or
/// another scheme: `javascript:`, `data:`, `mailto:`…).
pub fn absolute(base: Option<&Url>, href: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let url = match base {
        Some(b) => b.join(href).ok()?,
        None => Url::parse(href).ok()?,
    };
    is_web(&url).then(|| url.to_string())
}

/// The address of an image element: `src`, or the attribute lazy loaders
/// keep it in while `src` holds a placeholder (`data:` or nothing).
pub fn image_src(doc: &Document, img: NodeId) -> Option<&str> {
    let real = |v: &&str| {
        let v = v.trim();
        !v.is_empty() && !v.starts_with("data:")
    };
    doc.attr_named(img, &local_name!("src"))
        .filter(real)
        .or_else(|| {
            ["data-src", "data-original", "data-lazy-src", "data-url"]
                .iter()
                .find_map(|a| doc.attr(img, a).filter(real))
        })
        .or_else(|| {
            // The first candidate of a `srcset`: "url 1x, url 2x".
            ["srcset", "data-srcset"].iter().find_map(|a| {
                doc.attr(img, a)
                    .and_then(|s| s.split(',').next())
                    .and_then(|c| c.split_whitespace().next())
                    .filter(real)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    #[test]
    fn relative_links_resolve_against_the_base() {
        let doc = Document::parse(
            "<head><base href='/news/'></head><body><img data-src='a.jpg' src='data:x'></body>",
            &DomOptions::default(),
        );
        let base = base_url(&doc, "http://example.com/x/page.html").unwrap();
        assert_eq!(base.as_str(), "http://example.com/news/");
        let img = (0..doc.len()).find(|&n| doc.tag(n) == "img").unwrap();
        assert_eq!(image_src(&doc, img), Some("a.jpg"));
        assert_eq!(
            absolute(Some(&base), "a.jpg").as_deref(),
            Some("http://example.com/news/a.jpg")
        );
        assert_eq!(absolute(Some(&base), "javascript:alert(1)"), None);
        assert_eq!(absolute(None, "a.jpg"), None);
        assert_eq!(base_url(&doc, "html/page.html"), None);
    }
}
