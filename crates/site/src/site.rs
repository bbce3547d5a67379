//! One site, start to end: parse its pages, group them by template, learn
//! a wrapper per template, extract every page's article.
//!
//! Sites are independent, so `run` hands them to rayon; inside a site,
//! pages are parsed and extracted in parallel, the template grouping runs in
//! the site's task, then its clusters in parallel. A site of more than
//! `run.max_resident_pages` pages, or of more HTML than
//! `run.max_resident_bytes`, is not held parsed whole: its parsed
//! pages wait in a temporary file and are read back as each step needs
//! them ([`SitePages`]), and its articles wait in another
//! ([`ArticleSpill`]).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use canopy_buckets::{BucketReader, Entry};
use canopy_cluster::{
    evenly_spaced, group_count, group_site_templates, Signature, SignatureSource,
};
use canopy_dom::{Document, NodeId};
use canopy_extract::{
    clean_selection, clean_selection_kept, clean_text, CleanOptions, Kept, PageContext, Prior,
    Residue, SiteEvidence, TextCounts,
};
use canopy_forest::{NodeTerms, PageInput, Wrapper};
use canopy_metadata::{article_heading, base_url, Capture, PageMeta};
use canopy_output::SummaryRow;
use canopy_render::CleanTree;
use canopy_signifiers::{
    top_k_tfidf, top_k_tfidf_among, Analyzer, Background, Language, PageLanguage, Stems, TermId,
};
use canopy_types::{Article, FeedItem, PageRecord, Reject, WrapperRecord, WrapperStatus};

mod check;

use check::{check_against_page_path, saved_check, serving, Serve};

use crate::backlog::Backlog;
use crate::config::SignifierSource;
use crate::fallback;
use crate::method::{Method, PageMethod};
use crate::page::Page;
use crate::pages::SitePages;
use crate::reuse::NewWrapper;
use crate::settings::{Render, SiteOutput, SiteSettings};
use crate::spill::{ArticleSink, ArticleSpill};
use crate::title::clean_title;

/// A site's page records: all of them (sorted by URL), or, for a site of
/// more than `run.max_resident_pages` pages or `run.max_resident_bytes`
/// of HTML, their bucket entries, read
/// and parsed a chunk at a time (`SitePages::read`), and the folder its
/// parsed pages and articles wait in ([`ArticleSpill`]).
pub enum SiteInput<'r> {
    Records(Vec<PageRecord>),
    Bucket {
        reader: &'r BucketReader,
        entries: Vec<Entry>,
        spill_dir: &'r Path,
    },
}

/// Processes the pages of one site. An error only when a large site's
/// pages cannot be read from its bucket, or its temporary files written
/// or read.
pub fn process_site(
    site: &str,
    input: SiteInput<'_>,
    feeds: &HashMap<String, FeedItem>,
    settings: &SiteSettings,
    backlog: &Backlog,
) -> std::io::Result<SiteOutput> {
    // A page whose parse passes its budget is rejected here and takes no
    // part in clustering or learning; the rest of the site goes on.
    let mut out = SiteOutput::default();
    let pages = match input {
        SiteInput::Records(records) => {
            SitePages::hold(records, feeds, settings, backlog, &mut out.rejects)
        }
        SiteInput::Bucket {
            reader,
            entries,
            spill_dir,
        } => {
            out.spilled = Some(ArticleSpill::new_in(spill_dir)?);
            SitePages::read(
                reader,
                entries,
                spill_dir,
                feeds,
                settings,
                backlog,
                &mut out.rejects,
            )?
        }
    };
    let all: Vec<usize> = (0..pages.len()).collect();
    // BlockExtractor's siblings: the site's pages, or a sample of a large
    // site's.
    let siblings = if settings.reads_siblings() {
        pages.learning(&all)
    } else {
        Vec::new()
    };
    pages.with(&siblings, |siblings| {
        if let Method::Page(method) = settings.method {
            page_level_site(site, &pages, &all, method, siblings, settings, &mut out)
        } else {
            clustered_site(site, &pages, siblings, settings, backlog, &mut out)
        }
    })??;
    Ok(out)
}

/// Every page by a page-level method alone (`--method wlr`…).
fn page_level_site(
    site: &str,
    pages: &SitePages<'_>,
    all: &[usize],
    method: PageMethod,
    siblings: &[&Page<'_>],
    settings: &SiteSettings,
    out: &mut SiteOutput,
) -> std::io::Result<()> {
    let cluster = format!("{site}/page");
    let mut articles = ArticleSink::new(out.spilled.as_ref(), &cluster);
    let mut served = 0;
    let extract = |page: &Page<'_>| {
        let deadline = settings.extraction_deadline(page);
        let article = page_level_article(
            site,
            &cluster,
            page,
            &[method],
            &[],
            siblings,
            // Canopy's own page-level method cleans its selection as the
            // fallback does; the papers' methods run as the papers define them.
            if method == PageMethod::Page {
                Role::Fallback(&settings.clean)
            } else {
                Role::Alone
            },
            settings.render,
            &settings.prior,
        );
        if deadline.expired() {
            Err(Box::new(
                settings.budget_reject(&page.record, "during extraction"),
            ))
        } else {
            Ok((article, page.lang))
        }
    };
    pages.visit(all, extract, |article| {
        match article {
            Ok((article, lang)) => {
                served += 1;
                settings.emit(article, lang, &mut articles, &mut out.lang_filtered)?;
            }
            Err(reject) => out.rejects.push(*reject),
        }
        Ok(())
    })?;
    out.articles = articles.finish()?;
    out.summary.push(SummaryRow {
        site: site.to_string(),
        cluster,
        pages: all.len(),
        wrapper_matches: 0,
        fallbacks: served,
        wrapper: WrapperStatus::None,
        check: None,
    });
    Ok(())
}

/// The site's pages grouped by template, a wrapper per group.
fn clustered_site(
    site: &str,
    pages: &SitePages<'_>,
    siblings: &[&Page<'_>],
    settings: &SiteSettings,
    backlog: &Backlog,
    out: &mut SiteOutput,
) -> std::io::Result<()> {
    let labels = group_site_templates(
        &pages.signatures,
        settings.template_threshold,
        settings.max_group_pages,
    )?;
    // The clusters in parallel (a large site's clusters would otherwise be
    // learned one after another while the other threads wait); each learns
    // with an analyzer of its own (`learn`). Outputs in cluster order.
    let clusters = backlog.map(0..group_count(&labels), |g| {
        let members: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == g).collect();
        let cluster = format!("{site}/{g}");
        let cluster = ClusterPages {
            site,
            cluster: &cluster,
            members: &members,
            pages,
            siblings,
            backlog,
            spill: out.spilled.as_ref(),
        };
        let mut part = SiteOutput::default();
        let claimed = process_cluster(&cluster, settings, &mut part)?;
        Ok::<_, std::io::Error>((part, claimed))
    });
    // Saved wrappers that tonight's wrappers replace or reuse.
    let mut claimed = BTreeSet::new();
    for cluster in clusters {
        let (part, reused) = cluster?;
        out.articles.extend(part.articles);
        out.wrappers.extend(part.wrappers);
        out.summary.extend(part.summary);
        out.rejects.extend(part.rejects);
        out.evidence.merge(part.evidence);
        for (lang, n) in part.lang_filtered {
            *out.lang_filtered.entry(lang).or_default() += n;
        }
        claimed.extend(reused);
    }
    // The site's other saved wrappers go on unchanged (docs/wrappers.md).
    if let Some(reuse) = &settings.reuse {
        for &i in reuse.saved.of_site(site) {
            if !claimed.contains(&i) {
                out.wrappers.push(reuse.saved.get(i).record.clone());
            }
        }
    }
    Ok(())
}

