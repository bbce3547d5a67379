//! A tantivy full-text index of Canopy's articles (`articles.jsonl`), and
//! search over it.
//!
//! # Schema
//!
//! | field | type | what |
//! |---|---|---|
//! | `title_<lang>`, `text_<lang>` | text, stored | the article's title and text, in the field pair of its language |
//! | `url`, `record_id`, `site`, `language` | raw string, stored | exact-match fields (`site:bbc`) |
//! | `date` | date, stored | the article's `date` when it is ISO 8601 (`2013-05-01` or a date-time) |
//!
//! # One field pair per language
//!
//! tantivy picks a tokenizer per field, not per document, so each language
//! of `canopy_signifiers::Language` (18 with a stemmer, and `und` for the
//! rest) has its own `title_<code>` / `text_<code>` pair tokenized by that
//! language's analyzer ([`analyzer`]: the same terms as the signifiers:
//! stop words, Snowball stems, CJK characters as terms). An article goes into
//! the pair of its `lang`. A query is parsed against every pair, each with
//! its own analyzer, so "running" finds English "runs" and German "laufen"
//! would find "läuft"; BM25 statistics stay per language. The cost: 38 text
//! fields in the schema, empty ones cost nothing.
//!
//! Titles weigh [`TITLE_BOOST`] times the text.
//!
//! # Determinism
//!
//! Articles are added by one indexing thread in file order and committed
//! once, so document ids follow the file and ties in score are broken by
//! file order: the same `articles.jsonl` gives the same hits.

pub mod analyzer;

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use canopy_signifiers::Language;
use chrono::{DateTime as ChronoDateTime, NaiveDate, SecondsFormat, Utc};
use serde::Deserialize;
use tantivy::collector::TopDocs;
use tantivy::schema::{
    DateOptions, DateTimePrecision, Field, IndexRecordOption, Schema, TextFieldIndexing,
    TextOptions, Value, STORED, STRING,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::{DateTime, Index, IndexReader, TantivyDocument};

use crate::analyzer::{text_analyzer, tokenizer_name};

/// How much more a query term found in the title weighs than in the text.
pub const TITLE_BOOST: f32 = 2.0;

/// Memory of the (single) indexing thread.
const WRITER_MEMORY: usize = 64 << 20;

/// Characters of a hit's snippet.
const SNIPPET_CHARS: usize = 200;

/// What can go wrong building or opening an index. Each message says its
/// cause itself and none is chained as a `source`, as the other crates'
/// errors do, so a caller that prints the chain (`anyhow`'s `{:#}`) does
/// not say it twice.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("cannot read {path}: {error}")]
    Input { path: PathBuf, error: io::Error },
    #[error("{0} exists and is not a Canopy index; not overwriting it")]
    NotAnIndex(PathBuf),
    #[error("{0} holds no index (no meta.json): build one with `canopy index`")]
    NoIndex(PathBuf),
    #[error("{0}: {1}")]
    Io(PathBuf, io::Error),
    #[error("tantivy: {0}")]
    Tantivy(tantivy::TantivyError),
}

impl From<tantivy::TantivyError> for IndexError {
    fn from(e: tantivy::TantivyError) -> Self {
        IndexError::Tantivy(e)
    }
}

/// One line of `articles.jsonl`, as far as the index needs it. Unknown
/// fields are ignored and `date` may be absent, so older and newer
/// `articles.jsonl` files are read alike.
#[derive(Debug, Deserialize)]
struct IndexArticle {
    url: String,
    #[serde(default)]
    record_id: String,
    #[serde(default)]
    site: String,
    #[serde(default)]
    title: String,
    text: String,
    #[serde(default)]
    lang: String,
    #[serde(default)]
    date: Option<String>,
}

/// The fields of the schema.
#[derive(Clone)]
struct Fields {
    /// `(title, text)` per language, in `Language::ALL` order.
    by_lang: Vec<(Field, Field)>,
    url: Field,
    record_id: Field,
    site: Field,
    language: Field,
    date: Field,
}

