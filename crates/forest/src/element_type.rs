//! Element types (forest.md §3.2, Definition 2) and their XPath forms.
//!
//! An element with identity attributes has the type `tag + {name: tolerant
//! value}`; an element without any has, in the paper, the type `tag + {dfs}`.
//! The `dfs` type never repeats across pages whose layouts differ by even
//! one element before it, so Canopy also offers an *anchored* type for such
//! elements: the tag path from the nearest ancestor that has identity
//! attributes (see [`Untyped`]).

use std::fmt::Write as _;

use canopy_dom::{Document, NodeId};

/// How an element without identity attributes is typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Untyped {
    /// The paper's rule: `tag` plus the element's `dfs` number.
    Dfs,
    /// The tag path below the nearest ancestor with identity attributes,
    /// which repeats across the pages of one template.
    #[default]
    Anchored,
}

/// The tolerant form of an attribute value: its first whitespace-separated
/// token, digits removed ("post wrapper-02" → "post").
pub fn tolerant_form(value: &str) -> String {
    value
        .split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .collect()
}

/// `value` as XPath 1.0's `normalize-space` gives it: runs of space, tab,
/// CR and LF collapsed to one space, none at either end.
pub fn normalized_space(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for word in value
        .split([' ', '\t', '\r', '\n'])
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Whether an attribute says what kind of element this is, rather than
/// carrying content or a per-page address. Links, sources, text
/// alternatives, data and event attributes vary from page to page and would
/// keep an element type from ever repeating.
fn is_identity_attr(name: &str) -> bool {
    is_xpath_name(name)
        && !(matches!(
            name,
            "href"
                | "src"
                | "srcset"
                | "alt"
                | "title"
                | "content"
                | "value"
                | "datetime"
                | "action"
                | "for"
                | "rel"
                | "target"
                | "tabindex"
                | "itemid"
        ) || name.starts_with("data-")
            || name.starts_with("on")
            || name.starts_with("aria-")
            || name.contains(':'))
}

/// Whether `name` can be written as `@name` in XPath 1.0 (an XML NCName in
/// ASCII): broken markup yields attribute names such as `"` or `2px`.
fn is_xpath_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The identity attributes of an element in tolerant form, sorted by name.
pub fn identity_attrs(doc: &Document, id: NodeId) -> Vec<(String, String)> {
    let mut attrs: Vec<(String, String)> = doc
        .attrs(id)
        .filter(|(n, _)| is_identity_attr(n))
        .map(|(n, v)| (n.to_string(), tolerant_form(v)))
        .collect();
    attrs.sort();
    attrs.dedup_by(|a, b| a.0 == b.0);
    attrs
}

/// The level of every node: its number of element ancestors, `tbody`
/// excluded. HTML parsers disagree about `tbody` (html5ever inserts it in
/// every table, libxml2 does not), so a level that skips it is the same in
/// Canopy's tree and in any other engine's; the portable XPath tests it as
/// `count(ancestor::*[not(self::tbody)])`.
pub fn levels(doc: &Document) -> Vec<u32> {
    let mut levels = vec![0u32; doc.len()];
    for n in 0..doc.len() {
        if let Some(p) = doc.node(n).parent {
            levels[n] = levels[p] + u32::from(doc.tag(p) != "tbody");
        }
    }
    levels
}

/// The XPath 1.0 test of a node's level (see [`levels`]).
fn level_test(level: u32) -> String {
    format!("[count(ancestor::*[not(self::tbody)])={level}]")
}

/// An element type.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ElementType {
    /// Tag and identity attributes in tolerant form.
    Attrs {
        tag: String,
        attrs: Vec<(String, String)>,
    },
    /// The paper's type for an element without identity attributes.
    Dfs { tag: String, dfs: u32 },
    /// Tag path (`path`, outermost first, ending with the element's own tag,
    /// `tbody` left out) below the nearest ancestor with identity attributes
    /// (`anchor`, whose type is `Attrs`, or `None` when that ancestor is
    /// `<body>` without any). The path tells types apart when ranking; a
    /// match needs the element's tag, its level and an ancestor of the
    /// anchor's type at the anchor's level (what the portable XPath tests).
    Anchored {
        anchor: Option<Box<ElementType>>,
        path: Vec<String>,
    },
}

