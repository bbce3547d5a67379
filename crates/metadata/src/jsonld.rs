//! schema.org JSON-LD: the page's article object and the fields Canopy
//! reads from it.
//!
//! A page may hold several scripts, each an object, an array, or a graph
//! (`@graph`) whose nodes refer to each other by `@id` (an article's
//! `author: {"@id": "#person-1"}`). The article is the first object whose
//! `@type` is an article type (`NewsArticle`, `BlogPosting`…), else the
//! first web page object.

use std::collections::HashMap;

use serde_json::Value;

/// The parsed JSON-LD of a page.
#[derive(Debug, Default)]
pub struct JsonLd {
    objects: Vec<Value>,
}

fn types(obj: &Value) -> Vec<&str> {
    match obj.get("@type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn is_article_type(t: &str) -> bool {
    // "schema:NewsArticle" and "http://schema.org/NewsArticle" name the same type.
    let t = t.rsplit(['/', ':']).next().unwrap_or(t);
    t.ends_with("Article")
        || matches!(
            t,
            "BlogPosting" | "LiveBlogPosting" | "SocialMediaPosting" | "Report" | "Review"
        )
}

fn is_page_type(t: &str) -> bool {
    let t = t.rsplit(['/', ':']).next().unwrap_or(t);
    t.ends_with("WebPage") || t == "ItemPage"
}

fn flatten(v: Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(items) => items.into_iter().for_each(|i| flatten(i, out)),
        Value::Object(mut map) => {
            if let Some(graph) = map.remove("@graph") {
                flatten(graph, out);
            }
            out.push(Value::Object(map));
        }
        _ => {}
    }
}

impl JsonLd {
    /// Parses the page's scripts; one that is not valid JSON is skipped
    /// (its page just has less metadata).
    pub fn parse(scripts: &[String]) -> JsonLd {
        let mut objects = Vec::new();
        for s in scripts {
            // Some CMSs wrap the JSON in an HTML comment or CDATA section.
            let s = s
                .trim()
                .trim_start_matches("<!--")
                .trim_end_matches("-->")
                .trim()
                .trim_start_matches("//<![CDATA[")
                .trim_end_matches("//]]>")
                .trim()
                .trim_end_matches(';');
            if let Ok(v) = serde_json::from_str::<Value>(s) {
                flatten(v, &mut objects);
            }
        }
        JsonLd { objects }
    }

    fn by_id(&self) -> HashMap<&str, &Value> {
        self.objects
            .iter()
            .filter_map(|o| Some((o.get("@id")?.as_str()?, o)))
            .collect()
    }

    /// The article object, else the web page object.
    fn main(&self) -> Option<&Value> {
        self.objects
            .iter()
            .find(|o| types(o).into_iter().any(is_article_type))
            .or_else(|| {
                self.objects
                    .iter()
                    .find(|o| types(o).into_iter().any(is_page_type))
            })
    }

    /// `v`, or the graph node it refers to when it is only `{"@id": …}`.
    fn resolve<'a>(&'a self, v: &'a Value, ids: &HashMap<&str, &'a Value>) -> &'a Value {
        match v.as_object() {
            Some(m) if m.len() == 1 => m
                .get("@id")
                .and_then(Value::as_str)
                .and_then(|id| ids.get(id).copied())
                .unwrap_or(v),
            _ => v,
        }
    }

    /// The names in a value: a string, an object's `name`, or a list of
    /// them; no more than `limit` in `out`.
    fn names(&self, v: &Value, ids: &HashMap<&str, &Value>, limit: usize, out: &mut Vec<String>) {
        if out.len() >= limit {
            return;
        }
        match self.resolve(v, ids) {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|i| self.names(i, ids, limit, out)),
            obj @ Value::Object(_) => match obj.get("name") {
                Some(Value::String(s)) => out.push(s.clone()),
                Some(Value::Array(ns)) => {
                    let room = limit - out.len();
                    out.extend(
                        ns.iter()
                            .filter_map(Value::as_str)
                            .take(room)
                            .map(str::to_string),
                    )
                }
                _ => {}
            },
            _ => {}
        }
    }

    /// The article's authors (`author`, else `creator`): the first `limit`
    /// names it gives.
    pub fn authors(&self, limit: usize) -> Vec<String> {
        let ids = self.by_id();
        let mut out = Vec::new();
        if let Some(main) = self.main() {
            if let Some(a) = main.get("author").or_else(|| main.get("creator")) {
                self.names(a, &ids, limit, &mut out);
            }
        }
        out
    }

    /// The article's `datePublished`, as written.
    pub fn date_published(&self) -> Option<&str> {
        self.main()?.get("datePublished")?.as_str()
    }

    /// The publisher's name, else the name of the page's `WebSite` object.
    pub fn site_name(&self) -> Option<String> {
        let ids = self.by_id();
        let mut out = Vec::new();
        if let Some(p) = self.main().and_then(|m| m.get("publisher")) {
            self.names(p, &ids, 1, &mut out);
        }
        if out.is_empty() {
            if let Some(site) = self
                .objects
                .iter()
                .find(|o| types(o).iter().any(|t| t.ends_with("WebSite")))
            {
                self.names(site, &ids, 1, &mut out);
            }
        }
        out.into_iter().next()
    }

    /// The article's `image`: a URL, an `ImageObject` (`url` or
    /// `contentUrl`), or a list whose first entry is one of those.
    pub fn image(&self) -> Option<&str> {
        let ids = self.by_id();
        let mut v = self.resolve(self.main()?.get("image")?, &ids);
        if let Value::Array(items) = v {
            v = self.resolve(items.first()?, &ids);
        }
        match v {
            Value::String(s) => Some(s),
            Value::Object(m) => m
                .get("url")
                .or_else(|| m.get("contentUrl"))
                .and_then(Value::as_str),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_references_and_lists_are_followed() {
        let ld = JsonLd::parse(&[
            "not json".to_string(),
            r##"{"@context":"https://schema.org","@graph":[
                {"@type":"WebSite","@id":"#site","name":"Daily Planet"},
                {"@type":["NewsArticle"],"headline":"H","datePublished":"2017-03-01T10:00:00Z",
                 "author":[{"@id":"#p1"},"Lois Lane",{"@type":"Person","name":"Jimmy Olsen"}],
                 "image":[{"@type":"ImageObject","url":"https://planet.example/a.jpg"}]},
                {"@type":"Person","@id":"#p1","name":"Clark Kent"}]}"##
                .to_string(),
        ]);
        assert_eq!(ld.authors(10), ["Clark Kent", "Lois Lane", "Jimmy Olsen"]);
        assert_eq!(ld.authors(2), ["Clark Kent", "Lois Lane"]);
        assert_eq!(ld.date_published(), Some("2017-03-01T10:00:00Z"));
        assert_eq!(ld.site_name().as_deref(), Some("Daily Planet"));
        assert_eq!(ld.image(), Some("https://planet.example/a.jpg"));
    }

    #[test]
    fn publisher_objects_and_plain_strings() {
        let ld = JsonLd::parse(&[r#"<!-- [{"@type":"BlogPosting","author":"Ann",
            "publisher":{"@type":"Organization","name":"Ann's Blog"},
            "image":"/img.png"}] -->"#
            .to_string()]);
        assert_eq!(ld.authors(10), ["Ann"]);
        assert_eq!(ld.site_name().as_deref(), Some("Ann's Blog"));
        assert_eq!(ld.image(), Some("/img.png"));
        assert_eq!(ld.date_published(), None);
        assert!(JsonLd::parse(&[]).authors(10).is_empty());
    }
}
