//! Finding PostgreSQL: the configured URL, else a server on the local port (creating
//! Tendero's database), else a private cluster started from the `initdb`/`postgres`
//! binaries on PATH. Also applies the embedded migrations.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgPool};
use tokio::process::{Child, Command};

use crate::config::Settings;

pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Tables that stay whole on every node when the schema is distributed by
/// `bot_id` (Citus `create_reference_table`): small, read everywhere, above the
/// bot. Every other table carries `bot_id` and is distributed by it (README,
/// "When one PostgreSQL is not enough"; `tests/api/schema.rs` holds the rules).
pub const REFERENCE_TABLES: &[&str] = &[
    "merchants",
    "bots",
    "bot_channels",
    "api_keys",
    "api_idempotency",
    "dashboard_sessions",
];

const DATABASE_NAME: &str = "tendero";

/// A PostgreSQL cluster this process started; stopped when dropped.
pub struct PrivateCluster {
    child: Child,
    pub data_dir: PathBuf,
    postgres: PathBuf,
}

impl PrivateCluster {
    /// Asks the postmaster for a fast shutdown and waits for it.
    pub async fn stop(mut self) {
        self.fast_shutdown().await;
        let _ = self.child.start_kill();
    }

    /// SIGINT is PostgreSQL's "fast" shutdown: clean, and does not wait for clients.
    async fn fast_shutdown(&mut self) {
        if let Some(pid) = self.child.id() {
            let _ = Command::new("kill")
                .arg("-INT")
                .arg(pid.to_string())
                .status()
                .await;
            let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
        }
    }

    /// Stops the server (fast shutdown) and starts it again on the same data and
    /// port, after `down_for`: a database restart, for fault tests.
    pub async fn restart(&mut self, down_for: Duration) -> anyhow::Result<()> {
        self.fast_shutdown().await;
        tokio::time::sleep(down_for).await;
        self.child = launch(
            &self.postgres,
            &self.data_dir,
            cluster_port(&self.data_dir)?,
        )
        .await?;
        Ok(())
    }
}

/// A pool plus, if one had to be started, the private cluster behind it.
pub struct Database {
    pub pool: PgPool,
    pub cluster: Option<PrivateCluster>,
    /// Where it came from, for the start-up message (no credentials in it).
    pub origin: String,
}

pub async fn pool_for(options: PgConnectOptions) -> anyhow::Result<PgPool> {
    PgPoolOptions::new()
        .max_connections(20)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await
        .context("could not connect to PostgreSQL")
}

/// Connects as the settings say, creating the database when it is missing.
pub async fn connect(settings: &Settings) -> anyhow::Result<Database> {
    connect_searching(settings, std::env::var_os("PATH").unwrap_or_default()).await
}

/// `connect`, looking for `initdb`/`postgres` in `search_path` instead of `PATH`.
pub async fn connect_searching(
    settings: &Settings,
    search_path: std::ffi::OsString,
) -> anyhow::Result<Database> {
    if let Some(url) = &settings.database_url {
        let options: PgConnectOptions = url
            .expose()
            .parse()
            .context("DATABASE_URL is not a valid PostgreSQL URL")?;
        ensure_database(&options).await?;
        let origin = format!(
            "PostgreSQL at {}:{} database {}",
            options.get_host(),
            options.get_port(),
            options.get_database().unwrap_or("postgres")
        );
        return Ok(Database {
            pool: pool_for(options).await?,
            cluster: None,
            origin,
        });
    }

    let local = PgConnectOptions::new()
        .host(&settings.local_pg.ip().to_string())
        .port(settings.local_pg.port())
        .username("postgres")
        .database(DATABASE_NAME);
    if tokio::net::TcpStream::connect(settings.local_pg)
        .await
        .is_ok()
    {
        ensure_database(&local).await.with_context(|| {
            format!(
                "a PostgreSQL answers on {} but would not let user postgres in; set DATABASE_URL",
                settings.local_pg
            )
        })?;
        return Ok(Database {
            pool: pool_for(local).await?,
            cluster: None,
            origin: format!(
                "PostgreSQL at {} database {DATABASE_NAME}",
                settings.local_pg
            ),
        });
    }

    let cluster = start_private_cluster(&settings.data_dir, &search_path).await?;
    let port = cluster_port(&cluster.data_dir)?;
    let options = PgConnectOptions::new()
        .host("127.0.0.1")
        .port(port)
        .username("postgres")
        .database(DATABASE_NAME);
    ensure_database(&options).await?;
    Ok(Database {
        pool: pool_for(options).await?,
        origin: format!(
            "private PostgreSQL cluster in {} (port {port})",
            cluster.data_dir.display()
        ),
        cluster: Some(cluster),
    })
}

