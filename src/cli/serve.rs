//! `tendero serve` (the server, its workers and the demo on first start) and
//! `tendero healthcheck` (the container's probe).

use std::io::Write;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use super::shutdown_cluster;
use crate::config::{Role, Settings};
use crate::{db, demo, startup, telemetry};

pub async fn serve(role: Role) -> anyhow::Result<()> {
    telemetry::init();
    let settings = Settings::from_env()?;
    startup::install_secret_keys(&settings)?;
    let database = db::connect(&settings).await?;
    tracing::info!(origin = %database.origin, "connected to PostgreSQL");
    db::migrate(&database.pool).await?;
    if settings.load_demo
        && let Some(shop) = demo::load_demo_if_empty(&database.pool).await?
    {
        let key = crate::api_keys::create(&database.pool, shop.merchant_id).await?;
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "Loaded the demo shop `demo-shop` and the finance assistant `demo-finanzas` (merchant `demo`)."
        )?;
        writeln!(out, "Merchant API key for `demo` (shown once): {key}")?;
    }
    let redis = startup::redis(&settings).await;
    let proposers = startup::Proposers::configured(&settings, &database.pool, redis)?;
    let app = startup::Application::build(settings.clone(), database.pool.clone(), proposers, role)
        .await?;
    if let Some(addr) = app.local_addr() {
        println!("Tendero is listening on http://{addr}");
        if role.runs_web() {
            // The last line serve prints (tests read up to it).
            println!(
                "Chat with the demo shop: tendero chat demo-shop --url http://{addr} \
                 (the finance assistant: tendero chat demo-finanzas --url http://{addr})"
            );
        }
    }
    let cancel = CancellationToken::new();
    let signal = cancel.clone();
    tokio::spawn(async move {
        startup::shutdown_signal().await;
        signal.cancel();
    });
    app.run_until_stopped(cancel).await?;
    shutdown_cluster(database).await;
    tracing::info!("stopped");
    Ok(())
}

/// Probes `GET /healthz` of the local server.
pub async fn healthcheck(url: Option<String>) -> anyhow::Result<()> {
    let base = match url {
        Some(url) => url,
        None => {
            let mut addr = Settings::from_env()?.listen;
            if addr.ip().is_unspecified() {
                addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
            }
            format!("http://{addr}")
        }
    };
    let response = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(3))
        .build()?
        .get(format!("{}/healthz", base.trim_end_matches('/')))
        .send()
        .await
        .with_context(|| format!("no answer from {base}"))?;
    anyhow::ensure!(
        response.status().is_success(),
        "{base}/healthz answered {}",
        response.status()
    );
    Ok(())
}
