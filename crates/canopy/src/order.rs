//! The order of the output files, the same whichever way they were made
//! (`run`, the scale-out steps, [`crate::extract_site`]).

use std::cmp::Ordering;

use canopy_types::{Article, Reject, WrapperRecord};

/// The order of `articles.jsonl`: (site, cluster, url, record id).
pub fn article_order(a: &Article, b: &Article) -> Ordering {
    (&a.site, &a.cluster, &a.url, &a.record_id).cmp(&(&b.site, &b.cluster, &b.url, &b.record_id))
}

/// The order of `wrappers.jsonl`: (site, cluster, template). Carried-over
/// wrappers keep their cluster name, which may repeat tonight's: the
/// template breaks the tie.
pub fn wrapper_order(a: &WrapperRecord, b: &WrapperRecord) -> Ordering {
    (&a.site, &a.cluster, &a.template).cmp(&(&b.site, &b.cluster, &b.template))
}

/// The order of `rejects.jsonl`: (file, offset, record_id, reason); equal
/// keys keep input order.
pub fn sort_rejects(rejects: &mut [Reject]) {
    rejects.sort_by(|a, b| {
        (&a.source.file, a.source.offset, &a.record_id, &a.reason).cmp(&(
            &b.source.file,
            b.source.offset,
            &b.record_id,
            &b.reason,
        ))
    });
}
