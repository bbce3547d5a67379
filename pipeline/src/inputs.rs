//! The inputs of a step, as the operator names them (`run`, `wrappers
//! apply`, `partition`): expanded by `canopy::inputs`.

use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// WARC files (.warc, .arc, plain or .gz/.zst/.lz4), feed files (.rss, .atom, .xml,
    /// .json), folders of them, `-` (a WARC stream on standard input) or http(s) URLs.
    #[arg(required_unless_present = "input_list")]
    pub inputs: Vec<PathBuf>,
    /// A file listing inputs, one path or URL a line (`#` comments; gzipped if it is;
    /// `-`: standard input), as Common Crawl's warc.paths.gz.
    #[arg(long)]
    pub input_list: Option<PathBuf>,
    /// Folder or URL that relative entries of --input-list are joined to
    /// (e.g. https://data.commoncrawl.org/).
    #[arg(long, requires = "input_list")]
    pub input_base: Option<String>,
}

impl InputArgs {
    /// Every input named, the list's entries after those on the command line.
    pub fn entries(&self) -> anyhow::Result<Vec<PathBuf>> {
        canopy::inputs::entries(
            &self.inputs,
            self.input_list.as_deref(),
            self.input_base.as_deref(),
        )
    }
}