impl Fields {
    fn schema() -> (Schema, Fields) {
        let mut b = Schema::builder();
        let by_lang = Language::ALL
            .iter()
            .map(|&lang| {
                let options = TextOptions::default().set_stored().set_indexing_options(
                    TextFieldIndexing::default()
                        .set_tokenizer(&tokenizer_name(lang))
                        .set_index_option(IndexRecordOption::WithFreqsAndPositions),
                );
                (
                    b.add_text_field(&format!("title_{}", lang.code()), options.clone()),
                    b.add_text_field(&format!("text_{}", lang.code()), options),
                )
            })
            .collect();
        let fields = Fields {
            by_lang,
            url: b.add_text_field("url", STRING | STORED),
            record_id: b.add_text_field("record_id", STRING | STORED),
            site: b.add_text_field("site", STRING | STORED),
            language: b.add_text_field("language", STRING | STORED),
            date: b.add_date_field(
                "date",
                DateOptions::from(STORED)
                    .set_indexed()
                    .set_fast()
                    .set_precision(DateTimePrecision::Seconds),
            ),
        };
        (b.build(), fields)
    }

    fn from_schema(schema: &Schema) -> Result<Fields, IndexError> {
        let get = |name: &str| schema.get_field(name).map_err(IndexError::Tantivy);
        let by_lang = Language::ALL
            .iter()
            .map(|lang| {
                Ok((
                    get(&format!("title_{}", lang.code()))?,
                    get(&format!("text_{}", lang.code()))?,
                ))
            })
            .collect::<Result<_, IndexError>>()?;
        Ok(Fields {
            by_lang,
            url: get("url")?,
            record_id: get("record_id")?,
            site: get("site")?,
            language: get("language")?,
            date: get("date")?,
        })
    }
}

/// Registers the per-language analyzers (tokenizers are not stored in the
/// index, so this is done on every open).
fn register_tokenizers(index: &Index) {
    for &lang in &Language::ALL {
        index
            .tokenizers()
            .register(&tokenizer_name(lang), text_analyzer(lang));
    }
}

/// The language of an article's `lang` code; unknown codes and `und` are
/// [`Language::Other`].
fn language_of(code: &str) -> Language {
    Language::from_tag(code).unwrap_or(Language::Other)
}

fn lang_index(lang: Language) -> usize {
    Language::ALL.iter().position(|&l| l == lang).unwrap_or(0)
}

/// An ISO 8601 date (`2013-05-01`) or date-time with offset, as a tantivy
/// date; `None` otherwise.
fn parse_date(raw: &str) -> Option<DateTime> {
    let raw = raw.trim();
    let secs = match ChronoDateTime::parse_from_rfc3339(raw) {
        Ok(dt) => dt.timestamp(),
        Err(_) => NaiveDate::parse_from_str(raw, "%Y-%m-%d")
            .ok()?
            .and_hms_opt(0, 0, 0)?
            .and_utc()
            .timestamp(),
    };
    Some(DateTime::from_timestamp_secs(secs))
}

/// What [`build_index`] did.
#[derive(Debug, Default)]
pub struct BuildReport {
    /// Articles indexed.
    pub indexed: usize,
    /// Lines that were not articles: `(line number, reason)`.
    pub skipped: Vec<(usize, String)>,
}