/// One template cluster of a site.
struct ClusterPages<'a, 'f> {
    site: &'a str,
    cluster: &'a str,
    /// Its pages' numbers in `pages`.
    members: &'a [usize],
    pages: &'a SitePages<'f>,
    siblings: &'a [&'a Page<'a>],
    backlog: &'a Backlog,
    /// Where the articles of a large site go.
    spill: Option<&'a ArticleSpill>,
}

impl ClusterPages<'_, '_> {
    /// Whether what the wrapper's selection shows about names on `page`
    /// teaches the site's prior: on the cluster's first
    /// `extract.prior_pages` pages.
    fn teaches(&self, page: &Page<'_>, settings: &SiteSettings) -> bool {
        self.members[..settings.prior_pages.min(self.members.len())].contains(&page.index)
    }
}

/// The wrapper a cluster's pages are extracted with.
struct Chosen {
    wrapper: Option<Wrapper>,
    status: WrapperStatus,
    /// A saved wrapper reused as it is: its line for tonight's
    /// `wrappers.jsonl` (a new one's is written once its pages are
    /// extracted).
    reused: Option<WrapperRecord>,
    /// The saved wrapper this one reuses or replaces.
    claimed: Option<usize>,
    /// A reused wrapper's selection on each page it was checked on (the
    /// pages learning read), for their extraction to reuse.
    selections: Vec<Selection>,
}

/// What a wrapper selects on a page.
struct Selection {
    /// The cleaned text ("" = no match).
    text: String,
    /// The nodes it selected.
    nodes: Vec<NodeId>,
    /// The page furniture inside them, left out
    /// ([`canopy_extract::furniture_within`]).
    furniture: Vec<NodeId>,
    /// What the selection shows about names, when the page teaches the
    /// site's prior ([`ClusterPages::teaches`]) and the text is not empty.
    evidence: Option<SiteEvidence>,
}

/// What `wrapper` selects on a page; and, on a page that `teaches` the
/// prior, what its selection shows about names, read with the keep rule
/// its text was cleaned with.
fn wrapper_selection(
    wrapper: Option<&Wrapper>,
    page: &Page<'_>,
    residue: &Residue,
    settings: &SiteSettings,
    teaches: bool,
) -> Selection {
    let nodes = wrapper.map(|w| w.apply(&page.doc)).unwrap_or_default();
    let furniture = canopy_extract::furniture_within(&page.doc, &nodes);
    let (text, kept) =
        clean_selection_kept(&page.doc, &nodes, &furniture, residue, &settings.clean);
    let evidence = (teaches && !text.is_empty()).then(|| {
        let mut seen = SiteEvidence::default();
        seen.add_page(&page.doc, &nodes, &|n| kept.keeps(n));
        seen
    });
    Selection {
        text,
        nodes,
        furniture,
        evidence,
    }
}

/// The length of a text a wrapper selected, for its quality (`None`: no
/// match).
fn text_chars(text: &str) -> Option<usize> {
    (!text.is_empty()).then(|| text.chars().count())
}

