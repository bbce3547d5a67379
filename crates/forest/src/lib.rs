//! Forest: structural-pattern ranking across the sibling pages of a
//! cluster, and the XPath wrappers it yields (forest.md §3).
//!
//! Given the pages of one template, each with its DOM, the terms of its text
//! nodes and its signifiers, [`rank`] scores every structural pattern
//! (element type × level) found on the pages' significant paths by
//! `R = Σ_k I(sp, d_k) × p × level`, and [`learn`] turns the best one into a
//! [`Wrapper`] that selects the article on any page of that template.
//!
//! ```
//! use canopy_dom::{Document, DomOptions};
//! use canopy_forest::{learn, ForestOptions, NodeTerms, PageInput};
//!
//! let pages = [
//!     "<body><div id=nav>home news sport</div><div class=story>apple banana cherry</div></body>",
//!     "<body><div id=nav>home news sport</div><div class=story>apple durian elder</div></body>",
//! ];
//! let docs: Vec<Document> = pages.iter().map(|p| Document::parse(p, &DomOptions::default())).collect();
//! // A toy interner: a term's id is its first byte.
//! let terms: Vec<NodeTerms> = docs
//!     .iter()
//!     .map(|d| NodeTerms::build(d, |t, out| out.extend(t.split_whitespace().map(|w| w.as_bytes()[0] as u32))))
//!     .collect();
//! let sigs = [(u32::from(b'a'), 1.0)];
//! let inputs: Vec<PageInput> = docs
//!     .iter()
//!     .zip(&terms)
//!     .map(|(doc, terms)| PageInput { doc, terms, signifiers: &sigs })
//!     .collect();
//! let wrapper = learn(&inputs, &ForestOptions::default()).unwrap();
//! assert!(wrapper.xpath().starts_with("//div[contains(@class,'story')"));
//! ```

mod element_type;
mod measure;
mod narrow;
mod rank;
mod terms;
mod wrapper;

pub use element_type::{
    levels, normalized_space, tolerant_form, xpath_literal, ElementType, Untyped,
};
pub use measure::{informativeness, jeffrey_density, unexpectedness};
pub use rank::{rank, ForestOptions, Measure, PageInput, Pattern, Ranked};
pub use terms::NodeTerms;
pub use wrapper::Wrapper;

/// The cluster's wrapper: the best-ranked pattern, narrowed to the
/// elements of it that carry the article where an attribute's whole value
/// tells them apart ([`Pattern::exact`]), or `None` when no page has a significant
/// node.
pub fn learn(pages: &[PageInput<'_>], options: &ForestOptions) -> Option<Wrapper> {
    let mut wrapper = rank(pages, options).first().map(Wrapper::from_ranked)?;
    wrapper.pattern.exact = narrow::exact_value(pages, &wrapper, options.narrow);
    Some(wrapper)
}