/// Builds an index at `out` from the articles of `articles` (a Canopy
/// `articles.jsonl`).
///
/// The index is built in a temporary folder next to `out` and then renamed
/// to `out`, so a failed build leaves any previous index in place. An
/// existing `out` is replaced only when it is a tantivy index (it holds
/// `meta.json`) or empty. A line that is not an article is skipped and
/// reported; the others are indexed.
pub fn build_index(articles: &Path, out: &Path) -> Result<BuildReport, IndexError> {
    let input_err = |error| IndexError::Input {
        path: articles.to_path_buf(),
        error,
    };
    let lines = BufReader::new(File::open(articles).map_err(input_err)?);
    if out.exists() && !is_replaceable(out) {
        return Err(IndexError::NotAnIndex(out.to_path_buf()));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent).map_err(|e| IndexError::Io(parent.to_path_buf(), e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".canopy-index.")
        .tempdir_in(parent)
        .map_err(|e| IndexError::Io(parent.to_path_buf(), e))?;

    let (schema, fields) = Fields::schema();
    let index = Index::create_in_dir(tmp.path(), schema)?;
    register_tokenizers(&index);
    let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, WRITER_MEMORY)?;
    let mut report = BuildReport::default();
    for (i, line) in lines.lines().enumerate() {
        let number = i + 1;
        let line = line.map_err(input_err)?;
        if line.trim().is_empty() {
            continue;
        }
        let article: IndexArticle = match serde_json::from_str(&line) {
            Ok(a) => a,
            Err(e) => {
                report.skipped.push((number, e.to_string()));
                continue;
            }
        };
        writer.add_document(document(&fields, &article))?;
        report.indexed += 1;
    }
    writer.commit()?;
    writer.wait_merging_threads()?;

    if out.exists() {
        std::fs::remove_dir_all(out).map_err(|e| IndexError::Io(out.to_path_buf(), e))?;
    }
    let built = tmp.keep();
    std::fs::rename(&built, out).map_err(|e| IndexError::Io(out.to_path_buf(), e))?;
    Ok(report)
}

/// Whether `dir` may be replaced by a new index: an existing index or an
/// empty folder.
fn is_replaceable(dir: &Path) -> bool {
    dir.join("meta.json").is_file()
        || std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none())
}

fn document(fields: &Fields, article: &IndexArticle) -> TantivyDocument {
    let lang = language_of(&article.lang);
    let (title, text) = fields.by_lang[lang_index(lang)];
    let mut doc = TantivyDocument::default();
    doc.add_text(title, &article.title);
    doc.add_text(text, &article.text);
    doc.add_text(fields.url, &article.url);
    doc.add_text(fields.record_id, &article.record_id);
    doc.add_text(fields.site, &article.site);
    doc.add_text(fields.language, lang.code());
    if let Some(date) = article.date.as_deref().and_then(parse_date) {
        doc.add_date(fields.date, date);
    }
    doc
}

/// One search result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub score: f32,
    pub title: String,
    pub url: String,
    pub record_id: String,
    pub site: String,
    pub language: String,
    /// The article's date (UTC, RFC 3339), when it had one.
    pub date: Option<String>,
    /// A passage of the text around the query's terms, on one line, with
    /// the matched words between `**`.
    pub snippet: String,
}

/// An index opened for searching.
pub struct ArticleIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

impl ArticleIndex {
    /// Opens the index at `dir`.
    pub fn open(dir: &Path) -> Result<ArticleIndex, IndexError> {
        if !dir.join("meta.json").is_file() {
            return Err(IndexError::NoIndex(dir.to_path_buf()));
        }
        let index = Index::open_in_dir(dir)?;
        register_tokenizers(&index);
        let fields = Fields::from_schema(&index.schema())?;
        let reader = index.reader()?;
        Ok(ArticleIndex {
            index,
            reader,
            fields,
        })
    }

