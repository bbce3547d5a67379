//! `articles.parquet` (`--format parquet`): the lines of `articles.jsonl`
//! as a Parquet file of typed columns, for the tools that read Parquet
//! (pyarrow, pandas, Polars, DuckDB, Spark, Hugging Face `datasets`).
//!
//! One row per line of `articles.jsonl`, in its order, one column per
//! field of an article ([`canopy_types::Article`]): text columns (UTF-8),
//! nullable where the JSON field may be `null`, and `authors` a nullable
//! list of strings. Dates stay strings as written in `articles.jsonl`:
//! `date` is a date or a date-time with its own offset, `warc_date` the
//! `WARC-Date` as the WARC gives it; a timestamp column would lose the
//! difference. `source` is a nullable struct of the input `file` and the
//! record's byte `offset` in it. `html` and `markdown` are columns when the run writes them
//! (`--format html`, `--format markdown`).
//!
//! The bytes are a function of `articles.jsonl` alone: row groups of a
//! fixed number of rows, no time or host in the metadata, `created_by`
//! naming this crate's Parquet writer version.

use std::io::{self, BufRead, Write};
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder, StructBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use canopy_types::Article;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

/// Rows per row group, the unit readers fetch and skip (and what the
/// writer holds in memory before writing it): an article is 4–5 KB of
/// text and metadata (`articles.jsonl` bytes per line: big9 4.7 KB,
/// dragnet 3.9 KB), so a group is about 40–50 MB, near the 64–128 MB that
/// Spark and the Hugging Face viewer work well with; a fixed count (not a
/// size estimate) keeps the bytes the same on every machine.
pub const ROW_GROUP_ROWS: usize = 10_000;

/// Rows converted to Arrow at a time: a tenth of a row group, so that a
/// string column of one batch stays far below Arrow's 2 GiB offsets.
const BATCH_ROWS: usize = ROW_GROUP_ROWS / 10;

/// Which optional renderings are columns (`--format html,markdown`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Renderings {
    pub html: bool,
    pub markdown: bool,
}

/// The columns of `articles.parquet`, in order: the fields of an
/// `articles.jsonl` line.
pub fn schema(renderings: Renderings) -> SchemaRef {
    let text = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    let mut fields = vec![
        text("url", false),
        text("record_id", false),
        text("site", false),
        text("cluster", false),
        text("method", false),
        text("wrapper", true),
        text("title", false),
        text("text", false),
        text("lang", false),
        Field::new("authors", DataType::List(Arc::new(author_field())), true),
        text("date", true),
        text("site_name", true),
        text("canonical_url", true),
        text("top_image", true),
        text("warc_date", true),
        Field::new("source", DataType::Struct(source_fields()), true),
    ];
    if renderings.html {
        fields.push(text("html", true));
    }
    if renderings.markdown {
        fields.push(text("markdown", true));
    }
    Arc::new(Schema::new(fields))
}

/// The fields of the `source` struct: the input file (never null in a
/// source that is there) and the record's byte offset (null for a file
/// that is one page).
fn source_fields() -> Fields {
    Fields::from(vec![
        Field::new("file", DataType::Utf8, false),
        Field::new("offset", DataType::UInt64, true),
    ])
}

/// An author's name in the `authors` list: never null.
fn author_field() -> Field {
    Field::new("item", DataType::Utf8, false)
}

/// Writes the articles of `articles` (the lines of an `articles.jsonl`)
/// into `out` as Parquet, one row group after another; returns the rows
/// written. A line that is not an article is an error naming its number.
pub fn write_articles<W: Write + Send>(
    articles: impl BufRead,
    out: W,
    renderings: Renderings,
) -> io::Result<u64> {
    let schema = schema(renderings);
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .build();
    let mut writer =
        ArrowWriter::try_new(out, schema.clone(), Some(properties)).map_err(io::Error::other)?;
    let mut batch = Vec::with_capacity(BATCH_ROWS);
    let mut rows = 0u64;
    for (n, line) in articles.lines().enumerate() {
        let article: Article = serde_json::from_str(&line?).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("line {}: not an article: {e}", n + 1),
            )
        })?;
        batch.push(article);
        if batch.len() == BATCH_ROWS {
            rows += write_batch(&mut writer, &schema, renderings, &batch)?;
            batch.clear();
        }
    }
    rows += write_batch(&mut writer, &schema, renderings, &batch)?;
    writer.close().map_err(io::Error::other)?;
    Ok(rows)
}

