//! A page's skeleton ([`Pass::skeleton`]): the part of a page of a known
//! template that needs parsing, in place of the whole page.

use crate::scan::{scan, Token};
use crate::tree::{Ancestor, Pass, Region};

impl Pass {
    /// The page's skeleton, to parse in place of the page: the page up to
    /// its body (the head, with its title, metadata and language; without
    /// its scripts, other than JSON-LD, and styles, which the tree drops),
    /// the body's start tag, then every region of any pattern, and every
    /// element metadata reads wherever it stands ([`Pass::extras`]), that
    /// is inside no other, in document order, each inside its ancestors'
    /// start tags. An ancestor's start tag is copied from the page (with
    /// its attributes: the patterns' anchors are typed by them), or written
    /// bare where the tree builder implied the element; regions with
    /// ancestors in common share them, and an ancestor is closed where the
    /// next region is not inside it. Each region keeps its level and its
    /// ancestors' tags, ids and classes, so a wrapper's pattern matches it
    /// there as in the page.
    pub fn skeleton(&self, html: &str) -> String {
        let mut regions: Vec<&Region> = self.regions.iter().flatten().chain(&self.extras).collect();
        regions.sort_by_key(|r| (r.bytes.start, std::cmp::Reverse(r.bytes.end)));
        let mut out = String::with_capacity(
            self.body_at + regions.iter().map(|r| r.bytes.len()).sum::<usize>() + 256,
        );
        push_head(html.get(..self.body_at).unwrap_or(""), &mut out);
        out.push_str(start_tag_at(html, self.body_at, "body").unwrap_or("<body>"));
        let mut open: Vec<&Ancestor> = Vec::new();
        let mut end = 0;
        for region in regions {
            if region.bytes.start < end {
                // Inside the region before it (another pattern's match).
                continue;
            }
            end = region.bytes.end;
            let shared = open
                .iter()
                .zip(&region.ancestors)
                .take_while(|(a, b)| a.element == b.element)
                .count();
            for ancestor in open.drain(shared..).rev() {
                out.push_str("</");
                out.push_str(&ancestor.tag);
                out.push('>');
            }
            for ancestor in &region.ancestors[shared..] {
                match start_tag_at(html, ancestor.start, &ancestor.tag) {
                    Some(tag) if ancestor.named => {
                        // Marked kept: it holds less of the skeleton's text
                        // than of the page's, which keeps it.
                        out.push_str(tag.strip_suffix('>').unwrap_or(tag));
                        out.push(' ');
                        out.push_str(canopy_dom::KEPT_MARK);
                        out.push('>');
                    }
                    Some(tag) => out.push_str(tag),
                    None => {
                        out.push('<');
                        out.push_str(&ancestor.tag);
                        out.push('>');
                    }
                }
                open.push(ancestor);
            }
            out.push_str(html.get(region.bytes.clone()).unwrap_or(""));
        }
        out
    }
}

/// The part of a page before its body, less its comments, its styles and
/// its scripts other than JSON-LD (`canopy_dom::is_json_ld_type`): the
/// tree drops them, and a page's head is mostly them.
fn push_head(head: &str, out: &mut String) {
    // The raw-text element being left out.
    let mut skipping: Option<&'static str> = None;
    let _ = scan(head, |token| -> Result<(), ()> {
        let span = match token {
            Token::Start {
                name, attrs, span, ..
            } => {
                if skipping.is_some() {
                    return Ok(());
                }
                skipping = match name {
                    "style" => Some("style"),
                    "script" if !attrs.get("type").is_some_and(canopy_dom::is_json_ld_type) => {
                        Some("script")
                    }
                    _ => None,
                };
                if skipping.is_some() {
                    return Ok(());
                }
                span
            }
            Token::End { name, span } => {
                if let Some(tag) = skipping {
                    if tag == name {
                        skipping = None;
                    }
                    return Ok(());
                }
                span
            }
            Token::Text(range) | Token::Doctype(range) => {
                if skipping.is_some() {
                    return Ok(());
                }
                range
            }
            Token::Comment => return Ok(()),
        };
        out.push_str(head.get(span).unwrap_or(""));
        Ok(())
    });
}

/// The start tag of `tag` at byte `at` of the page, if one is there (an
/// element the tree builder implied has none).
fn start_tag_at<'a>(html: &'a str, at: usize, tag: &str) -> Option<&'a str> {
    let rest = html.get(at..)?;
    let mut found = None;
    let _ = scan(rest, |token| {
        if let Token::Start { name, span, .. } = token {
            if name == tag {
                found = rest.get(span);
            }
        }
        // The first token is all that is read.
        Err(())
    });
    found
}

#[cfg(test)]
mod tests;
