//! `canopy run --format` and the metadata fields of `articles.jsonl`, end
//! to end on big9 (`../shared/corpora`).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn big9() -> PathBuf {
    common::corpus_file("big9/big9.warc.gz")
}

fn run(args: &[&str], out: &Path) -> Vec<serde_json::Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_canopy"))
        .arg("run")
        .arg(big9())
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    common::articles(out)
}

#[test]
fn formats_add_fields_without_changing_text_and_stay_deterministic() {
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let plain = run(&[], dirs[0].path());
    let one = run(
        &[
            "--format",
            "text,html",
            "--format",
            "markdown",
            "--threads",
            "1",
        ],
        dirs[1].path(),
    );
    run(
        &["--format", "html,markdown", "--threads", "2"],
        dirs[2].path(),
    );
    // Same bytes whatever the thread count.
    let bytes = |d: &tempfile::TempDir| std::fs::read(d.path().join("articles.jsonl")).unwrap();
    assert!(
        bytes(&dirs[1]) == bytes(&dirs[2]),
        "articles.jsonl differs between thread counts"
    );

    assert_eq!(plain.len(), one.len());
    for (p, f) in plain.iter().zip(&one) {
        // The renderings never change the text; without --format they are absent.
        assert_eq!(p["text"], f["text"]);
        assert!(p.get("html").is_none() && p.get("markdown").is_none());
        // Metadata keys are always there (null when the page has none).
        for key in ["authors", "date", "site_name", "canonical_url", "top_image"] {
            assert!(p.get(key).is_some(), "{key} missing");
        }
        let html = f["html"].as_str().unwrap();
        let md = f["markdown"].as_str().unwrap();
        assert!(!html.contains("<script") && !html.contains("javascript:"));
        assert_eq!(html.is_empty(), md.is_empty());
    }
    // A wrapper-served page's HTML has the paragraphs of its text.
    let served: Vec<&serde_json::Value> = one.iter().filter(|a| a["wrapper"].is_string()).collect();
    assert!(served
        .iter()
        .all(|a| a["html"].as_str().unwrap().contains("<p>")
            || a["html"].as_str().unwrap().contains("<li>")
            || a["html"].as_str().unwrap().contains("<td>")));

    // BBC 2017 (big9-00155): JSON-LD "datePublished": "2017-03-28T08:31:53+01:00",
    // "author": "Dave Lee"; og:site_name "BBC News"; <link rel="canonical">.
    let bbc = one
        .iter()
        .find(|a| a["url"] == "http://www.bbc.com/news/technology-39416231")
        .unwrap();
    assert_eq!(bbc["date"], "2017-03-28T08:31:53+01:00");
    assert_eq!(bbc["authors"], serde_json::json!(["Dave Lee"]));
    assert_eq!(bbc["site_name"], "BBC News");
    assert_eq!(
        bbc["canonical_url"],
        "http://www.bbc.com/news/technology-39416231"
    );
}

/// Each article's `source` names the input file as given and the byte
/// offset of its record there: the gzip member at that offset is the
/// response record of the article's `record_id`.
#[test]
fn each_article_names_the_record_it_was_read_from() {
    use std::io::Read;
    let tmp = tempfile::tempdir().unwrap();
    let articles = run(&[], tmp.path());
    let warc = std::fs::read(big9()).unwrap();
    for a in &articles {
        assert_eq!(a["source"]["file"], big9().display().to_string(), "{a}");
        let offset = a["source"]["offset"].as_u64().unwrap() as usize;
        let mut head = vec![0; 1024];
        let mut member = flate2::read::GzDecoder::new(&warc[offset..]);
        member.read_exact(&mut head).unwrap();
        let head = String::from_utf8_lossy(&head);
        let id = a["record_id"].as_str().unwrap();
        assert!(head.starts_with("WARC/"), "{head}");
        assert!(
            head.contains(&format!("WARC-Record-ID: {id}\r\n")),
            "{id}: {head}"
        );
        assert!(head.contains("WARC-Type: response\r\n"), "{id}: {head}");
    }
}