    /// Number of articles in the index.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Whether the index holds no article.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The best `limit` hits for `query`, and the parts of the query that
    /// could not be parsed (tantivy's query syntax: `AND`, `OR`, `-word`,
    /// `"phrase"`, `site:bbc`, `date:[2013-01-01T00:00:00Z TO *]`; a part
    /// in error is left out rather than failing the search).
    pub fn search(&self, query: &str, limit: usize) -> Result<(Vec<Hit>, Vec<String>), IndexError> {
        let mut defaults = Vec::new();
        for &(title, text) in &self.fields.by_lang {
            defaults.push(title);
            defaults.push(text);
        }
        let mut parser = tantivy::query::QueryParser::for_index(&self.index, defaults);
        for &(title, _) in &self.fields.by_lang {
            parser.set_field_boost(title, TITLE_BOOST);
        }
        let (query, errors) = parser.parse_query_lenient(query);
        let warnings = errors.iter().map(ToString::to_string).collect();
        let searcher = self.reader.searcher();
        // No more hits than articles: tantivy sizes its top-k heap by the
        // limit, so `--limit 18446744073709551615` overflowed it (a panic)
        // and 10^12 asked for terabytes. Bounded by the index, what is
        // allocated follows the results.
        let limit = limit.min(usize::try_from(searcher.num_docs()).unwrap_or(usize::MAX));
        if limit == 0 {
            return Ok((Vec::new(), warnings));
        }
        let top = searcher.search(&*query, &TopDocs::with_limit(limit).order_by_score())?;
        let mut snippets: HashMap<usize, SnippetGenerator> = HashMap::new();
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            let text_of = |field: Field| {
                doc.get_first(field)
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            };
            let language = text_of(self.fields.language);
            let li = lang_index(language_of(&language));
            let (title_field, text_field) = self.fields.by_lang[li];
            let generator = match snippets.entry(li) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let mut g = SnippetGenerator::create(&searcher, &*query, text_field)?;
                    g.set_max_num_chars(SNIPPET_CHARS);
                    e.insert(g)
                }
            };
            let snippet = render_snippet(&generator.snippet_from_doc(&doc));
            let date = doc
                .get_first(self.fields.date)
                .and_then(|v| v.as_datetime())
                .and_then(|d| ChronoDateTime::<Utc>::from_timestamp(d.into_timestamp_secs(), 0))
                .map(|d| d.to_rfc3339_opts(SecondsFormat::Secs, true));
            hits.push(Hit {
                score,
                title: text_of(title_field),
                url: text_of(self.fields.url),
                record_id: text_of(self.fields.record_id),
                site: text_of(self.fields.site),
                date,
                language,
                snippet,
            });
        }
        Ok((hits, warnings))
    }
}

/// `text` as a query of plain words: every character that is not a letter
/// or digit becomes a space and the rest is lowercased, so quotes, `-`,
/// `:`, brackets and `AND`/`OR` in a pasted title are words, not syntax.
/// The analyzers split words on the same characters, so no term is lost.
pub fn plain_query(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .to_lowercase()
}