impl ElementType {
    /// The type of element `id`.
    pub fn of(doc: &Document, id: NodeId, untyped: Untyped) -> ElementType {
        let tag = doc.tag(id).to_string();
        let attrs = identity_attrs(doc, id);
        if !attrs.is_empty() || tag == "body" {
            return ElementType::Attrs { tag, attrs };
        }
        match untyped {
            Untyped::Dfs => ElementType::Dfs {
                tag,
                dfs: doc.element(id).map_or(0, |e| e.dfs),
            },
            Untyped::Anchored => {
                let mut path = vec![tag];
                let mut anchor = None;
                for a in doc.ancestors(id) {
                    if doc.tag(a) == "tbody" {
                        continue;
                    }
                    let attrs = identity_attrs(doc, a);
                    if !attrs.is_empty() {
                        anchor = Some(Box::new(ElementType::Attrs {
                            tag: doc.tag(a).to_string(),
                            attrs,
                        }));
                        break;
                    }
                    if doc.tag(a) == "body" {
                        break;
                    }
                    path.push(doc.tag(a).to_string());
                }
                path.reverse();
                ElementType::Anchored { anchor, path }
            }
        }
    }

    /// Whether element `id`, at `level` (see [`levels`]), has this type: the
    /// test the portable XPath makes. For `Attrs`, every attribute of the
    /// type must be present with the same tolerant form (others may be
    /// present too); a `Dfs` type matches only the element at that number;
    /// `Anchored` is described on the variant.
    pub fn matches(&self, doc: &Document, id: NodeId, level: u32, levels: &[u32]) -> bool {
        match self {
            ElementType::Attrs { tag, attrs } => {
                doc.tag(id) == tag
                    && attrs.iter().all(|(name, value)| {
                        doc.attr(id, name)
                            .is_some_and(|v| tolerant_form(v) == *value)
                    })
            }
            ElementType::Dfs { tag, dfs } => {
                doc.tag(id) == tag && doc.element(id).is_some_and(|e| e.dfs == *dfs)
            }
            ElementType::Anchored { anchor, path } => {
                let Some(own) = path.last() else {
                    return false;
                };
                let Some(anchor_level) = level.checked_sub(path.len() as u32) else {
                    return false;
                };
                doc.tag(id) == own
                    && doc.ancestors(id).any(|a| {
                        levels[a] == anchor_level
                            && doc.tag(a) != "tbody"
                            && match anchor.as_deref() {
                                Some(t) => t.matches(doc, a, anchor_level, levels),
                                None => doc.tag(a) == "body",
                            }
                    })
            }
        }
    }

    /// XPath 1.0 predicates testing the identity attributes' tolerant forms.
    fn portable_predicates(tag: &str, attrs: &[(String, String)], out: &mut String) {
        out.push_str(tag);
        for (name, value) in attrs {
            // translate(first token of the value, digits, '') = value
            let _ = write!(
                out,
                "[translate(substring-before(concat(normalize-space(@{name}),' '),' '),'0123456789','')={}]",
                xpath_literal(value)
            );
        }
    }

    /// The paper's form of the type (`div[contains(@class,'story')]`,
    /// `p[@dfs='98']`), with `extra` added to the last step's predicate.
    pub fn paper_form(&self, extra: Option<&str>) -> String {
        match self {
            ElementType::Attrs { tag, attrs } => {
                let mut preds: Vec<String> = attrs
                    .iter()
                    .map(|(n, v)| format!("contains(@{n},{})", xpath_literal(v)))
                    .collect();
                preds.extend(extra.map(str::to_string));
                if preds.is_empty() {
                    tag.clone()
                } else {
                    format!("{tag}[{}]", preds.join(" and "))
                }
            }
            // The dfs number is the type: nothing to add.
            ElementType::Dfs { tag, dfs } => format!("{tag}[@dfs='{dfs}']"),
            ElementType::Anchored { anchor, path } => {
                let mut s = anchor
                    .as_ref()
                    .map_or_else(|| "body".to_string(), |a| a.paper_form(None));
                for t in path {
                    s.push('/');
                    s.push_str(t);
                }
                if let Some(extra) = extra {
                    s.push_str(&format!("[{extra}]"));
                }
                s
            }
        }
    }

