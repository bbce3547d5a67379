//! The article's container, and the roots of the selection around it.

use canopy_dom::{Document, NodeId};

use super::blocks::Blocks;
use super::roles::{is_content_element, Roles};

/// How much a container's worth keeps per level between the article's
/// heading and where the container meets it: a block in the heading's own
/// branch of the page is the article's, one that meets it only at the
/// page's wrapper is a sidebar or a footer. 0.7 a level: a sidebar five
/// levels off needs six times the article's worth to win. Chosen on
/// trafbench and dragnet's single pages among 1.0, 0.8, 0.7 and 0.6
/// (docs/quality-log.md).
const HEADING_DECAY: f64 = 0.7;

/// How much a container's names raise or lower its worth, per unit of name
/// weight (log odds, at most ±3): ±10 % a unit, so names break near ties
/// between nested containers and never outweigh the text.
const NAME_BOOST: f64 = 0.1;

/// A credible container inside the best one replaces it when it holds at
/// least this share of the best one's prose: most of it. Chosen on
/// trafbench among 0.5, 0.7 and 0.85 (docs/quality-log.md).
const NARROW_SHARE: f64 = 0.7;

/// Name weight (log odds) from which a container is credible by its names
/// alone: e ≈ 2.7 times any name's odds of naming article text ("entry",
/// "content", "hentry", "body" in the default prior).
const CREDIBLE_NAME: f64 = 1.0;

/// A sibling of the article's container that is not a prose block
/// (a `div`, a list, a section) joins the selection when it is worth at
/// least this share of the container: a second column of the body is,
/// a box of teasers or an author box beside a whole article is not.
/// Chosen on trafbench among 0 (any sibling worth something), 0.05, 0.1,
/// 0.2, 0.35 and 0.5: from 0.2 on the same boxes stay out.
const SIBLING_SHARE: f64 = 0.2;

/// The roots of the article's selection.
pub(super) fn selection(
    doc: &Document,
    heading: Option<NodeId>,
    blocks: &Blocks,
    roles: &Roles,
    value: &[f64],
) -> Vec<NodeId> {
    let body = doc.body();
    let best = narrowed(
        doc,
        container(doc, heading, roles, value),
        heading,
        blocks,
        roles,
    );
    let mut roots = vec![best];
    // The article's siblings that are worth something join it: a run of
    // paragraphs split by a figure; a box only when it is worth a fair
    // part of the article (a second body column), not a related-posts
    // box or a sidebar beside a container of several paragraphs.
    if let Some(parent) = doc.node(best).parent.filter(|_| best != body) {
        let joins = |s: NodeId| {
            s != best
                && value[s] > 0.0
                && !roles.boilerplate[s]
                && (super::is_prose_block(doc.tag(s)) || value[s] >= SIBLING_SHARE * value[best])
        };
        roots.extend(doc.children(parent).filter(|&s| joins(s)));
    }
    if let Some(h) = heading {
        if !roots.iter().any(|&r| doc.contains(r, h)) {
            roots.extend(head(doc, h, best, roles));
        }
    }
    outermost(doc, roots)
}

/// `nodes` sorted, without any node inside another.
pub fn outermost(doc: &Document, mut nodes: Vec<NodeId>) -> Vec<NodeId> {
    nodes.sort_unstable();
    nodes.dedup();
    let mut out: Vec<NodeId> = Vec::with_capacity(nodes.len());
    for n in nodes {
        if !out.last().is_some_and(|&o| doc.contains(o, n)) {
            out.push(n);
        }
    }
    out
}

/// The element of highest worth that holds the heading or starts after
/// it, furniture aside: the article starts at its heading, and a
/// container before it (a cookie notice, a left column) is not the
/// article's. Its worth is weighed by its names ([`NAME_BOOST`]) and by
/// how far from the heading it meets it ([`HEADING_DECAY`]); a tie goes to
/// the later element, the inner one of two nested.
fn container(doc: &Document, heading: Option<NodeId>, roles: &Roles, value: &[f64]) -> NodeId {
    let body = doc.body();
    let after = heading.unwrap_or(body);
    let depth = |n: NodeId| i32::try_from(doc.node(n).depth).unwrap_or(i32::MAX);
    // Where each element meets the heading: itself if it holds it, else
    // where its parent does (parents come first in the arena).
    let mut meet = vec![body; doc.len()];
    if let Some(h) = heading {
        for n in body + 1..doc.node(body).end {
            meet[n] = match doc.node(n).parent {
                _ if doc.contains(n, h) => n,
                Some(p) => meet[p],
                None => body,
            };
        }
    }
    let score = |n: NodeId| {
        let v = value[n];
        if v <= 0.0 {
            return v;
        }
        let distance = heading.map_or(0, |h| depth(h) - depth(meet[n]));
        v * (1.0 + NAME_BOOST * roles.weight[n]) * HEADING_DECAY.powi(distance)
    };
    let mut best = body;
    let mut best_score = score(body);
    for n in body..doc.node(body).end {
        if doc.element(n).is_none() || roles.furniture[n] || (n < after && !doc.contains(n, after))
        {
            continue;
        }
        let s = score(n);
        if s >= best_score {
            best = n;
            best_score = s;
        }
    }
    best
}

/// The innermost credible container inside `best` that holds
/// [`NARROW_SHARE`] of its prose: the markup's own article or main
/// element, or an element named like article containers
/// ([`CREDIBLE_NAME`]). What is around it inside `best` is an author box,
/// related posts, a newsletter box.
fn narrowed(
    doc: &Document,
    best: NodeId,
    heading: Option<NodeId>,
    blocks: &Blocks,
    roles: &Roles,
) -> NodeId {
    let after = heading.unwrap_or(best);
    let enough = NARROW_SHARE * f64::from(blocks.prose[best]);
    let mut narrowed = best;
    for n in best + 1..doc.node(best).end {
        let credible = is_content_element(doc, n) || roles.weight[n] >= CREDIBLE_NAME;
        if credible
            && !roles.boilerplate[n]
            && (n >= after || doc.contains(n, after))
            && f64::from(blocks.prose[n]) >= enough
        {
            narrowed = n;
        }
    }
    narrowed
}

/// The article's head when the body was chosen without it: what stands
/// between the heading and the body (the heading, a standfirst, a byline,
/// a lead image's caption; pruning and cleaning sort them out),
/// boilerplate aside. That is, at the heading's and the body's common
/// container and at every level below it down to the body, the children
/// after the heading and before the body's branch: a lead often sits in
/// the article's header box, a level below where the heading's branch
/// and the body's meet (a breadcrumb carrying the headline, the body in
/// the article element beside it). Just the heading when it comes after
/// the body.
fn head(doc: &Document, heading: NodeId, body: NodeId, roles: &Roles) -> Vec<NodeId> {
    if heading > body {
        return vec![heading];
    }
    let Some(common) = doc.ancestors(heading).find(|&a| doc.contains(a, body)) else {
        return vec![heading];
    };
    // From the body's parent up to the common container.
    let levels = doc
        .ancestors(body)
        .take_while(|&a| a != common)
        .chain(std::iter::once(common));
    levels
        .flat_map(|level| doc.children(level))
        .filter(|&c| doc.node(c).end > heading && c < body && !doc.contains(c, body))
        .filter(|&c| !roles.boilerplate[c])
        .collect()
}