/// `articles.parquet`'s rows as JSON objects, read back with the Arrow
/// reader: one per row, a key per column, `null` for a null.
fn parquet_rows(path: &Path) -> (arrow_schema::SchemaRef, usize, Vec<serde_json::Value>) {
    use arrow_array::{Array, ListArray, StringArray, StructArray, UInt64Array};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let file = std::fs::File::open(path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let row_groups = builder.metadata().num_row_groups();
    let schema = builder.schema().clone();
    let mut rows = Vec::new();
    for batch in builder.build().unwrap() {
        let batch = batch.unwrap();
        for i in 0..batch.num_rows() {
            let mut row = serde_json::Map::new();
            for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
                let value = if column.is_null(i) {
                    serde_json::Value::Null
                } else if let Some(list) = column.as_any().downcast_ref::<ListArray>() {
                    let names = list.value(i);
                    let names = names.as_any().downcast_ref::<StringArray>().unwrap();
                    names.iter().map(|n| n.unwrap()).collect::<Vec<_>>().into()
                } else if let Some(source) = column.as_any().downcast_ref::<StructArray>() {
                    let file = source.column(0).as_any().downcast_ref::<StringArray>();
                    let offset = source.column(1).as_any().downcast_ref::<UInt64Array>();
                    let (file, offset) = (file.unwrap(), offset.unwrap());
                    serde_json::json!({
                        "file": file.value(i),
                        "offset": (!offset.is_null(i)).then(|| offset.value(i)),
                    })
                } else {
                    let text = column.as_any().downcast_ref::<StringArray>().unwrap();
                    text.value(i).into()
                };
                row.insert(field.name().clone(), value);
            }
            rows.push(serde_json::Value::Object(row));
        }
    }
    (schema, row_groups, rows)
}

/// `--format parquet` writes `articles.parquet` beside `articles.jsonl`:
/// the same rows, in the same order, every field a typed column (strings,
/// nullable strings, a list of strings for the authors); listed in
/// `_SUCCESS`; the same bytes whatever the thread count, and from the
/// scale-out steps (`extract --format parquet`, then `merge`).
#[test]
fn parquet_holds_the_rows_of_articles_jsonl_in_typed_columns() {
    use arrow_schema::DataType;
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    let jsonl = run(&["--format", "parquet,markdown", "--threads", "1"], &one);
    run(&["--format", "markdown,parquet", "--threads", "2"], &two);
    let parquet = std::fs::read(one.join("articles.parquet")).unwrap();
    assert!(
        parquet == std::fs::read(two.join("articles.parquet")).unwrap(),
        "articles.parquet differs between thread counts"
    );
    let (schema, row_groups, rows) = parquet_rows(&one.join("articles.parquet"));
    assert_eq!(rows.len(), 200);
    assert_eq!(row_groups, 1, "200 rows fit one row group");
    assert!(
        rows == jsonl,
        "articles.parquet's rows are articles.jsonl's lines"
    );
    // Measured: 83 of big9's 200 articles name authors.
    assert!(jsonl.iter().filter(|a| a["authors"].is_array()).count() >= 50);
    let columns: Vec<(&str, &DataType, bool)> = schema
        .fields()
        .iter()
        .map(|f| (f.name().as_str(), f.data_type(), f.is_nullable()))
        .collect();
    let names: Vec<&str> = columns.iter().map(|c| c.0).collect();
    assert_eq!(
        names,
        [
            "url",
            "record_id",
            "site",
            "cluster",
            "method",
            "wrapper",
            "title",
            "text",
            "lang",
            "authors",
            "date",
            "site_name",
            "canonical_url",
            "top_image",
            "warc_date",
            "source",
            "markdown"
        ]
    );
    for (name, data_type, nullable) in columns {
        match name {
            "authors" => assert!(
                matches!(data_type, DataType::List(item) if item.data_type() == &DataType::Utf8 && !item.is_nullable())
            ),
            "source" => {
                let DataType::Struct(fields) = data_type else {
                    panic!("source is {data_type}");
                };
                let fields: Vec<_> = fields
                    .iter()
                    .map(|f| (f.name().as_str(), f.data_type().clone(), f.is_nullable()))
                    .collect();
                assert_eq!(
                    fields,
                    [
                        ("file", DataType::Utf8, false),
                        ("offset", DataType::UInt64, true)
                    ]
                );
            }
            _ => assert_eq!(data_type, &DataType::Utf8, "{name}"),
        }
        let required = [
            "url",
            "record_id",
            "site",
            "cluster",
            "method",
            "title",
            "text",
            "lang",
        ];
        assert_eq!(nullable, !required.contains(&name), "{name}");
    }
    let manifest = std::fs::read_to_string(one.join("_SUCCESS")).unwrap();
    assert!(manifest.lines().any(|l| l.ends_with("  articles.parquet")));

    // The scale-out steps, two buckets: merge writes the same file.
    let (work, out) = (tmp.path().join("work"), tmp.path().join("out"));
    common::scale_out(
        &big9(),
        &work,
        &out,
        1,
        2,
        &["--format", "parquet,markdown"],
    );
    assert!(
        parquet == std::fs::read(out.join("articles.parquet")).unwrap(),
        "articles.parquet differs between run and partition/extract/merge"
    );

    // A run without the format leaves no Parquet file behind in --out.
    run(&["--threads", "2"], &two);
    assert!(!two.join("articles.parquet").exists());
}
