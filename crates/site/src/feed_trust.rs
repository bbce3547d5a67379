//! Which feed items a run may use. A feed's items become signifiers of the
//! pages they link to (`forest-feeds`, `--signifiers feeds`), so a feed
//! chooses what Forest looks for on those pages: a feed served by one host
//! whose items link to another host's pages, with titles of that host's ad
//! block, would move the other host's wrapper onto the ad block. A feed
//! found inside a WARC therefore speaks only for its own site, unless the
//! operator trusts feeds (`ingest.trust_feeds`, `--trust-feeds`); feed files
//! named on the command line are the operator's own and always used
//! (docs/robustness.md, "Feeds, metadata and charsets").

use canopy_cluster::site_key;
use canopy_types::FeedItem;

/// The items of the feed served at `feed_url` that link to a page of its
/// own site, and how many were dropped because they link to another.
///
/// "Site" is the key pages are grouped by (`canopy_cluster::site_key`: the
/// host in lowercase without `www.`, `m.` or port), so an item is kept
/// exactly when its page would be in the same site as the feed. A feed
/// without a usable URL (an empty or unparsable `WARC-Target-URI`, whose
/// site is `""`) speaks for no site.
pub fn own_site_items(feed_url: &str, items: Vec<FeedItem>) -> (Vec<FeedItem>, u64) {
    let own = site_key(feed_url);
    let total = items.len();
    let kept: Vec<FeedItem> = if own.is_empty() {
        Vec::new()
    } else {
        items
            .into_iter()
            .filter(|item| site_key(&item.url) == own)
            .collect()
    };
    let dropped = (total - kept.len()) as u64;
    (kept, dropped)
}

/// What the summary lines say of the dropped items: nothing when none was.
pub fn dropped_note(foreign: u64) -> String {
    if foreign == 0 {
        String::new()
    } else {
        format!("; {foreign} feed items dropped for linking to another site than their feed's (--trust-feeds keeps them)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(url: &str) -> FeedItem {
        FeedItem {
            url: url.to_string(),
            title: "t".to_string(),
            description: String::new(),
        }
    }

    #[test]
    fn a_feed_speaks_for_its_own_site_only() {
        let items = vec![
            item("http://news.example/a"),
            item("https://www.NEWS.example:8080/b"),
            item("http://m.news.example/c"),
            item("http://victim.example/d"),
            item("http://sub.news.example/e"),
            item("/relative"),
        ];
        let (kept, dropped) = own_site_items("http://www.news.example/feed.rss", items.clone());
        let urls: Vec<&str> = kept.iter().map(|i| i.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "http://news.example/a",
                "https://www.NEWS.example:8080/b",
                "http://m.news.example/c"
            ]
        );
        assert_eq!(dropped, 3);
        assert_eq!(own_site_items("", items.clone()), (Vec::new(), 6));
        assert_eq!(own_site_items("not a url", items), (Vec::new(), 6));
    }
}
