use super::*;

/// The tokens of `html`, written out: `<name a=v>`, `</name>`, `"text"`.
fn tokens(html: &str) -> Result<Vec<String>, Stop<()>> {
    let mut out = Vec::new();
    scan(html, |t| {
        out.push(match t {
            Token::Start {
                name,
                attrs,
                self_closing,
                ..
            } => {
                let attrs: String = attrs
                    .iter()
                    .map(|a| format!(" {}={}", a.name, a.value))
                    .collect();
                format!("<{name}{attrs}{}>", if self_closing { "/" } else { "" })
            }
            Token::End { name, .. } => format!("</{name}>"),
            Token::Text(r) => format!("{:?}", html.get(r).unwrap_or("")),
            Token::Doctype(r) => format!("doctype {}", html.get(r).unwrap_or("")),
            Token::Comment => "comment".to_string(),
        });
        Ok::<(), ()>(())
    })?;
    Ok(out)
}

#[test]
fn tags_attributes_and_text() {
    assert_eq!(
        tokens(r#"<DIV Class="a b" id=x data-q='1>2' hidden>t</Div>"#).unwrap(),
        ["<div class=a b id=x data-q=1>2 hidden=>", "\"t\"", "</div>"]
    );
    // The first of two attributes of one name; `/` before `>` self-closes.
    assert_eq!(
        tokens(r#"<img src=a SRC=b alt=""/>"#).unwrap(),
        ["<img src=a alt=/>"]
    );
}

#[test]
fn comments_doctypes_and_bogus_comments_are_not_tags() {
    assert_eq!(
        tokens("<!DOCTYPE html><!-- <p> --><!--><p><!--->x<?php <b> ?></1 <i>><!-- a --!><i>")
            .unwrap(),
        [
            "doctype <!DOCTYPE html>",
            "comment",
            "comment",
            "<p>",
            "comment",
            "\"x\"",
            "comment",
            "\" ?>\"",
            "comment",
            "\">\"",
            "comment",
            "<i>"
        ]
    );
    // `</>` is nothing; `<` before a non-letter is text.
    assert_eq!(tokens("a</>b < c<3").unwrap(), ["\"a\"", "\"b < c<3\""]);
}

#[test]
fn raw_text_runs_to_its_own_end_tag() {
    assert_eq!(
        tokens("<style>p</style ><title><b></titles></title><p>").unwrap(),
        [
            "<style>",
            "\"p\"",
            "</style>",
            "<title>",
            "\"<b></titles>\"",
            "</title>",
            "<p>"
        ]
    );
    // A script's escaped part: a `<script>` in it hides the next
    // `</script>`.
    let script = r#"<script><!-- document.write("<script>x</script>"); --></script><p>"#;
    assert_eq!(
        tokens(script).unwrap(),
        [
            "<script>",
            r#""<!-- document.write(\"<script>x</script>\"); -->""#,
            "</script>",
            "<p>"
        ]
    );
    // `<!-->` opens and closes an escaped part at once.
    assert_eq!(
        tokens("<script><!--><script></script><p>").unwrap(),
        ["<script>", "\"<!--><script>\"", "</script>", "<p>"]
    );
    // Unclosed: the rest of the page is its text.
    assert_eq!(tokens("<textarea><p>").unwrap(), ["<textarea>", "\"<p>\""]);
}

#[test]
fn foreign_content_is_one_element() {
    assert_eq!(
        tokens("<svg><title>t</title><style>a<b</style><path/><![CDATA[<p>]]></svg><p>").unwrap(),
        ["<svg>", "</svg>", "<p>"]
    );
    assert_eq!(tokens("<math/><p>").unwrap(), ["<math/>", "<p>"]);
    // An HTML element or an end tag naming nothing open would take the
    // tree builder out of foreign content: the scan stops.
    assert_eq!(tokens("<svg><g><div>"), Err(Stop::ForeignBreakout));
    assert_eq!(tokens("<svg><g></span>"), Err(Stop::ForeignBreakout));
    assert_eq!(tokens("<svg><title><a>"), Err(Stop::ForeignBreakout));
}

#[test]
fn a_tag_cut_by_the_end_of_the_page_is_dropped() {
    assert_eq!(tokens("<p>a<div class=\"x").unwrap(), ["<p>", "\"a\""]);
    assert_eq!(tokens("<p>a</div").unwrap(), ["<p>", "\"a\""]);
    assert_eq!(tokens("\u{FEFF}<p>").unwrap(), ["<p>"]);
}

#[test]
fn the_first_token_of_a_value_is_the_trees_unless_it_holds_a_reference() {
    let attr = |value| Attr {
        name: Cow::Borrowed("class"),
        value,
    };
    assert!(!attr("post a&amp;b").first_token_has_char_ref());
    assert!(attr("a&#32;b").first_token_has_char_ref());
}
