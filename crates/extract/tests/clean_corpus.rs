//! The selection-cleaning rules on real corpus pages: each test shows the
//! rule removing what the gold leaves out, and its off switch keeping it.

mod common;

use canopy_dom::{Document, DomOptions};
use canopy_extract::{clean_text, CleanOptions, Residue};
use common::page;

/// A selection of a page cleaned with the default options, and with one
/// rule switched off by `off`. The selection is the lowest element holding
/// both the text `story` (the article's) and `other` (what the rule is
/// about): the article's container.
fn cleaned(
    corpus: &str,
    id: &str,
    story: &str,
    other: &str,
    off: fn(&mut CleanOptions),
) -> (String, String, String) {
    let (doc, gold) = page(corpus, id);
    let find = |s: &str| {
        (0..doc.len())
            .find(|&n| doc.text(n).is_some_and(|t| t.contains(s)))
            .unwrap_or_else(|| panic!("{s:?} is on the page"))
    };
    let (a, b) = (find(story), find(other));
    let mut root = a;
    while !doc.contains(root, b) {
        root = doc.node(root).parent.expect("a common ancestor");
    }
    let residue = Residue::default();
    let on = CleanOptions::default();
    let mut without = on.clone();
    off(&mut without);
    (
        clean_text(&doc, &[root], &residue, &on),
        clean_text(&doc, &[root], &residue, &without),
        gold,
    )
}

/// The whole body of a small page, cleaned with the default options.
fn cleaned_body(html: &str) -> String {
    let doc = Document::parse(html, &DomOptions::default());
    clean_text(
        &doc,
        &[doc.body()],
        &Residue::default(),
        &CleanOptions::default(),
    )
}

/// cbsnews: "© 2012 CBS Interactive Inc. All Rights Reserved. This material
/// may not be published…" closes the story in a `<span>`; the gold ends
/// before it.
#[test]
fn a_copyright_notice_goes() {
    let notice = "All Rights Reserved. This material may not be published";
    let (on, off, gold) = cleaned(
        "dragnet",
        "dragnet-00114",
        "bio-medical waste",
        notice,
        |o| o.notices = false,
    );
    assert!(!gold.contains(notice));
    assert!(!on.contains(notice), "the notice must go");
    assert!(off.contains(notice), "without the rule the notice stays");
    assert!(on.contains("bio-medical waste"), "the story stays");
}

/// bbc 2013: under the story, a box headed "More Europe stories", a heading
/// that is one link (to the section), holds the section's headlines, the
/// first with its blurb; the gold leaves the box out. Under half of the
/// box's text is links, and its label is no template residue (it names the
/// story's section): the linked heading alone marks it as a box of teasers.
#[test]
fn a_box_under_a_heading_linking_to_its_section_goes() {
    let blurb = "As much as $30bn";
    let (on, off, gold) = cleaned(
        "big9",
        "big9-00139",
        "Jovica Stanisic and Franko Simatovic",
        "More Europe stories",
        |o| o.link_density = f64::INFINITY,
    );
    assert!(!gold.contains(blurb) && !gold.contains("More Europe stories"));
    assert!(!on.contains(blurb), "the box must go: {on}");
    assert!(!on.contains("More Europe stories"), "{on}");
    assert!(off.contains(blurb), "without the link rules the box stays");
    assert!(
        on.contains("Jovica Stanisic and Franko Simatovic"),
        "the story stays"
    );
}

/// thecarconnection: the e-mail sign-up form ("We'll send you an email
/// whenever there's new information…") and the price-quote request form
/// sit among the review's blocks; the gold has neither.
#[test]
fn a_form_goes() {
    let form = "We'll send you an email whenever there's new information";
    let (on, off, gold) = cleaned("dragnet", "dragnet-00430", "AcuraLink", form, |o| {
        o.forms = false
    });
    assert!(!gold.contains(form));
    assert!(!on.contains(form), "the form must go");
    assert!(off.contains(form), "without the rule the form stays");
    assert!(on.contains("next-generation AcuraLink Communication system"));
}

/// A page laid out inside one form (old ASP.NET pages): the form holds the
/// selection's text and stays.
#[test]
fn a_form_holding_the_selection_stays() {
    let html = "<body><form><p>The whole story sits in the page's form.</p>\
                <div><label>Name</label><input></div></form></body>";
    let text = cleaned_body(html);
    assert_eq!(text, "The whole story sits in the page's form.\nName");
}

/// tweetrightbrain: a quoted post closes with "via <fubiz.net>", the source
/// it comes from, which the gold keeps. Three quarters of the line is link
/// text, so the link-density rule would drop it as a link list.
#[test]
fn an_attribution_stays() {
    let (on, off, gold) = cleaned(
        "dragnet",
        "dragnet-00003",
        "Repurposing food as art",
        "fubiz.net",
        |o| o.attributions = false,
    );
    assert!(gold.contains("via fubiz.net"));
    assert!(on.contains("via fubiz.net"), "the attribution must stay");
    assert!(!off.contains("fubiz.net"), "without the rule it goes");
}