    /// A portable XPath 1.0 expression for elements of this type at
    /// `level` (see [`levels`]), evaluated on the raw page by any engine.
    /// `None` for `Dfs` types, which only exist in the `dfs`-annotated tree.
    pub fn portable_xpath(&self, level: u32) -> Option<String> {
        let mut out = String::from("//");
        match self {
            ElementType::Attrs { tag, attrs } => {
                Self::portable_predicates(tag, attrs, &mut out);
                out.push_str(&level_test(level));
            }
            ElementType::Dfs { .. } => return None,
            ElementType::Anchored { anchor, path } => {
                let own = path.last()?;
                let anchor_level = level.checked_sub(path.len() as u32)?;
                out.push_str(own);
                out.push_str(&level_test(level));
                out.push_str("[ancestor::");
                match anchor.as_deref() {
                    Some(ElementType::Attrs { tag, attrs }) => {
                        Self::portable_predicates(tag, attrs, &mut out)
                    }
                    _ => out.push_str("body"),
                }
                out.push_str(&level_test(anchor_level));
                out.push(']');
            }
        }
        Some(out)
    }
}

/// A string as an XPath 1.0 literal (XPath 1.0 has no escapes: use the
/// other quote, or concat() when the value holds both).
pub fn xpath_literal(s: &str) -> String {
    if !s.contains('\'') {
        format!("'{s}'")
    } else if !s.contains('"') {
        format!("\"{s}\"")
    } else {
        let parts: Vec<String> = s.split('\'').map(|p| format!("'{p}'")).collect();
        format!("concat({})", parts.join(",\"'\","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    #[test]
    fn tolerant_form_keeps_the_first_token_without_digits() {
        // forest.md §3.2: "post wrapper-02" and "post wrapper-09" are both "post".
        assert_eq!(tolerant_form("post wrapper-02"), "post");
        assert_eq!(tolerant_form("post wrapper-09"), "post");
        assert_eq!(tolerant_form("  entry-123 x"), "entry-");
        assert_eq!(tolerant_form(""), "");
    }

    fn doc(html: &str) -> Document {
        Document::parse(html, &DomOptions::default())
    }

    fn find(doc: &Document, tag: &str, nth: usize) -> NodeId {
        (0..doc.len())
            .filter(|&n| doc.tag(n) == tag)
            .nth(nth)
            .unwrap()
    }

    #[test]
    fn types_from_attributes_dfs_and_anchors() {
        let d = doc("<body><div class='post wrapper-02' id='p7' data-x='1'><table><tr><td>a</td></tr></table></div></body>");
        let div = find(&d, "div", 0);
        assert_eq!(
            ElementType::of(&d, div, Untyped::Dfs),
            ElementType::Attrs {
                tag: "div".into(),
                attrs: vec![("class".into(), "post".into()), ("id".into(), "p".into())]
            }
        );
        let td = find(&d, "td", 0);
        let dfs = d.element(td).unwrap().dfs;
        assert_eq!(
            ElementType::of(&d, td, Untyped::Dfs),
            ElementType::Dfs {
                tag: "td".into(),
                dfs
            }
        );
        let anchored = ElementType::of(&d, td, Untyped::Anchored);
        assert_eq!(
            anchored.paper_form(None),
            "div[contains(@class,'post') and contains(@id,'p')]/table/tr/td"
        );
        let lv = levels(&d);
        // html 0, body 1, div 2, table 3, (tbody), tr 4, td 5.
        assert_eq!((lv[div], lv[td]), (2, 5));
        assert!(anchored.matches(&d, td, lv[td], &lv));
        assert!(!anchored.matches(&d, div, lv[div], &lv));
        assert_eq!(
            anchored.portable_xpath(5).unwrap(),
            "//td[count(ancestor::*[not(self::tbody)])=5][ancestor::div\
             [translate(substring-before(concat(normalize-space(@class),' '),' '),'0123456789','')='post']\
             [translate(substring-before(concat(normalize-space(@id),' '),' '),'0123456789','')='p']\
             [count(ancestor::*[not(self::tbody)])=2]]"
        );
    }

    #[test]
    fn attribute_names_that_xpath_cannot_write_are_not_identity() {
        let d = doc("<body><div class=a 2px=1 \"=x>t</div></body>");
        let div = find(&d, "div", 0);
        assert_eq!(
            identity_attrs(&d, div),
            vec![("class".to_string(), "a".to_string())]
        );
    }

    #[test]
    fn literals_survive_both_quotes() {
        assert_eq!(xpath_literal("a"), "'a'");
        assert_eq!(xpath_literal("it's"), "\"it's\"");
        assert_eq!(xpath_literal("a'b\"c"), "concat('a',\"'\",'b\"c')");
    }
}
