//! `canopy eval`: flags over `canopy_eval`.

use std::path::PathBuf;
use std::process::ExitCode;

use canopy_site::SignifierSource;

#[derive(clap::Args)]
pub struct EvalArgs {
    /// Corpus folder: manifest.tsv, gold/, one *.warc.gz, feeds/.
    #[arg(long)]
    corpus: PathBuf,
    /// Method to evaluate, repeat for several; "all" for every method
    /// (default: forest, forest-feeds).
    #[arg(long = "method")]
    methods: Vec<String>,
    /// Where signifiers come from (default: the config's, "tfidf").
    #[arg(long, value_enum)]
    signifiers: Option<SignifierSource>,
    /// Output folder for eval.csv and eval.md.
    #[arg(long)]
    out: PathBuf,
    /// Peer outputs: DIR/<tool>/<id>.txt and DIR/<tool>/timing.json.
    #[arg(long)]
    peers: Option<PathBuf>,
    /// Settings file overlaid on configs/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
}

/// `canopy eval`: exit 0 on success, 2 on any error.
pub fn command(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let options = canopy_eval::EvalOptions {
        corpus: args.corpus,
        methods: args.methods,
        signifiers: args.signifiers,
        out: args.out,
        peers: args.peers,
        config: args.config,
        threads: args.threads,
    };
    let config = canopy_site::Config::load(options.config.as_deref())?;
    crate::threads::start(options.threads.unwrap_or(config.run.threads), false)?;
    canopy_eval::eval(&options)?;
    Ok(ExitCode::SUCCESS)
}
