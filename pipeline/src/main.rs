//! The `canopy` command: WARC files and feeds in, articles and per-site
//! XPath wrappers out. The work happens in the `crates/`; this binary reads
//! the settings, runs the stages in order and reports.
//!
//! Exit codes: 0 all records used, 1 done but some records were rejected
//! (see `rejects.jsonl`), 2 bad usage, an unusable output directory, or a
//! folder another canopy process holds. A command returns 0 or 1 itself;
//! an error that stops it comes back here, is printed once with its
//! causes and exits 2.

mod commands;
mod inputs;
mod progress;
mod settings;
mod threads;

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use crate::commands::{eval, extract, index, merge, page, partition, run};

#[derive(Parser)]
#[command(
    name = "canopy",
    version,
    about = "Clean articles and per-site XPath wrappers from web crawls"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Extract the articles of WARC files (and feeds), learning a wrapper per template.
    Run(run::RunArgs),
    /// Extract one page (a file, a URL or standard input) with the page-level path.
    Page(page::PageArgs),
    /// Score methods (and peer tools) on an evaluation corpus against its gold texts.
    Eval(eval::EvalArgs),
    /// Saved wrappers (docs/wrappers.md).
    #[command(subcommand)]
    Wrappers(WrappersCommand),
    /// Build a tantivy search index from an articles.jsonl.
    Index(index::IndexArgs),
    /// Search an index built by `canopy index`.
    Search(index::SearchArgs),
    /// Scale-out step 1: spill one rank's share of the inputs into per-site bucket files.
    Partition(partition::PartitionArgs),
    /// Scale-out step 2: extract one bucket, read from every rank.
    Extract(extract::ExtractArgs),
    /// Scale-out step 3: merge the buckets' outputs into the files `run` writes.
    Merge(merge::MergeArgs),
    /// Print a shell completion script (e.g. `canopy completions bash > /etc/bash_completion.d/canopy`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; `canopy man | man -l -`).
    Man,
}

#[derive(Subcommand)]
enum WrappersCommand {
    /// Extract with saved wrappers only, no learning; pages no saved wrapper
    /// fits go to the page-level fallback.
    Apply(run::ApplyArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("canopy: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs one command: its exit code, or the error that stopped it.
fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Run(args) => run::command(args, true),
        Command::Wrappers(WrappersCommand::Apply(args)) => run::command(args.into(), false),
        Command::Page(args) => page::command(args),
        Command::Eval(args) => eval::command(args),
        Command::Index(args) => index::run_index(args),
        Command::Search(args) => index::run_search(args),
        Command::Partition(args) => partition::command(args),
        Command::Extract(args) => extract::command(args),
        Command::Merge(args) => merge::command(args),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "canopy", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            let command = <Cli as clap::CommandFactory>::command();
            match clap_mangen::Man::new(command).render(&mut std::io::stdout()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(e).context("cannot write the manual page")
                }
                // A closed pipe (`| head`) is the reader's choice.
                _ => Ok(ExitCode::SUCCESS),
            }
        }
    }
}