/// The same line linking into the page's own site is a link list, and
/// goes: an attribution points elsewhere.
#[test]
fn a_line_linking_into_the_site_is_no_attribution() {
    let html = "<body><div><p>The post's own words, long enough to be prose.</p>\
                <div>via <a href='http://blog.example.org/about'>our archive</a></div>\
                <div>via <a href='http://elsewhere.example.com/x'>elsewhere.com</a></div>\
                <a href='http://blog.example.org/'>Home</a>\
                <a href='/2012/'>2012</a></div>\
                <a href='http://blog.example.org/feed'>Feed</a></body>";
    let text = cleaned_body(html);
    assert!(text.contains("via elsewhere.com"), "{text}");
    assert!(!text.contains("our archive"), "{text}");
}

/// arstechnica's Dealmaster: the post is a list of deals, each a shop's
/// link (bit.ly) and its price; the gold keeps them. Most of each item is
/// link text, so the link-density rule would drop it as a related list;
/// its links leave the site, a related list's stay on it.
#[test]
fn a_list_of_other_sites_pages_stays() {
    let deal = "2TB WD My Passport USB 3.0 Portable Hard Drive";
    let (on, off, gold) = cleaned(
        "dragnet",
        "dragnet-00487",
        "the Dealmaster has delivered",
        deal,
        |o| o.offsite_lists = false,
    );
    assert!(gold.contains(deal));
    assert!(on.contains(deal), "the deals must stay");
    assert!(!off.contains(deal), "without the rule they go");
    assert!(on.contains("the Dealmaster has delivered"));
}

/// The same list linking into the page's own domain (another host of it)
/// is a related list and goes; so do share buttons, whose links are short.
#[test]
fn lists_linking_into_the_domain_or_short_links_go() {
    let prose = "The post's own words, long enough to be prose. ".repeat(6);
    let html = format!(
        "<body><div><p>{prose}</p>\
                <ul><li><a href='http://news.example.org/a'>A related post of this site's network</a></li>\
                <li><a href='http://news.example.org/b'>Another related post of the network</a></li></ul>\
                <ul><li><a href='http://facebook.com/share'>Facebook</a></li>\
                <li><a href='http://twitter.com/share'>Tweet</a></li></ul>\
                <ul><li><a href='http://shop.example.com/x'>A camera with a long product name</a> for $5</li></ul>\
                <a href='http://blog.example.org/'>Home</a> <a href='/2012/'>2012</a></div>\
                <a href='http://blog.example.org/feed'>Feed</a></body>"
    );
    let text = cleaned_body(&html);
    assert!(text.contains("A camera with a long product name"), "{text}");
    assert!(!text.contains("related post"), "{text}");
    assert!(!text.contains("Facebook"), "{text}");
}

/// cnn: two Instagram posts embedded in the story (the blockquote of
/// Instagram's embed code, "A post shared by …"); the gold leaves them out.
#[test]
fn an_embedded_instagram_post_goes() {
    let post = "A post shared by Emma Herzfeld";
    let (on, off, gold) = cleaned("big9", "big9-00163", "Airlie Beach", post, |o| {
        o.media_text.retain(|name| name != "instagram-media")
    });
    assert!(!gold.contains(post));
    assert!(!on.contains(post), "the embedded post must go");
    assert!(off.contains(post), "without the name it stays");
    assert!(on.contains("Airlie Beach"));
}

/// fabsugar: under the post, a "Link Love" box lists other sites' stories
/// ("Why is Taylor Swift in a dress predicament? — People Style Watch");
/// the gold leaves it out. Its links leave the site like a roundup's, but
/// the box opens with a label of its own: a promotion, not the post's list.
#[test]
fn a_labelled_box_of_other_sites_pages_goes() {
    let link = "Why is Taylor Swift in a dress predicament?";
    let (on, _, gold) = cleaned(
        "dragnet",
        "dragnet-00595",
        "The art of balancing bright hues",
        link,
        |_| {},
    );
    assert!(!gold.contains(link));
    assert!(!on.contains(link), "the labelled box must go");
    assert!(on.contains("The art of balancing bright hues"));
}

/// johndcook: the post ends with a bold "Related posts:" over a paragraph
/// of links to other posts; the links go as a link-dense block, and the
/// gold leaves out the label too. "From <Brian Phillips>:", a line ending
/// in a colon over the quote it introduces, stays.
#[test]
fn a_label_whose_links_went_goes() {
    let (on, off, gold) = cleaned(
        "dragnet",
        "dragnet-00047",
        "we need not marvel",
        "Audible confetti",
        |o| o.orphan_labels = false,
    );
    assert!(!gold.contains("Related posts"));
    assert!(!on.contains("Related posts"), "the label must go");
    assert!(off.contains("Related posts"), "without the rule it stays");
    assert!(on.contains("From Brian Phillips:") && on.contains("we need not marvel"));
}
