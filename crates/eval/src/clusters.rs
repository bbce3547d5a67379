//! The site-level method's clusters seen two ways: each wrapper against
//! the page-level path on the same pages, and the clusters against the
//! corpus's template groups (`group` in the manifest).

use std::collections::{BTreeMap, BTreeSet};

use super::{GoldPage, MethodResult};

/// The site-level method compared, and the page-level path.
const SITE_LEVEL: &str = "forest";
const PAGE_LEVEL: &str = "page";

/// A mean F1 difference smaller than this is a tie (the tables print three
/// decimals).
const TIE: f64 = 0.0005;

/// The markdown sections on the `forest` run's clusters: "" when it was not
/// run.
pub fn section(pages: &[GoldPage], results: &[MethodResult]) -> String {
    let Some(site) = results
        .iter()
        .find(|r| r.name == SITE_LEVEL && !r.clusters.of_page.is_empty())
    else {
        return String::new();
    };
    let mut md = String::new();
    if let Some(page) = results.iter().find(|r| r.name == PAGE_LEVEL) {
        md.push_str(&against_page_level(site, page));
    }
    md.push_str(&template_groups(pages, site));
    md
}

/// Per cluster of two pages or more with a checked wrapper: the mean
/// bigram F1 of the site-level method's articles (as served: by the
/// wrapper, or by the page-level path where its check or a page's safety
/// gave it the page) and of the page-level path alone, on the same pages.
fn against_page_level(site: &MethodResult, page: &MethodResult) -> String {
    let mut members: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, cluster) in site.clusters.of_page.iter().enumerate() {
        members.entry(cluster).or_default().push(i);
    }
    let mean = |r: &MethodResult, idx: &[usize]| {
        idx.iter().map(|&i| r.pages[i].0.bigram.f1).sum::<f64>() / idx.len() as f64
    };
    let mut rows = Vec::new();
    for (cluster, idx) in &members {
        let Some(check) = site.clusters.checks.get(*cluster) else {
            continue;
        };
        if idx.len() < 2 {
            continue;
        }
        let (w, p) = (mean(site, idx), mean(page, idx));
        rows.push((w - p, *cluster, idx.len(), check.as_str(), w, p));
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    let losing: Vec<_> = rows.iter().filter(|r| r.0 < -TIE).collect();
    let decisions: BTreeMap<&str, usize> = rows.iter().fold(BTreeMap::new(), |mut m, r| {
        *m.entry(r.3).or_default() += 1;
        m
    });
    let decisions: Vec<String> = decisions.iter().map(|(d, n)| format!("{d} {n}")).collect();
    let mut md = format!(
        "\n### Wrappers against the page-level path\n\n\
         {} clusters of two pages or more have a checked wrapper (decisions: {}). \
         On {} of them the site-level method's mean bigram F1 is at least the \
         page-level path's on the same pages (within {TIE}); on {} it is lower:\n\n",
        rows.len(),
        decisions.join(", "),
        rows.len() - losing.len(),
        losing.len(),
    );
    md.push_str(
        "| cluster | pages | check | site-level | page-level | difference |\n\
         |---|---:|---|---:|---:|---:|\n",
    );
    for (d, cluster, n, check, w, p) in losing {
        md.push_str(&format!(
            "| {cluster} | {n} | {check} | {w:.3} | {p:.3} | {d:+.3} |\n"
        ));
    }
    md
}

/// The host part of a cluster's name (`bbc.co.uk/0`).
fn host_of(cluster: &str) -> &str {
    cluster.rsplit_once('/').map_or(cluster, |(host, _)| host)
}

/// Purity (the share of pages in their cluster's most common group) and
/// completeness (the share of pages in their group's most common cluster)
/// of the site-level method's clusters against the manifest's template
/// groups. Sites are hosts: a group spread over two hosts is two groups
/// here, since no cluster can span hosts.
fn template_groups(pages: &[GoldPage], site: &MethodResult) -> String {
    let mut by_cluster: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    let mut by_group: BTreeMap<(&str, &str), BTreeMap<&str, usize>> = BTreeMap::new();
    for (p, cluster) in pages.iter().zip(&site.clusters.of_page) {
        let group = p.page.group.as_str();
        *by_cluster
            .entry(cluster)
            .or_default()
            .entry(group)
            .or_default() += 1;
        *by_group
            .entry((group, host_of(cluster)))
            .or_default()
            .entry(cluster)
            .or_default() += 1;
    }
    let majority = |m: &BTreeMap<&str, usize>| m.values().copied().max().unwrap_or(0);
    let n = pages.len().max(1) as f64;
    let purity = by_cluster.values().map(majority).sum::<usize>() as f64 / n;
    let completeness = by_group.values().map(majority).sum::<usize>() as f64 / n;
    let groups: BTreeSet<&str> = pages.iter().map(|p| p.page.group.as_str()).collect();
    let mut md = format!(
        "\n### Template clustering\n\n\
         {} clusters for {} template groups: purity {purity:.3} (pages in their \
         cluster's most common group), completeness {completeness:.3} (pages in \
         their group's most common cluster, a group counted per host).\n",
        by_cluster.len(),
        groups.len(),
    );
    let split: Vec<String> = by_group
        .iter()
        .filter(|(_, clusters)| clusters.len() > 1)
        .map(|((group, host), clusters)| {
            let sizes: Vec<String> = clusters.iter().map(|(c, k)| format!("{c} {k}")).collect();
            format!("- {group} on {host}: {}\n", sizes.join(", "))
        })
        .collect();
    if !split.is_empty() {
        md.push_str("\nGroups split over clusters:\n\n");
        md.push_str(&split.concat());
    }
    md
}
