//! Sigfeed on hand-built pages.

use canopy_dom::{Document, DomOptions, NodeId};
use canopy_extract::sigfeed;

fn by_id(doc: &Document, id: &str) -> NodeId {
    (0..doc.len())
        .find(|&n| doc.attr(n, "id") == Some(id))
        .unwrap_or_else(|| panic!("no #{id}"))
}

const PAGE: &str = "<body>\
    <div id=nav><a href=/>Home</a> <a href=/tech>Technology</a> <a href=/ipod>iPod deals</a></div>\
    <div id=main>\
      <div id=headline><h1>Apple iPod sets sights on video</h1></div>\
      <div id=story>\
        <p>Apple has set its sights on conquering the world of portable video with the \
        launch of a sound and vision version of its iconic iPod.</p>\
        <p>It is looking to build on the success of its digital music player.</p>\
        <p>Rivals already sell video players, and analysts expect a price war.</p>\
      </div>\
      <div id=related><a href=/a>Apple results</a><a href=/b>Video games sales</a></div>\
    </div>\
    <div id=footer>Copyright</div></body>";

#[test]
fn picks_the_lowest_div_with_the_most_keywords() {
    let doc = Document::parse(PAGE, &DomOptions::default());
    // Title and description words minus stop words, as the caller passes them.
    let keywords = [
        "apple",
        "ipod",
        "sets",
        "sights",
        "video",
        "conquering",
        "world",
        "portable",
        "launch",
    ];
    let nodes = sigfeed(&doc, &keywords);
    // The story div owns the most distinct keywords (the headline div only
    // the title's); its ancestor #main owns no text of its own.
    assert_eq!(nodes, vec![by_id(&doc, "story")]);
    let text = doc.inner_text(nodes[0]);
    assert!(text.starts_with("Apple has set its sights"), "{text}");
    assert!(!text.contains("Copyright"));
}

#[test]
fn title_keywords_alone_pick_the_headline() {
    let doc = Document::parse(PAGE, &DomOptions::default());
    // Only words that occur in the headline and nowhere else.
    assert_eq!(sigfeed(&doc, &["sets"]), vec![by_id(&doc, "headline")]);
}

#[test]
fn keywords_are_case_insensitive_and_stems_match() {
    let doc = Document::parse(PAGE, &DomOptions::default());
    // "analyst" is a stem of "analysts", "Rivals" matches "rival".
    assert_eq!(
        sigfeed(&doc, &["Analyst", "rival"]),
        vec![by_id(&doc, "story")]
    );
}

#[test]
fn no_keyword_on_the_page_gives_nothing() {
    let doc = Document::parse(PAGE, &DomOptions::default());
    assert!(sigfeed(&doc, &["zeppelin"]).is_empty());
    assert!(sigfeed(&doc, &[]).is_empty());
}

/// Table layouts: a `td` plays the part of the div.
#[test]
fn table_cells_are_blocks() {
    let doc = Document::parse(
        "<body><table><tr><td id=menu>Home News</td>\
         <td id=cell><b>Flood</b> waters rose along the river, and the flood warning stayed \
         in place.</td></tr></table></body>",
        &DomOptions::default(),
    );
    assert_eq!(
        sigfeed(&doc, &["flood", "river"]),
        vec![by_id(&doc, "cell")]
    );
}
