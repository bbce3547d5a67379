//! An article's selection as clean, safe HTML and as Markdown.
//!
//! [`CleanTree::build`] walks the nodes the article's text came from (the
//! wrapper's or method's selection, minus what the caller's `keep`
//! predicate drops: template residue and link-dense blocks) and keeps a
//! small safe set of elements:
//!
//! - blocks: `h1`–`h6`, `p`, `ul`, `ol`, `li`, `table`, `thead`, `tbody`,
//!   `tr`, `th`, `td`, `blockquote`, `figure`, `figcaption`, `pre`;
//! - inline: `a` (absolute http(s) `href` only), `img` (absolute http(s)
//!   `src`, and `alt`), `br`, `em`, `strong`, `b`, `i`, `code`.
//!
//! Every other attribute goes (event handlers, styles, ids). Form controls
//! are dropped with their content; the DOM has already dropped scripts,
//! styles, iframes and hidden elements. Other elements are unwrapped: their
//! content stays, and the content of a block container (`div`, `section`…)
//! is set in paragraphs so its lines stay apart. A table one of whose cells
//! holds blocks is a layout table and is unwrapped too.
//!
//! [`CleanTree::html`] serialises the tree; [`CleanTree::markdown`]
//! renders it as CommonMark (with GFM tables).
//!
//! ```
//! use canopy_dom::{Document, DomOptions};
//! use canopy_render::CleanTree;
//! let doc = Document::parse(
//!     r#"<div id=a onclick="x()"><h2>Title</h2><div>Some <b>bold</b> text
//!        <img src="/i.png" alt="An image" onerror="y()"></div>
//!        <a href="javascript:z()">bad</a></div>"#,
//!     &DomOptions::default(),
//! );
//! let div = (0..doc.len()).find(|&n| doc.tag(n) == "div").unwrap();
//! let base = url::Url::parse("http://example.com/a/b.html").unwrap();
//! let tree = CleanTree::build(&doc, &[div], &|_| true, Some(&base));
//! assert_eq!(
//!     tree.html(),
//!     "<h2>Title</h2>\n<p>Some <b>bold</b> text <img src=\"http://example.com/i.png\" alt=\"An image\"></p>\n<p>bad</p>\n"
//! );
//! assert_eq!(
//!     tree.markdown(),
//!     "## Title\n\nSome **bold** text ![An image](http://example.com/i.png)\n\nbad\n"
//! );
//! ```

mod html;
mod markdown;
mod tree;

pub use tree::{CleanTree, Node};

#[cfg(test)]
mod tests;
