//! The `tendero` binary: parse the command line and run it.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tendero::startup::install_crypto_provider();
    let cli = tendero::cli::Cli::parse();
    match tendero::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
