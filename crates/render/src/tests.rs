use canopy_dom::{Document, DomOptions, NodeId};
use url::Url;

use crate::CleanTree;

fn tree(html: &str, keep: &dyn Fn(&Document, NodeId) -> bool) -> CleanTree {
    let doc = Document::parse(html, &DomOptions::default());
    let root = (0..doc.len())
        .find(|&n| doc.attr(n, "id") == Some("a"))
        .unwrap();
    let base = Url::parse("https://site.example/news/story.html").unwrap();
    CleanTree::build(&doc, &[root], &|n| keep(&doc, n), Some(&base))
}

fn all(_: &Document, _: NodeId) -> bool {
    true
}

#[test]
fn unsafe_markup_goes_and_urls_become_absolute() {
    let t = tree(
        r#"<div id=a style="color:red"><p onclick="steal()" class=x>Read
        <a href="javascript:alert(1)">this</a>, <a href="../more.html" onmouseover="x()">that</a>
        and <a href="mailto:a@b.c">mail</a>.</p><script>evil()</script>
        <iframe src="https://ads.example"></iframe><form action="/s"><input name=q>
        <button>Go</button><p>Kept in a form.</p></form>
        <figure><img src="data:image/gif;base64,R0l" data-src="/img/a.jpg" alt="A &quot;cat&quot;">
        <figcaption>The <em>cat</em></figcaption></figure></div>"#,
        &all,
    );
    let html = tree_html(&t);
    assert_eq!(
        html,
        "<p>Read this, <a href=\"https://site.example/more.html\">that</a> and mail.</p>\n\
         <p>Kept in a form.</p>\n\
         <figure>\n<img src=\"https://site.example/img/a.jpg\" alt=\"A &quot;cat&quot;\"><figcaption>The <em>cat</em></figcaption>\n</figure>\n"
    );
    for bad in [
        "<script",
        "onclick",
        "onmouseover",
        "javascript:",
        "style=",
        "<iframe",
        "<form",
        "<input",
        "<button",
    ] {
        assert!(!html.contains(bad), "{bad} in {html}");
    }
    assert_eq!(
        t.markdown(),
        "Read this, [that](https://site.example/more.html) and mail.\n\n\
         Kept in a form.\n\n\
         ![A \"cat\"](https://site.example/img/a.jpg)\n\nThe *cat*\n"
    );
}

fn tree_html(t: &CleanTree) -> String {
    t.html()
}

#[test]
fn containers_lists_tables_and_quotes() {
    let t = tree(
        "<div id=a><div>First line<div>Second <span>line</span></div></div>\
         <h3> A  heading </h3><ul><li>one</li> <li>two <b>bold </b>x</li></ul>\
         <ol><li>first</li><li><p>para</p><ul><li>nested</li></ul></li></ol>\
         <table><tr><th>k</th><th>v|w</th></tr><tr><td>1</td><td>2</td></tr></table>\
         <blockquote><p>Quoted</p><p>Twice</p></blockquote><pre>  a\n    b</pre>\
         <p>1. not a list * star</p></div>",
        &all,
    );
    assert_eq!(
        t.markdown(),
        "First line\n\nSecond line\n\n### A heading\n\n- one\n- two **bold** x\n\n\
         1. first\n2. para\n\n   - nested\n\n\
         | k | v\\|w |\n| --- | --- |\n| 1 | 2 |\n\n\
         > Quoted\n>\n> Twice\n\n```\n  a\n    b\n```\n\n1\\. not a list \\* star\n"
    );
    let html = t.html();
    assert!(
        html.contains("<table>\n<tbody>\n<tr>\n<th>k</th>\n<th>v|w</th>\n</tr>"),
        "{html}"
    );
}

#[test]
fn layout_tables_are_unwrapped() {
    let t = tree(
        "<table id=a><tr><td><p>Story one.</p><p>Story two.</p></td><td>Side</td></tr></table>",
        &all,
    );
    assert_eq!(
        t.html(),
        "<p>Story one.</p>\n<p>Story two.</p>\n<p>Side</p>\n"
    );
}

#[test]
fn dropped_nodes_are_dropped_with_their_subtree() {
    // The caller's `keep` (residue, link density) removes the share bar.
    let t = tree(
        "<div id=a><p>Story.</p><ul class=share><li><a href=/f>Facebook</a></li></ul></div>",
        &|d, n| d.attr(n, "class") != Some("share"),
    );
    assert_eq!(t.html(), "<p>Story.</p>\n");
    let empty = tree("<div id=a><p> </p><a href=/x></a></div>", &all);
    assert!(empty.is_empty());
    assert_eq!(empty.markdown(), "");
}

#[test]
fn nested_emphasis_is_not_doubled() {
    let t = tree(
        "<div id=a><h2><strong>Bold title</strong></h2><p><strong>Lead <b>Name</b> (x)</strong> \
         and <em>it <i>is</i></em></p></div>",
        &all,
    );
    assert_eq!(
        t.markdown(),
        "## Bold title\n\n**Lead Name (x)** and *it is*\n"
    );
}