/// A snippet on one line with its highlighted words between `**`.
fn render_snippet(snippet: &tantivy::snippet::Snippet) -> String {
    let fragment = snippet.fragment();
    let mut out = String::with_capacity(fragment.len() + 16);
    let mut at = 0;
    for range in snippet.highlighted() {
        if range.start < at {
            continue;
        }
        out.push_str(fragment.get(at..range.start).unwrap_or_default());
        out.push_str("**");
        out.push_str(fragment.get(range.clone()).unwrap_or_default());
        out.push_str("**");
        at = range.end;
    }
    out.push_str(fragment.get(at..).unwrap_or_default());
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write_articles(dir: &Path, lines: &[&str]) -> PathBuf {
        let path = dir.join("articles.jsonl");
        let mut f = File::create(&path).unwrap();
        for line in lines {
            writeln!(f, "{line}").unwrap();
        }
        path
    }

    #[test]
    fn builds_searches_and_skips_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let articles = write_articles(
            dir.path(),
            &[
                r#"{"url":"http://a/1","record_id":"<r1>","site":"a","title":"Runners in the park","text":"Runners in the park\nThe runners were running past the lake.","lang":"en","date":"2013-05-01"}"#,
                r#"{"url":"http://b/2","record_id":"<r2>","site":"b","title":"Die Läufer","text":"Die Läufer liefen durch den Park der Stadt.","lang":"de"}"#,
                "not json",
                r#"{"url":"http://c/3","record_id":"<r3>","site":"c","title":"Taxes","text":"Taxes were cut for small firms.","lang":"en","date":null,"authors":["x"]}"#,
            ],
        );
        let out = dir.path().join("index");
        let report = build_index(&articles, &out).unwrap();
        assert_eq!(report.indexed, 3);
        assert_eq!(report.skipped.len(), 1);
        assert_eq!(report.skipped[0].0, 3);

        let index = ArticleIndex::open(&out).unwrap();
        assert_eq!(index.len(), 3);
        // Stemmed: "run" matches "running"/"runners" only in the English pair.
        let (hits, warnings) = index.search("run", 10).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].url, "http://a/1");
        assert_eq!(hits[0].date.as_deref(), Some("2013-05-01T00:00:00Z"));
        assert!(
            hits[0].snippet.contains("**running**"),
            "{}",
            hits[0].snippet
        );
        // German stemming: "Läufer" finds the German article.
        let (hits, _) = index.search("läufer", 10).unwrap();
        assert_eq!(hits[0].url, "http://b/2");
        assert_eq!(hits[0].date, None);
        // Exact fields.
        let (hits, _) = index.search("site:c", 10).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].title, "Taxes");
        // A broken query part is reported, the rest still searched.
        let (hits, warnings) = index.search("nosuchfield:x taxes", 10).unwrap();
        assert!(!warnings.is_empty());
        assert_eq!(hits[0].url, "http://c/3");
    }

    #[test]
    fn any_limit_gives_the_hits_there_are() {
        let dir = tempfile::tempdir().unwrap();
        let articles = write_articles(
            dir.path(),
            &[
                r#"{"url":"u1","title":"t","text":"some words","lang":"en"}"#,
                r#"{"url":"u2","title":"t","text":"more words","lang":"en"}"#,
            ],
        );
        let out = dir.path().join("index");
        build_index(&articles, &out).unwrap();
        let index = ArticleIndex::open(&out).unwrap();
        // Both panicked or aborted in tantivy's top-k heap, sized by the limit.
        for limit in [usize::MAX, 1_000_000_000_000, 3, 2] {
            assert_eq!(index.search("words", limit).unwrap().0.len(), 2, "{limit}");
        }
        assert_eq!(index.search("words", 1).unwrap().0.len(), 1);
        assert!(index.search("words", 0).unwrap().0.is_empty());
    }

    #[test]
    fn replaces_an_index_but_not_other_folders() {
        let dir = tempfile::tempdir().unwrap();
        let articles = write_articles(
            dir.path(),
            &[r#"{"url":"u","title":"t","text":"some words","lang":"en"}"#],
        );
        let out = dir.path().join("index");
        build_index(&articles, &out).unwrap();
        build_index(&articles, &out).unwrap();
        assert_eq!(ArticleIndex::open(&out).unwrap().len(), 1);
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("keep.txt"), "x").unwrap();
        assert!(matches!(
            build_index(&articles, &other),
            Err(IndexError::NotAnIndex(_))
        ));
        assert!(other.join("keep.txt").exists());
        assert!(matches!(
            ArticleIndex::open(&other),
            Err(IndexError::NoIndex(_))
        ));
    }

    #[test]
    fn plain_queries_have_no_syntax() {
        assert_eq!(
            plain_query("'Rock AND Roll' - Pastore (10/30/12) site:x"),
            " rock and roll    pastore  10 30 12  site x"
        );
    }

    #[test]
    fn dates() {
        assert_eq!(
            parse_date("2013-05-01T10:00:00+02:00").map(|d| d.into_timestamp_secs()),
            Some(1_367_395_200)
        );
        assert_eq!(
            parse_date("2013-05-01").map(|d| d.into_timestamp_secs()),
            Some(1_367_366_400)
        );
        assert_eq!(parse_date("May 1st"), None);
    }
}