/// Reuse a saved wrapper if one fits and has not drifted on the pages
/// `known` (the cluster's pages, or a large cluster's learning sample),
/// whose signatures are `signatures`; else learn one from them (two pages
/// or more, unless extracting only).
fn choose_wrapper(
    c: &ClusterPages<'_, '_>,
    known: &[&Page<'_>],
    background: &[Arc<Stems>],
    signatures: &[&Signature],
    residue: &Residue,
    settings: &SiteSettings,
) -> Chosen {
    let mut status = WrapperStatus::New;
    let mut candidate = None;
    if let Some(reuse) = &settings.reuse {
        if let Some(m) = reuse
            .saved
            .best_match(c.site, signatures, &reuse.thresholds)
        {
            let saved = reuse.saved.get(m.index);
            let share = reuse.thresholds.min_template_share;
            let fits = m.fit as f64 >= share * signatures.len() as f64;
            // A single page that fits no saved template is a page apart (as
            // in a fresh run), not evidence that a template drifted.
            if fits || c.members.len() >= 2 {
                candidate = Some(m.index);
            }
            if fits {
                let wrapper = Wrapper {
                    pattern: saved.pattern.clone(),
                    relevance: saved.record.relevance,
                    dfs: Vec::new(),
                };
                let selections = c.backlog.map(known, |page| {
                    wrapper_selection(
                        Some(&wrapper),
                        page,
                        residue,
                        settings,
                        c.teaches(page, settings),
                    )
                });
                let chars: Vec<usize> = selections
                    .iter()
                    .filter_map(|s| text_chars(&s.text))
                    .collect();
                let now = canopy_reuse::quality(known.len(), &chars);
                if canopy_reuse::check_drift(&saved.record.quality, &now, &reuse.thresholds)
                    .is_none()
                {
                    let mut record = saved.record.clone();
                    record.cluster = c.cluster.to_string();
                    return Chosen {
                        wrapper: Some(wrapper),
                        status: WrapperStatus::Reused,
                        reused: Some(record),
                        claimed: Some(m.index),
                        selections,
                    };
                }
            }
            if candidate.is_some() {
                status = if reuse.learn {
                    WrapperStatus::Relearned
                } else {
                    WrapperStatus::Drifted
                };
            }
        }
    }
    let wrapper = if learns(c, settings) {
        learn(
            &evenly_spaced(known, settings.max_learn_pages),
            background,
            settings,
            c.backlog,
        )
    } else {
        None
    };
    if wrapper.is_none() {
        status = if candidate.is_some() {
            WrapperStatus::Drifted
        } else {
            WrapperStatus::None
        };
    }
    Chosen {
        claimed: wrapper.as_ref().and(candidate),
        wrapper,
        status,
        reused: None,
        selections: Vec::new(),
    }
}

/// Whether a cluster may learn a wrapper (if no saved one fits): two
/// pages or more, unless saved wrappers are only applied.
fn learns(c: &ClusterPages<'_, '_>, settings: &SiteSettings) -> bool {
    c.members.len() >= 2 && settings.reuse.as_ref().is_none_or(|r| r.learn)
}

/// The site's other pages whose terms count in a small cluster's idf
/// ([`canopy_signifiers::top_k_tfidf_among`]): none for a cluster of
/// [`SMALL_CLUSTER`] pages or more, or one that learns nothing (they would
/// be read for nothing: from disk, on a large site), else up to
/// [`BACKGROUND_PAGES`] of the site's pages outside the cluster, evenly
/// spaced in URL order.
fn background_pages(c: &ClusterPages<'_, '_>, settings: &SiteSettings) -> Vec<usize> {
    if c.members.len() >= SMALL_CLUSTER || !learns(c, settings) {
        return Vec::new();
    }
    let others: Vec<usize> = (0..c.pages.len())
        .filter(|i| c.members.binary_search(i).is_err())
        .collect();
    evenly_spaced(&others, BACKGROUND_PAGES)
}

/// Clusters of fewer pages than this count the site's other pages in
/// their idf.
const SMALL_CLUSTER: usize = 5;

/// Most pages of the site outside a small cluster counted in its idf.
const BACKGROUND_PAGES: usize = 20;

/// Finds the cluster's wrapper (saved, or learned from two pages or more)
/// and extracts its pages; returns the saved wrapper it reused or replaced.
fn process_cluster(
    c: &ClusterPages<'_, '_>,
    settings: &SiteSettings,
    out: &mut SiteOutput,
) -> std::io::Result<Option<usize>> {
    let (site, cluster) = (c.site, c.cluster);
    // The pages learning reads, the titles each page's title is cleaned
    // against (title.rs), the template a saved wrapper must fit and a new
    // one's sketch: the cluster's pages, or a large cluster's learning
    // sample (each title is compared with every sibling's, so all of a
    // cluster of 100 000 pages would take hours).
    let known = c.pages.learning(c.members);
    let signatures = c.pages.signatures.load(&known)?;
    let signatures: Vec<&Signature> = signatures.iter().map(|s| &**s).collect();
    // Each page's article, in parallel (a large site's pages would
    // otherwise be extracted by one thread while the others wait): from
    // the pages learning read when they are all of the cluster's (with a
    // reused wrapper's selections from its drift check), else read back
    // a chunk at a time, once the learning sample is freed.
    let background = c.pages.body_stems(&background_pages(c, settings))?;
    let (titles, residue, chosen, check, extracted) = c.pages.with(&known, |held| {
        let titles: Vec<String> = held.iter().map(|p| raw_title(&p.doc)).collect();
        let docs: Vec<&Document> = held.iter().map(|p| &p.doc).collect();
        let residue = Residue::learn(&docs);
        let sibling_titles: Vec<&str> = titles.iter().map(String::as_str).collect();
        let mut chosen = choose_wrapper(c, held, &background, &signatures, &residue, settings);
        let mut check = match &chosen.wrapper {
            Some(w) if settings.validate => Some(saved_check(&chosen).unwrap_or_else(|| {
                check_against_page_path(c, w, held, &sibling_titles, &residue, settings)
            })),
            _ => None,
        };
        let checked = check
            .as_mut()
            .map(|c| std::mem::take(&mut c.selections))
            .unwrap_or_default();
        if known.len() < c.members.len() {
            // The sample's selections are not needed past here.
            chosen.selections = Vec::new();
            return (titles, residue, chosen, check, None);
        }
        let reused = std::mem::take(&mut chosen.selections);
        let serve = serving(&chosen, check.as_ref());
        // The wrapper's selections made already, which the pages'
        // extraction takes: a reused wrapper's from its drift check, and
        // those of the pages it was checked on (not when the check gave
        // the pages to the page-level path: they are not the articles).
        let mut selections: Vec<Option<Selection>> = held.iter().map(|_| None).collect();
        if serve.wrapper.is_some() {
            for (slot, selection) in selections.iter_mut().zip(reused) {
                *slot = Some(selection);
            }
            for (i, selection) in checked {
                selections[i] = Some(selection);
            }
        }
        let extracted = {
            let items = held.iter().zip(selections);
            c.backlog.map(items, |(page, selection)| {
                let selection = selection.unwrap_or_else(|| {
                    let teaches = c.teaches(page, settings);
                    wrapper_selection(serve.wrapper, page, &residue, settings, teaches)
                });
                extract_page(
                    c,
                    serve,
                    selection,
                    &sibling_titles,
                    page,
                    &residue,
                    settings,
                )
            })
        };
        (titles, residue, chosen, check, Some(extracted))
    })?;
    let titles: Vec<&str> = titles.iter().map(String::as_str).collect();
    let serve = serving(&chosen, check.as_ref());
    let mut articles = ArticleSink::new(c.spill, cluster);
    let mut served = 0;
    let mut fallbacks = 0;
    let mut chars = Vec::new();
    let mut evidence = SiteEvidence::default();
    let mut take = |(text, article, seen): (Option<usize>, PageArticle, Option<SiteEvidence>)| {
        chars.extend(text);
        if let Some(seen) = seen {
            evidence.merge(seen);
        }
        match article {
            Ok((article, by_wrapper, lang)) => {
                if by_wrapper {
                    served += 1;
                } else {
                    fallbacks += 1;
                }
                settings.emit(article, lang, &mut articles, &mut out.lang_filtered)?;
            }
            Err(reject) => out.rejects.push(*reject),
        }
        Ok(())
    };
    match extracted {
        Some(extracted) => extracted.into_iter().try_for_each(&mut take)?,
        None => c.pages.visit(
            c.members,
            |page| {
                let teaches = c.teaches(page, settings);
                let selection = wrapper_selection(serve.wrapper, page, &residue, settings, teaches);
                extract_page(c, serve, selection, &titles, page, &residue, settings)
            },
            &mut take,
        )?,
    }
    out.articles = articles.finish()?;
    out.evidence = evidence;
    let record = match (chosen.reused, chosen.wrapper.as_ref()) {
        (Some(reused), _) => Some(reused),
        (None, Some(w)) => {
            let (template_paths, sketch) = canopy_reuse::cluster_template(&signatures);
            // The learn date comes from the input, not the clock, so that a
            // run's outputs are the same bytes every time.
            let learned_on = c
                .members
                .iter()
                .filter_map(|&i| c.pages.dates[i].clone())
                .max();
            Some(
                NewWrapper {
                    site,
                    cluster,
                    wrapper: w,
                    pages: c.members.len(),
                    matched: chars.len(),
                    signifiers: settings.signifiers.name(),
                    sketch: &sketch,
                    template_paths,
                    learned_on,
                    quality: match &check {
                        // What it selected on the pages it was checked on.
                        Some(check) if !check.wrapper_serves() => {
                            canopy_reuse::quality(check.figures.pages, &check.wrapper_text_chars)
                        }
                        _ => canopy_reuse::quality(c.members.len(), &chars),
                    },
                }
                .record(),
            )
        }
        (None, None) => None,
    };
    let summary_check = check.as_ref().map(|c| c.figures.decision);
    out.wrappers.extend(record.map(|mut r| {
        r.check = check.map(|c| c.figures);
        r
    }));
    out.summary.push(SummaryRow {
        site: site.to_string(),
        cluster: cluster.to_string(),
        pages: c.members.len(),
        wrapper_matches: served,
        fallbacks,
        wrapper: chosen.status,
        check: summary_check,
    });
    Ok(chosen.claimed)
}

/// A page's article (its `lang` not yet set, [`SiteSettings::emit`]),
/// whether the wrapper served it and the page's language, or its reject.
type PageArticle = Result<(Article, bool, PageLanguage), Box<Reject>>;

/// A page's article by the cluster's wrapper, or by the fallback where
/// the wrapper selects nothing; with the length of the wrapper's text, for
/// the wrapper's quality, and, on the cluster's first `extract.prior_pages`
/// pages, what the wrapper's selection shows about names.
// The cluster's context (pages, titles, residue) plus the page's.
#[allow(clippy::too_many_arguments)]
fn extract_page(
    c: &ClusterPages<'_, '_>,
    serve: Serve<'_>,
    Selection {
        text,
        nodes,
        furniture,
        evidence,
    }: Selection,
    titles: &[&str],
    page: &Page<'_>,
    residue: &Residue,
    settings: &SiteSettings,
) -> (Option<usize>, PageArticle, Option<SiteEvidence>) {
    let (site, cluster) = (c.site, c.cluster);
    let wrapper = serve.wrapper;
    let chars = text_chars(&text);
    debug_assert_eq!(
        evidence.is_some(),
        !text.is_empty() && c.teaches(page, settings),
        "the selection was made for the page's place in its cluster"
    );
    // Checked before the article is built and after the fallback, from
    // here (the wrapper's selection, made before, is not counted): the
    // extraction methods themselves are not interrupted.
    let deadline = settings.extraction_deadline(page);
    let over_budget = || {
        if deadline.expired() {
            Err(Box::new(
                settings.budget_reject(&page.record, "during extraction"),
            ))
        } else {
            Ok(())
        }
    };
    let short = chars.is_some_and(|n| serve.is_short(n));
    let article = over_budget().and_then(|()| {
        if text.is_empty() || short {
            let article = page_level_article(
                site,
                cluster,
                page,
                &settings.fallback,
                titles,
                c.siblings,
                Role::Fallback(&settings.clean),
                settings.render,
                &settings.prior,
            );
            over_budget()?;
            if text.is_empty() || serve.is_typical(article.text.chars().count()) {
                return Ok((article, false, page.lang));
            }
        }
        let title = article_title(page, site, titles);
        let mut article = Article {
            url: page.record.url.clone(),
            record_id: page.record.record_id.clone(),
            site: site.to_string(),
            cluster: cluster.to_string(),
            method: settings.wrapper_method_name().to_string(),
            wrapper: wrapper.and_then(Wrapper::xpath_portable),
            text: with_title(&title, &text, settings.clean.title_lead),
            title,
            ..Article::default()
        };
        add_metadata(&mut article, page, &nodes, settings.clean.title_lead);
        add_renderings(
            &mut article,
            page,
            (&nodes, &furniture),
            residue,
            &settings.clean,
            settings.render,
        );
        Ok((article, true, page.lang))
    });
    (chars, article, evidence)
}

/// Forest over the cluster's pages: terms of every text node, signifiers,
/// ranking. The idf of the signifiers counts the `background` pages too
/// (other pages of the site, for a small cluster).
fn learn(
    pages: &[&Page<'_>],
    background: &[Arc<Stems>],
    settings: &SiteSettings,
    backlog: &Backlog,
) -> Option<Wrapper> {
    // The cluster's own analyzer: term ids are only compared within a
    // cluster, and no result depends on their values.
    let mut analyzer = Analyzer::new();
    // The pages are analyzed in parallel (else this is a large site's
    // longest serial step), each with ids of its own, then take the
    // cluster analyzer's ids page after page: the ids one pass would give.
    let analyzed: Vec<(NodeTerms, Stems)> = backlog.map(pages, |p| p.terms());
    let mut terms = Vec::with_capacity(pages.len());
    let mut bags: Vec<Vec<TermId>> = Vec::with_capacity(pages.len());
    for (p, (mut t, stems)) in pages.iter().zip(analyzed) {
        let ids = analyzer.adopt(&stems);
        t.remap(|t| ids[t as usize].0);
        let body = p.doc.body();
        bags.push(
            t.of_range(body, p.doc.node(body).end)
                .iter()
                .map(|&i| TermId(i))
                .collect(),
        );
        terms.push(t);
    }
    // The background pages count only where they share the cluster's terms:
    // their body's stems are looked up, not interned.
    let mut others = Background::default();
    for stems in background {
        others.add_page(stems.iter().filter_map(|s| analyzer.id_of(s)));
    }
    let bag_refs: Vec<&[TermId]> = bags.iter().map(Vec::as_slice).collect();
    let mut tfidf = top_k_tfidf_among(&bag_refs, &others, &analyzer, settings.top_k);
    // A page all of whose terms occur on every sibling (a duplicate, or a
    // near-empty page) has no tf-idf signifier; rank its terms by tf alone,
    // as for a single page.
    for (ranked, bag) in tfidf.iter_mut().zip(bag_refs) {
        if ranked.is_empty() {
            *ranked = top_k_tfidf(&[bag], &analyzer, settings.top_k).remove(0);
        }
    }
    let signifiers: Vec<Vec<(u32, f64)>> = pages
        .iter()
        .zip(tfidf)
        .map(|(p, ranked)| {
            let ranked: Vec<(u32, f64)> = ranked.into_iter().map(|(t, w)| (t.0, w)).collect();
            match (settings.signifiers, p.feed) {
                (SignifierSource::Feeds, Some(item)) => {
                    let mut sigs = feed_signifiers(&mut analyzer, item, p.analysis());
                    // A feed item that is only a title gives too few terms to
                    // locate the article (forest.md §4: below 5 signifiers
                    // precision drops): top up to k with tf-idf terms.
                    let top_up = settings.top_k.saturating_sub(sigs.len());
                    let extra: Vec<(u32, f64)> = ranked
                        .iter()
                        .filter(|(t, _)| !sigs.iter().any(|s| s.0 == *t))
                        .take(top_up)
                        .map(|&(t, _)| (t, 1.0))
                        .collect();
                    sigs.extend(extra);
                    sigs
                }
                _ => ranked,
            }
        })
        .collect();
    let inputs: Vec<PageInput<'_>> = pages
        .iter()
        .zip(&terms)
        .zip(&signifiers)
        .map(|((p, terms), sigs)| PageInput {
            doc: &p.doc,
            terms,
            signifiers: sigs,
        })
        .collect();
    canopy_forest::learn(&inputs, &settings.forest)
}

/// The distinct terms of a feed item's title and description, weight 1,
/// at most 64 (Forest tracks signifiers in a 64-bit set).
fn feed_signifiers(analyzer: &mut Analyzer, item: &FeedItem, lang: Language) -> Vec<(u32, f64)> {
    let mut terms = Vec::new();
    analyzer.analyze(&item.title, lang, &mut terms);
    analyzer.analyze(&item.description, lang, &mut terms);
    let mut seen = Vec::new();
    for t in terms {
        if !seen.contains(&t.0) {
            seen.push(t.0);
        }
    }
    seen.into_iter().take(64).map(|t| (t, 1.0)).collect()
}

/// How page-level methods serve a page.
#[derive(Clone, Copy)]
enum Role<'a> {
    /// Run alone (`--method wlr`…): a method's selection as its paper
    /// makes it, not cleaned, anchored or widened, so that it is a baseline.
    Alone,
    /// Where a site-level method's wrapper gives no text: the union of the
    /// methods' selections anchored at the article's heading (several
    /// methods), its prose siblings joined, then cleaned with these
    /// options but for residue (there are no siblings to find it with).
    Fallback(&'a CleanOptions),
}

// The site's context (site, cluster, siblings) plus the method's settings;
// a struct for them would be built at each of the two calls only.
#[allow(clippy::too_many_arguments)]
fn page_level_article(
    site: &str,
    cluster: &str,
    page: &Page<'_>,
    methods: &[PageMethod],
    sibling_titles: &[&str],
    siblings: &[&Page<'_>],
    role: Role<'_>,
    render: Render,
    prior: &Prior,
) -> Article {
    let title = article_title(page, site, sibling_titles);
    let (text, nodes, pruned, options) =
        page_level_selection(page, methods, &title, siblings, role, prior);
    let mut article = Article {
        url: page.record.url.clone(),
        record_id: page.record.record_id.clone(),
        site: site.to_string(),
        cluster: cluster.to_string(),
        method: methods
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join("+"),
        wrapper: None,
        text: with_title(&title, &text, options.title_lead),
        title,
        ..Article::default()
    };
    add_metadata(&mut article, page, &nodes, options.title_lead);
    add_renderings(
        &mut article,
        page,
        (&nodes, &pruned),
        &Residue::default(),
        &options,
        render,
    );
    article
}

/// What page-level `methods` select on a page whose article's title is
/// `title`: the cleaned text, the selected nodes, the nodes inside them
/// left out, and the cleaning options the text was made with.
fn page_level_selection(
    page: &Page<'_>,
    methods: &[PageMethod],
    title: &str,
    siblings: &[&Page<'_>],
    role: Role<'_>,
    prior: &Prior,
) -> (String, Vec<NodeId>, Vec<NodeId>, CleanOptions) {
    let options = match role {
        Role::Alone => CleanOptions::none(),
        Role::Fallback(clean) => CleanOptions {
            residue: false,
            ..clean.clone()
        },
    };
    let (text, nodes, pruned) = match methods {
        [PageMethod::Description] => (
            page.feed
                .map(|item| format!("{}\n{}", item.title, item.description))
                .unwrap_or_default(),
            Vec::new(),
            Vec::new(),
        ),
        [PageMethod::Page] => {
            let doc = &page.doc;
            let heading = page_heading(page, title);
            let selection = canopy_extract::page(doc, &PageContext { heading, prior });
            let text = clean_selection(
                doc,
                &selection.roots,
                &selection.pruned,
                &Residue::default(),
                &options,
            );
            (text, selection.roots, selection.pruned)
        }
        _ => {
            // The union of the methods' selections, outermost nodes only;
            // as the fallback (several methods), anchored at the article's
            // heading (fallback.rs).
            let nodes: Vec<NodeId> = methods
                .iter()
                .flat_map(|&m| page_level_nodes(page, m, siblings))
                .collect();
            let mut nodes = fallback::outermost(&page.doc, nodes);
            if let Role::Fallback(_) = role {
                nodes = anchored_with_prose(page, title, methods.len() > 1, nodes);
            }
            let text = clean_text(&page.doc, &nodes, &Residue::default(), &options);
            (text, nodes, Vec::new())
        }
    };
    (text, nodes, pruned, options)
}

/// The page's headline: the `<h1>`–`<h3>` that its `og:title`, `<title>`
/// or the article's cleaned `title` confirms.
fn page_heading(page: &Page<'_>, title: &str) -> Option<NodeId> {
    let raw = raw_title(&page.doc);
    canopy_metadata::page_heading(&page.doc, &[&raw, &page.doc.title(), title])
}

/// The fallback's selection: anchored at the article's heading when it is
/// the union of several methods (fallback.rs), then widened to its prose
/// siblings.
fn anchored_with_prose(
    page: &Page<'_>,
    title: &str,
    union: bool,
    mut nodes: Vec<NodeId>,
) -> Vec<NodeId> {
    // One count of the page's text and link text serves the anchor and the
    // prose siblings.
    let counts = TextCounts::of(&page.doc);
    let heading = union.then(|| page_heading(page, title)).flatten();
    if let Some(heading) = heading {
        // BlockExtractor's text blocks of this page alone: its cross-page
        // pass would read every sibling for each page the wrapper misses.
        nodes = fallback::anchored(&page.doc, &counts, heading, nodes, || {
            canopy_extract::blockextractor(&page.doc, &[])
        });
    }
    with_prose_siblings(&page.doc, &counts, nodes)
}

/// A page-level selection made of prose elements (a run of paragraphs)
/// often stops where the article goes on past a subheading: the methods
/// score blocks, and a paragraph between two headings is its own block.
/// Every sibling of a selected prose element that is prose too (paragraph,
/// subheading, quote, list), outside the selection and not mostly links,
/// joins it: a page-level stand-in for what a wrapper's every-match XPath
/// does across sibling pages. `counts` are the page's.
fn with_prose_siblings(doc: &Document, counts: &TextCounts, nodes: Vec<NodeId>) -> Vec<NodeId> {
    const PROSE: &[&str] = &[
        "p",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "ul",
        "ol",
    ];
    let is_prose = |n: NodeId| PROSE.contains(&doc.tag(n));
    // Half or more of its text is link text (or it has none).
    let mostly_links = |n: NodeId| 2 * counts.link_chars(n) >= counts.chars(n);
    let mut out = nodes.clone();
    for &n in &nodes {
        if !is_prose(n) {
            continue;
        }
        let Some(parent) = doc.node(n).parent else {
            continue;
        };
        for sibling in doc.children(parent) {
            if is_prose(sibling)
                && !nodes
                    .iter()
                    .any(|&m| doc.contains(m, sibling) || doc.contains(sibling, m))
                && !mostly_links(sibling)
            {
                out.push(sibling);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Fills an article's metadata from the nodes its text came from.
///
/// The `title` field becomes the article's heading when the page's title
/// confirms one, and so does the text's title line where one was added (the
/// heading is found whatever `--format` asks for, so the text does not
/// depend on it).
fn add_metadata(article: &mut Article, page: &Page<'_>, nodes: &[NodeId], title_lead: usize) {
    let doc = &page.doc;
    let base = base_url(doc, &page.record.url);
    let raw = raw_title(doc);
    let doc_title = doc.title();
    if let Some(heading) = article_heading(doc, nodes, &[&raw, &doc_title, &article.title]) {
        // The text's title line, when it was added, becomes the heading too.
        if let Some(rest) = article.text.strip_prefix(&format!("{}\n", article.title)) {
            article.text = with_title(&heading, rest, title_lead);
        }
        article.title = heading;
    }
    let capture = Capture {
        url: Some(&page.record.url),
        warc_date: page.record.date.as_deref(),
    };
    let meta = PageMeta::extract(doc, base.as_ref(), nodes, &capture);
    article.authors = (!meta.authors.is_empty()).then_some(meta.authors);
    article.date = meta.date;
    article.site_name = meta.site_name;
    article.canonical_url = meta.canonical_url;
    article.top_image = meta.top_image;
    article.warc_date = page.record.date.clone();
    let source = &page.record.source;
    article.source = (!source.file.is_empty()).then(|| source.clone());
}

/// The `--format` renderings of the selection's nodes that its text kept
/// (the keep rule of the residue and cleaning options the text was made
/// with). Without `--format` the keep rule is not computed again.
fn add_renderings(
    article: &mut Article,
    page: &Page<'_>,
    (nodes, pruned): (&[NodeId], &[NodeId]),
    residue: &Residue,
    clean: &CleanOptions,
    render: Render,
) {
    if !(render.html || render.markdown) {
        return;
    }
    let doc = &page.doc;
    let kept = Kept::new(doc, nodes, residue, clean, pruned);
    let base = base_url(doc, &page.record.url);
    let tree = CleanTree::build(doc, nodes, &|n| kept.keeps(n), base.as_ref());
    article.html = render.html.then(|| tree.html());
    article.markdown = render.markdown.then(|| tree.markdown());
}

/// The nodes a page-level method selects.
fn page_level_nodes(page: &Page<'_>, method: PageMethod, siblings: &[&Page<'_>]) -> Vec<NodeId> {
    let doc = &page.doc;
    match method {
        PageMethod::Wlr(v) => canopy_extract::wlr(doc, v),
        PageMethod::R4 => canopy_extract::r4(doc),
        PageMethod::Density => canopy_extract::density(doc),
        PageMethod::BlockExtractor => {
            let siblings: Vec<&Document> = siblings
                .iter()
                .filter(|s| s.index != page.index)
                .map(|s| &s.doc)
                .collect();
            canopy_extract::blockextractor(doc, &siblings)
        }
        PageMethod::Sigfeed => {
            // The feed item's words; without an item, the page's title.
            let source = page.feed.map_or_else(
                || raw_title(doc),
                |item| format!("{} {}", item.title, item.description),
            );
            let words: Vec<String> = source
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.chars().count() >= 3)
                .map(str::to_lowercase)
                .collect();
            let keywords: Vec<&str> = words.iter().map(String::as_str).collect();
            canopy_extract::sigfeed(doc, &keywords)
        }
        PageMethod::Description => Vec::new(),
        // Selected with its title and prior in `page_level_article`.
        PageMethod::Page => Vec::new(),
    }
}

pub(crate) fn raw_title(doc: &Document) -> String {
    doc.meta("og:title")
        .map(str::to_string)
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| doc.title())
}

fn article_title(page: &Page<'_>, site: &str, siblings: &[&str]) -> String {
    let raw = raw_title(&page.doc);
    // A title most siblings share word for word is the site's name (an
    // og:title set site-wide), not a headline: fall back to <title>.
    let shared =
        siblings.len() >= 2 && siblings.iter().filter(|t| **t == raw).count() * 2 >= siblings.len();
    if shared {
        clean_title(&page.doc.title(), site, siblings)
    } else {
        clean_title(&raw, site, siblings)
    }
}

/// The article: its title on the first line. When the extracted text has
/// the title among its first three lines, it opens there: what comes before
/// it inside the selection, if shorter than `max_lead` bytes, is the post's
/// meta line (a date, a comment count), not the article.
fn with_title(title: &str, text: &str, max_lead: usize) -> String {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let t = norm(title);
    if t.is_empty() {
        return text.to_string();
    }
    let mut before = 0;
    for line in text.split_inclusive('\n').take(3) {
        if norm(line) == t {
            return match text.get(before..) {
                Some(rest) if before < max_lead => rest.to_string(),
                _ => text.to_string(),
            };
        }
        before += line.len();
    }
    if text.is_empty() {
        return title.to_string();
    }
    format!("{title}\n{text}")
}

#[cfg(test)]
mod tests {
    use super::{with_prose_siblings, with_title, TextCounts};
    use canopy_dom::Document;
    use canopy_types::Decision;

    #[test]
    fn the_text_opens_at_its_title_line() {
        // Added when missing; a short meta line before it is cut; a long
        // lead before it stays (it is the article's).
        assert_eq!(
            with_title("Big news", "First line.", 150),
            "Big news\nFirst line."
        );
        let meta = "July 11th, 9:39am 0 comments\nBig  News\nFirst line.";
        assert_eq!(with_title("Big news", meta, 150), "Big  News\nFirst line.");
        assert_eq!(with_title("Big news", meta, 0), meta);
        let lead = format!(
            "{}\nBig news\nFirst line.",
            "A long standfirst. ".repeat(10)
        );
        assert_eq!(with_title("Big news", &lead, 150), lead);
    }
    use canopy_dom::DomOptions;

    #[test]
    fn a_prose_selection_gains_its_prose_siblings_only() {
        let doc = Document::parse(
            "<body><div id=post><h1>T</h1><p>First part.</p><h2>Then</h2><p>Second part.</p>\
             <ul><li><a href=/a>Related one</a></li><li><a href=/b>Related two</a></li></ul>\
             <div>Share</div></div><div id=side><p>About me.</p></div></body>",
            &DomOptions::default(),
        );
        let counts = TextCounts::of(&doc);
        let first = (0..doc.len())
            .find(|&n| doc.inner_text(n) == "First part." && doc.tag(n) == "p")
            .unwrap();
        let text = |nodes: Vec<usize>| -> Vec<String> {
            nodes.into_iter().map(|n| doc.inner_text(n)).collect()
        };
        // The subheading and the next paragraph join; the heading `h1`, the
        // link list, the `div` and the other column's paragraph do not.
        assert_eq!(
            text(with_prose_siblings(&doc, &counts, vec![first])),
            ["First part.", "Then", "Second part."]
        );
        // A selected container is left as it is.
        let post = (0..doc.len())
            .find(|&n| doc.attr(n, "id") == Some("post"))
            .unwrap();
        assert_eq!(with_prose_siblings(&doc, &counts, vec![post]), vec![post]);
    }

    /// A page of a dev corpus (`../shared/corpora`), parsed as a run does
    /// with the default settings.
    fn corpus_page(corpus: &str, id: &str, index: usize) -> crate::page::Page<'static> {
        let rows = canopy_test_support::manifest(corpus);
        let row = rows.iter().find(|r| r["id"] == id).unwrap();
        let path = canopy_test_support::corpus_file(&format!("{corpus}/{}", row["html"]));
        let html = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let doc = Document::parse(&html, &default_settings().dom);
        test_page(index, &row["url"], &row["record_id"], doc)
    }

    /// An English page of a run, from its parsed document.
    fn test_page(
        index: usize,
        url: &str,
        record_id: &str,
        doc: Document,
    ) -> crate::page::Page<'static> {
        // No feed item: a map of none, alive as long as the page.
        let feeds: &'static std::collections::HashMap<String, canopy_types::FeedItem> =
            Box::leak(Box::default());
        let mut page = crate::page::Page::new(
            test_record(url, record_id, String::new()),
            doc,
            canopy_signifiers::PageLanguage {
                declared: Some("en"),
            },
            Default::default(),
            feeds,
        );
        page.index = index;
        page
    }

    /// The record of a page fetched whole as UTF-8 with status 200.
    fn test_record(url: &str, record_id: &str, html: String) -> canopy_types::PageRecord {
        use canopy_types::{PageRecord, SourceRef};
        PageRecord {
            url: url.into(),
            record_id: record_id.into(),
            source: SourceRef {
                file: "test".into(),
                offset: None,
            },
            status: Some(200),
            charset: "UTF-8".into(),
            date: None,
            content_language: None,
            html,
        }
    }

    fn default_settings() -> super::SiteSettings {
        let config = crate::config::Config::load(None).unwrap();
        super::SiteSettings::new(&config, crate::method::Method::Forest).unwrap()
    }

    /// The wrapper that selects the elements of `n`'s type at `n`'s level.
    fn wrapper_of(doc: &Document, n: usize) -> canopy_forest::Wrapper {
        canopy_forest::Wrapper {
            pattern: canopy_forest::Pattern {
                ty: canopy_forest::ElementType::of(doc, n, canopy_forest::Untyped::Anchored),
                level: canopy_forest::levels(doc)[n],
                exact: None,
            },
            relevance: 0.0,
            dfs: Vec::new(),
        }
    }

    /// `wrapper` checked against the page-level path on `pages`, as
    /// `check_against_page_path` checks it.
    fn check_on(
        pages: &[crate::page::Page<'_>],
        wrapper: &canopy_forest::Wrapper,
    ) -> canopy_types::WrapperCheck {
        use super::check::both_extractions;
        use super::Residue;
        let settings = default_settings();
        let docs: Vec<&Document> = pages.iter().map(|p| &p.doc).collect();
        let residue = Residue::learn(&docs);
        let both: Vec<_> = pages
            .iter()
            .map(|p| {
                let title = p.doc.title();
                both_extractions(p, wrapper, &title, &[], &residue, &settings, false)
            })
            .collect();
        let by_wrapper: Vec<_> = both.iter().map(|b| b.by_wrapper()).collect();
        let by_page: Vec<_> = both.iter().map(|b| b.by_page()).collect();
        canopy_extract::check_wrapper(&by_wrapper, &by_page)
    }

    /// The wrapper Forest learns from `pages`.
    fn learned(pages: &[crate::page::Page<'_>]) -> canopy_forest::Wrapper {
        let held: Vec<&crate::page::Page<'_>> = pages.iter().collect();
        let backlog = crate::backlog::Backlog::default();
        super::learn(&held, &[], &default_settings(), &backlog).unwrap()
    }

    /// A small cluster's idf counts up to `BACKGROUND_PAGES` of the site's
    /// other pages by their body's distinct stems, analysed once and kept
    /// by the site: the site's next small cluster reads them from there and
    /// learns what pages analysed afresh would teach it.
    #[test]
    fn a_small_clusters_background_pages_are_analysed_once_and_count_the_same() {
        use crate::pages::SitePages;
        let ids = [
            "big9-00101",
            "big9-00107",
            "big9-00001",
            "big9-00002",
            "big9-00003",
            "big9-00004",
            "big9-00016",
            "big9-00017",
        ];
        let settings = default_settings();
        let backlog = crate::backlog::Backlog::default();
        let feeds = std::collections::HashMap::new();
        let rows = canopy_test_support::manifest("big9");
        let records: Vec<canopy_types::PageRecord> = ids
            .iter()
            .map(|id| {
                let row = rows.iter().find(|r| r["id"] == *id).unwrap();
                let path = canopy_test_support::corpus_file(&format!("big9/{}", row["html"]));
                let html = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
                test_record(&row["url"], &row["record_id"], html)
            })
            .collect();
        let mut rejects = Vec::new();
        let site = SitePages::hold(records, &feeds, &settings, &backlog, &mut rejects);
        assert!(rejects.is_empty());
        let others: Vec<usize> = (2..ids.len()).collect();
        let cold = site.body_stems(&others).unwrap();
        let warm = site.body_stems(&others).unwrap();
        for (c, w) in cold.iter().zip(&warm) {
            assert!(std::sync::Arc::ptr_eq(c, w), "kept, not analysed again");
        }
        site.with(&[0, 1], |cluster| {
            let learned = super::learn(cluster, &cold, &settings, &backlog).unwrap();
            // The background counts: without it the idf is the two pages'.
            let alone = super::learn(cluster, &[], &settings, &backlog).unwrap();
            assert_ne!(learned.relevance, alone.relevance);
        })
        .unwrap();
        site.with(&others, |pages| {
            for (p, kept) in pages.iter().zip(&cold) {
                let kept: Vec<&str> = kept.iter().collect();
                let (terms, stems) = p.terms();
                let stems: Vec<&str> = stems.iter().collect();
                let body = p.doc.body();
                let mut fresh: Vec<&str> = Vec::new();
                for &t in terms.of_range(body, p.doc.node(body).end) {
                    if !fresh.contains(&stems[t as usize]) {
                        fresh.push(stems[t as usize]);
                    }
                }
                assert!(!fresh.is_empty());
                assert_eq!(kept, fresh, "each stem of the body once, in order");
            }
        })
        .unwrap();
    }

    /// An old layout's column is a `<font>` closed while its last
    /// paragraph is still open; html5ever's adoption agency moves that
    /// paragraph out of it. A wrapper on the `<font>` still selects the
    /// paragraph, as lxml's evaluation of its XPath on the raw page does.
    #[test]
    fn a_wrapper_on_a_font_column_keeps_the_paragraph_the_parser_moved_out() {
        let page = corpus_page("big9", "big9-00007", 0);
        let doc = &page.doc;
        let last = "The launch of an iTunes-using phone has been promised";
        let column = (0..doc.len())
            .filter(|&n| doc.tag(n) == "font")
            .find(|&n| doc.inner_text(n).contains("However, the huge success"))
            .unwrap();
        assert!(!doc.inner_text(column).contains(last));
        let selected: String = wrapper_of(doc, column)
            .apply(doc)
            .into_iter()
            .map(|n| doc.inner_text(n))
            .collect();
        assert!(selected.contains("However, the huge success"), "{selected}");
        assert!(selected.contains(last), "{selected}");
    }

    /// An old layout's story column and right rail share a type
    /// (`td valign=top width=426` and `width=328`, read tolerantly), and
    /// the rail's promotions change from page to page, so residue keeps
    /// them. The wrapper learned on the template's pages is narrowed to the
    /// story column's width and selects it alone.
    #[test]
    fn a_wrapper_on_an_old_layouts_story_column_leaves_out_the_rail_of_its_type() {
        let ids = ["big9-00004", "big9-00016", "big9-00032", "big9-00037"];
        let pages: Vec<_> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| corpus_page("big9", id, i))
            .collect();
        let promotion = "Presented By Luxury Link";
        let wrapper = learned(&pages);
        assert_eq!(
            wrapper.pattern.exact,
            Some(("width".to_string(), "426".to_string())),
            "{}",
            wrapper.xpath()
        );
        for page in &pages {
            let selected = wrapper.apply(&page.doc);
            assert_eq!(selected.len(), 1, "{}", page.record.url);
            assert!(!page.doc.inner_text(selected[0]).contains(promotion));
        }
        let mut wide = wrapper.clone();
        wide.pattern.exact = None;
        let rails = pages
            .iter()
            .filter(|p| {
                wide.apply(&p.doc)
                    .iter()
                    .any(|&n| p.doc.inner_text(n).contains(promotion))
            })
            .count();
        assert!(rails >= 2, "the type alone selects the rail too: {rails}");
    }

    /// A post of front pages, each photo over the same credit: the credit
    /// repeated 26 times outweighs the post's own text, but counted once
    /// it is a caption like any other, and goes.
    #[test]
    fn a_credit_repeated_under_every_photo_leaves_the_wrappers_article() {
        let ids = ["dragnet-00441", "dragnet-00444", "dragnet-00445"];
        let pages: Vec<_> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| corpus_page("dragnet", id, i))
            .collect();
        let wrapper = learned(&pages);
        let settings = default_settings();
        let docs: Vec<&Document> = pages.iter().map(|p| &p.doc).collect();
        let residue = super::Residue::learn(&docs);
        let post = &pages[2];
        let credit = "Front page appears courtesy of the Newseum";
        let whole = post.doc.inner_text(post.doc.body());
        assert!(whole.matches(credit).count() > 20);
        let title = post.doc.title();
        let both =
            super::check::both_extractions(post, &wrapper, &title, &[], &residue, &settings, false);
        let text = &both.wrapper.text;
        assert!(text.contains("Photography dominated"), "{text}");
        assert!(!text.contains(credit), "{text}");
    }

    /// The wrapper learned from two real pages of one template agrees with
    /// the page-level path; a wrapper on their lists of related posts (a
    /// block each page has, different on each: what a two-page idf can
    /// favour) gives way to it, its text being all links.
    #[test]
    fn a_wrapper_on_a_related_list_gives_way_to_the_page_level_path() {
        let pages = [
            corpus_page("dragnet", "dragnet-00334", 0),
            corpus_page("dragnet", "dragnet-00335", 1),
        ];
        let agreed = check_on(&pages, &learned(&pages));
        assert_eq!(agreed.decision, Decision::Agree, "{agreed:?}");

        let doc = &pages[0].doc;
        let related = (0..doc.len())
            .find(|&n| doc.attr(n, "class") == Some("woo-sc-related-posts"))
            .unwrap();
        let wrapper = wrapper_of(doc, related);
        assert!(
            pages.iter().all(|p| !wrapper.apply(&p.doc).is_empty()),
            "the related list is on both pages"
        );
        let gave_way = check_on(&pages, &wrapper);
        assert_eq!(gave_way.decision, Decision::Page, "{gave_way:?}");
        assert!(gave_way.agreement < 0.5, "{gave_way:?}");
    }

    /// Where the page-level path takes in a column the pages share (a
    /// short post beside a long sidebar), the two disagree and the
    /// wrapper keeps the cluster: the column's lines repeat on the other
    /// page, the post's do not.
    #[test]
    fn a_page_level_path_that_takes_in_a_shared_column_does_not_win() {
        let pages = [
            corpus_page("dragnet", "dragnet-00149", 0),
            corpus_page("dragnet", "dragnet-00150", 1),
        ];
        let check = check_on(&pages, &learned(&pages));
        assert!(check.agreement < 0.5, "{check:?}");
        assert_eq!(check.decision, Decision::Wrapper, "{check:?}");
    }

    #[test]
    fn a_far_shorter_wrapper_text_goes_to_the_page_level_path_if_it_finds_more() {
        use super::check::{median, Serve};
        assert_eq!(median(&[900, 100, 1000, 1100]), 900);
        assert_eq!(median(&[]), 0);
        let serve = Serve {
            wrapper: None,
            median_chars: 1000,
        };
        // Under a fifth of the template's median: checked; the page-level
        // path's text serves if it reaches half the median.
        assert!(serve.is_short(150));
        assert!(!serve.is_short(250));
        assert!(serve.is_typical(600));
        assert!(!serve.is_typical(300));
        // Without checked pages there is no median: nothing is short.
        let unknown = Serve {
            wrapper: None,
            median_chars: 0,
        };
        assert!(!unknown.is_short(1));
    }

    #[test]
    fn a_method_run_alone_is_not_widened_the_fallback_is() {
        use super::{page_level_article, PageMethod, Prior, Render, Role};
        use canopy_extract::{CleanOptions, WlrVariant};

        let words = |n: usize, w: &str| vec![w; n].join(" ");
        let html = format!(
            "<body><div id=post><h1>Title</h1><p>{}.</p><h2>Then</h2><p>{}.</p></div></body>",
            words(60, "first"),
            words(20, "second"),
        );
        let page = test_page(
            0,
            "http://example.com/a",
            "<urn:uuid:1>",
            Document::parse(&html, &DomOptions::default()),
        );
        let wlr = [PageMethod::Wlr(WlrVariant::Wlr)];
        let article = |role| {
            page_level_article(
                "example.com",
                "example.com/0",
                &page,
                &wlr,
                &[],
                &[],
                role,
                Render::default(),
                &Prior::default(),
            )
            .text
        };
        // WLR alone selects the long paragraph, as its paper does: nothing
        // after it joins.
        let alone = article(Role::Alone);
        assert!(alone.contains("first first"), "{alone}");
        assert!(!alone.contains("second"), "{alone}");
        // As the fallback, the paragraph's prose siblings join it.
        let fallback = article(Role::Fallback(&CleanOptions::none()));
        assert!(fallback.contains("first first"), "{fallback}");
        assert!(fallback.contains("Then\nsecond second"), "{fallback}");
    }
}