fn write_batch<W: Write + Send>(
    writer: &mut ArrowWriter<W>,
    schema: &SchemaRef,
    renderings: Renderings,
    articles: &[Article],
) -> io::Result<u64> {
    if articles.is_empty() {
        return Ok(0);
    }
    let batch = RecordBatch::try_new(schema.clone(), columns(articles, renderings))
        .map_err(io::Error::other)?;
    writer.write(&batch).map_err(io::Error::other)?;
    Ok(articles.len() as u64)
}

/// The arrays of [`schema`]'s columns for `articles`.
fn columns(articles: &[Article], renderings: Renderings) -> Vec<ArrayRef> {
    let text = |get: fn(&Article) -> &str| -> ArrayRef {
        let mut b = StringBuilder::new();
        for a in articles {
            b.append_value(get(a));
        }
        Arc::new(b.finish())
    };
    let nullable = |get: fn(&Article) -> Option<&str>| -> ArrayRef {
        let mut b = StringBuilder::new();
        for a in articles {
            b.append_option(get(a));
        }
        Arc::new(b.finish())
    };
    let mut authors = ListBuilder::new(StringBuilder::new()).with_field(author_field());
    for a in articles {
        match &a.authors {
            Some(names) => {
                for name in names {
                    authors.values().append_value(name);
                }
                authors.append(true);
            }
            None => authors.append(false),
        }
    }
    let mut source = StructBuilder::new(
        source_fields(),
        vec![
            Box::new(StringBuilder::new()),
            Box::new(UInt64Builder::new()),
        ],
    );
    for a in articles {
        // A null struct still takes a slot in each child.
        let (file, offset) = a
            .source
            .as_ref()
            .map_or(("", None), |s| (s.file.as_str(), s.offset));
        source
            .field_builder::<StringBuilder>(0)
            .expect("file is a string")
            .append_value(file);
        source
            .field_builder::<UInt64Builder>(1)
            .expect("offset is a u64")
            .append_option(offset);
        source.append(a.source.is_some());
    }
    let mut columns = vec![
        text(|a| &a.url),
        text(|a| &a.record_id),
        text(|a| &a.site),
        text(|a| &a.cluster),
        text(|a| &a.method),
        nullable(|a| a.wrapper.as_deref()),
        text(|a| &a.title),
        text(|a| &a.text),
        text(|a| &a.lang),
        Arc::new(authors.finish()),
        nullable(|a| a.date.as_deref()),
        nullable(|a| a.site_name.as_deref()),
        nullable(|a| a.canonical_url.as_deref()),
        nullable(|a| a.top_image.as_deref()),
        nullable(|a| a.warc_date.as_deref()),
        Arc::new(source.finish()),
    ];
    if renderings.html {
        columns.push(nullable(|a| a.html.as_deref()));
    }
    if renderings.markdown {
        columns.push(nullable(|a| a.markdown.as_deref()));
    }
    columns
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_is_no_article_is_an_error_naming_it() {
        let lines = "{\"url\":1}\n";
        let e = write_articles(lines.as_bytes(), Vec::new(), Renderings::default()).unwrap_err();
        assert!(e.to_string().starts_with("line 1: not an article"), "{e}");
    }

    #[test]
    fn no_articles_is_an_empty_file_of_the_columns() {
        let mut bytes = Vec::new();
        let rows = write_articles(&b""[..], &mut bytes, Renderings::default()).unwrap();
        assert_eq!(rows, 0);
        assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
    }
}