/// Creates the target database if it does not exist yet.
async fn ensure_database(options: &PgConnectOptions) -> anyhow::Result<()> {
    let name = options.get_database().unwrap_or("postgres").to_owned();
    let mut attempts = 0;
    let mut admin = loop {
        match options.clone().database("postgres").connect().await {
            Ok(conn) => break conn,
            // A freshly started cluster may still be starting up.
            Err(err) if attempts < 50 => {
                attempts += 1;
                tracing::debug!(%err, "PostgreSQL not ready yet");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(err) => return Err(err).context("could not connect to PostgreSQL"),
        }
    };
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut admin)
            .await?;
    if !exists {
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        match sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {quoted}")))
            .execute(&mut admin)
            .await
        {
            Ok(_) => tracing::info!(database = %name, "created database"),
            // Another replica created it first.
            Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("42P04") => {}
            Err(e) => return Err(e).context("could not create the database"),
        }
    }
    admin.close().await.ok();
    Ok(())
}

pub async fn migrate(pool: &PgPool) -> anyhow::Result<()> {
    MIGRATOR
        .run(pool)
        .await
        .context("could not apply migrations")
}

fn find_binary(name: &str, search_path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(search_path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn is_root() -> bool {
    // The effective uid, read without unsafe code.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|uid| uid == "0"))
        })
        .unwrap_or(false)
}

/// Builds a command that runs as the `postgres` user when we are root, since
/// PostgreSQL refuses to run as root.
fn as_cluster_user(binary: &Path) -> anyhow::Result<Command> {
    if is_root() {
        let setpriv = find_binary("setpriv", &std::env::var_os("PATH").unwrap_or_default()).context(
            "running as root needs `setpriv` (util-linux) to start PostgreSQL as the postgres user",
        )?;
        let mut cmd = Command::new(setpriv);
        cmd.args(["--reuid=postgres", "--regid=postgres", "--init-groups"])
            .arg(binary);
        Ok(cmd)
    } else {
        Ok(Command::new(binary))
    }
}

fn cluster_port(data_dir: &Path) -> anyhow::Result<u16> {
    let raw = std::fs::read_to_string(data_dir.join("tendero.port"))
        .context("missing tendero.port in the data directory")?;
    raw.trim().parse().context("bad tendero.port")
}

const NO_POSTGRES: &str = "Tendero needs PostgreSQL and found none. Do one of: \
set DATABASE_URL=postgres://user@host:5432/tendero; start a PostgreSQL server on 127.0.0.1:5432 \
(trust or password auth for user postgres); or install the PostgreSQL server binaries so that \
`initdb` and `postgres` are on PATH (Debian/Ubuntu: apt-get install postgresql, then add \
/usr/lib/postgresql/<version>/bin to PATH) and Tendero will run a private cluster in TENDERO_DATA_DIR.";

async fn start_private_cluster(
    data_dir: &Path,
    search_path: &std::ffi::OsStr,
) -> anyhow::Result<PrivateCluster> {
    let (Some(initdb), Some(postgres)) = (
        find_binary("initdb", search_path),
        find_binary("postgres", search_path),
    ) else {
        bail!(NO_POSTGRES);
    };
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create {}", data_dir.display()))?;
    let data_dir = data_dir.canonicalize()?;
    let pgdata = data_dir.join("pgdata");
    let root = is_root();
    if root {
        let status = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&data_dir)
            .status()
            .await?;
        if !status.success() {
            bail!("could not hand {} to the postgres user", data_dir.display());
        }
    }
    if !pgdata.join("PG_VERSION").exists() {
        tracing::info!(dir = %pgdata.display(), "initializing a private PostgreSQL cluster");
        let output = as_cluster_user(&initdb)?
            .arg("-D")
            .arg(&pgdata)
            .args(["-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"])
            .stdin(Stdio::null())
            .output()
            .await?;
        if !output.status.success() {
            bail!("initdb failed: {}", String::from_utf8_lossy(&output.stderr));
        }
    }
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.local_addr()?.port()
    };
    std::fs::write(data_dir.join("tendero.port"), port.to_string())?;
    let child = launch(&postgres, &data_dir, port).await?;
    Ok(PrivateCluster {
        child,
        data_dir,
        postgres,
    })
}

/// Starts the postmaster of the cluster in `data_dir` on `port`.
async fn launch(postgres: &Path, data_dir: &Path, port: u16) -> anyhow::Result<Child> {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(data_dir.join("postgres.log"))?;
    if is_root() {
        let _ = Command::new("chown")
            .args(["postgres:postgres"])
            .arg(data_dir.join("postgres.log"))
            .status()
            .await;
    }
    as_cluster_user(postgres)?
        .arg("-D")
        .arg(data_dir.join("pgdata"))
        .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1"])
        .arg("-k")
        .arg(data_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .context("could not start postgres")
}

/// Creates a throwaway database on the same server as `base` and connects to it.
pub async fn create_scratch(base: &PgPool, prefix: &str) -> anyhow::Result<(PgPool, String)> {
    let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(base)
        .await
        .context("could not create a scratch database")?;
    let options = (*base.connect_options()).clone().database(&name);
    Ok((pool_for(options).await?, name))
}

/// Drops a database made by `create_scratch`.
pub async fn drop_scratch(base: &PgPool, pool: PgPool, name: &str) -> anyhow::Result<()> {
    pool.close().await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(base)
    .await?;
    Ok(())
}
