//! html5ever's tree builder behind the page's build budgets.
//!
//! Markup, not size, decides what some of the tree builder's steps cost,
//! through the list of "active formatting elements" (`<b>`, `<i>`, `<font>`
//! …; the HTML standard, §13.2.4.3), and nothing outside the builder can stop
//! it mid-slice: it runs while the tokenizer drains its input. So the
//! tokenizer's sink is this proxy, which hands each token on only while two
//! budgets hold; once one is spent, that token and every later one are
//! dropped and the page keeps what was built before (as for nesting past
//! `max_depth`):
//!
//! - **Nodes.** For every paragraph the builder "reconstructs the active
//!   formatting elements", re-creating each one left open before it. The
//!   standard's only limit (at most three identical entries, the "Noah's Ark"
//!   clause) does not hold once their attributes differ, so a 0.5 MB page
//!   with 300 unclosed `<font>`s and 40,000 paragraphs made 12 million nodes
//!   (2.2 GB, 8.7 s). The build tree's nodes plus attributes are held to
//!   [`crate::DomOptions::max_nodes`]. One token can still spend at most what
//!   the open formatting elements cost (themselves within the budget), so a
//!   page never builds more than twice its budget.
//! - **Formatting work.** The Noah's Ark clause compares every formatting
//!   start tag with each entry of the list of the same name, copying and
//!   sorting both attribute lists each time: quadratic in the entries, with a
//!   large constant (an 11 MB page of unclosed `<b a=N>`s took 22 s before its
//!   nesting budget cut it). Each formatting start tag that may meet an entry
//!   of its name is charged what that comparison costs, counted exactly on
//!   the builder's own lists, and the page is cut once the charges pass
//!   [`MAX_FORMATTING_WORK`].

use std::cell::Cell;

use html5ever::tokenizer::{Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{Tracer, TreeBuilder};
use html5ever::{local_name, LocalName};

use crate::sink::{Handle, Sink};

/// Budget for the formatting work: 2^24 units, where a unit is one entry of
/// the builder's lists looked at or one attribute copied (about 80 ns on the
/// reference machine, so about a second). A real page spends a few thousand:
/// the formatting elements it leaves open are few.
pub const MAX_FORMATTING_WORK: u64 = 1 << 24;

/// The HTML standard's formatting elements (§13.2.4.3), the only ones the
/// list of active formatting elements holds, each with its index in
/// [`Budgeted::open`]. A `match` on the interned names: it runs for every tag.
fn formatting_index(name: &LocalName) -> Option<usize> {
    Some(match *name {
        local_name!("a") => 0,
        local_name!("b") => 1,
        local_name!("big") => 2,
        local_name!("code") => 3,
        local_name!("em") => 4,
        local_name!("font") => 5,
        local_name!("i") => 6,
        local_name!("nobr") => 7,
        local_name!("s") => 8,
        local_name!("small") => 9,
        local_name!("strike") => 10,
        local_name!("strong") => 11,
        local_name!("tt") => 12,
        local_name!("u") => 13,
        _ => return None,
    })
}

/// How many names [`formatting_index`] knows.
const FORMATTING_ELEMENTS: usize = 14;

pub(crate) struct Budgeted {
    pub builder: TreeBuilder<Handle, Sink>,
    /// Nodes plus attributes the build tree may hold before tokens are
    /// dropped ([`crate::DomOptions::max_nodes`]).
    max_units: usize,
    /// Per formatting element, its start tags less its end tags so far: an
    /// upper bound of the entries of that name the builder may hold (it
    /// also drops entries at markers and by the adoption agency), cheap
    /// enough to read at every tag. Only where it is not zero are the
    /// builder's lists looked at.
    open: [Cell<u32>; FORMATTING_ELEMENTS],
    /// Formatting work charged so far.
    work: Cell<u64>,
    /// Set at the first token that found a budget spent.
    pub cut: Cell<bool>,
}

impl Budgeted {
    pub fn new(builder: TreeBuilder<Handle, Sink>, max_units: usize) -> Self {
        Budgeted {
            builder,
            max_units,
            open: Default::default(),
            work: Cell::new(0),
            cut: Cell::new(false),
        }
    }

    /// Whether `tag` may be processed within the budgets, charging it.
    fn admits(&self, tag: &Tag) -> bool {
        let Some(k) = formatting_index(&tag.name) else {
            return true;
        };
        let open = &self.open[k];
        match tag.kind {
            TagKind::EndTag => open.set(open.get().saturating_sub(1)),
            TagKind::StartTag => {
                if open.get() > 0 {
                    let charge = self.noahs_ark_cost(tag);
                    self.work.set(self.work.get().saturating_add(charge));
                    if self.work.get() > MAX_FORMATTING_WORK {
                        return false;
                    }
                }
                open.set(open.get().saturating_add(1));
            }
        }
        true
    }

    /// What the Noah's Ark comparison of `tag` costs at most: every handle
    /// the builder holds looked at, and both attribute lists copied for
    /// each of the same name (an entry both open and in the list counts
    /// twice; an upper bound is what a budget needs).
    fn noahs_ark_cost(&self, tag: &Tag) -> u64 {
        let counter = Charge {
            sink: &self.builder.sink,
            name: &tag.name,
            new_attrs: tag.attrs.len() as u64,
            cost: Cell::new(0),
        };
        self.builder.trace_handles(&counter);
        counter.cost.get()
    }
}

/// Sums [`Budgeted::noahs_ark_cost`] over the handles the builder holds.
struct Charge<'a> {
    sink: &'a Sink,
    name: &'a LocalName,
    new_attrs: u64,
    cost: Cell<u64>,
}

impl Tracer for Charge<'_> {
    type Handle = Handle;

    fn trace_handle(&self, handle: &Handle) {
        let mut cost = 1;
        if let Some(attrs) = self.sink.attrs_if_named(*handle, self.name) {
            cost += 1 + attrs as u64 + self.new_attrs;
        }
        self.cost.set(self.cost.get().saturating_add(cost));
    }
}

impl TokenSink for Budgeted {
    type Handle = Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Handle> {
        if !self.cut.get() {
            let admitted = self.builder.sink.units() <= self.max_units
                && match &token {
                    Token::TagToken(tag) => self.admits(tag),
                    _ => true,
                };
            self.cut.set(!admitted);
        }
        if self.cut.get() {
            return TokenSinkResult::Continue;
        }
        self.builder.process_token(token, line_number)
    }

    fn end(&self) {
        if !self.cut.get() {
            self.builder.end();
        }
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}
