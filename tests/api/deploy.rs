//! The deployment files, checked as far as this machine allows (it has no container
//! engine): the Kubernetes manifests against the API schemas, the compose file's
//! wiring, and the binary under the environment the image sets.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Python packages the checks use, installed once under target/ from PyPI.
fn python_deps() -> PathBuf {
    // Tests run in parallel; one install at a time.
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = root().join("target/pydeps");
    if !dir.join("kubernetes_validate").exists() {
        let status = Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(["--target"])
            .arg(&dir)
            .arg("kubernetes-validate==1.37.0")
            .status()
            .expect("python3 runs");
        assert!(
            status.success(),
            "pip could not install kubernetes-validate"
        );
    }
    dir
}

fn kubernetes_validate(files: &[PathBuf]) -> std::process::Output {
    Command::new("python3")
        .env("PYTHONPATH", python_deps())
        .args(["-m", "kubernetes_validate", "--strict", "--quiet"])
        .args(files)
        .output()
        .expect("python3 runs")
}

#[test]
fn the_kubernetes_manifests_validate_against_the_api_schemas() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("deploy/k8s"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let kinds: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    for kind in [
        "kind: Deployment",
        "kind: Service",
        "kind: ConfigMap",
        "kind: Secret",
        "kind: HorizontalPodAutoscaler",
        "kind: PodDisruptionBudget",
        "kind: Job",
        "livenessProbe",
        "readinessProbe",
    ] {
        assert!(kinds.contains(kind), "the manifests have no {kind}");
    }
    let output = kubernetes_validate(&files);
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // The checker bites: a wrong type in a copy of a manifest is refused.
    let broken = std::env::temp_dir().join(format!("tendero-k8s-{}.yaml", uuid::Uuid::new_v4()));
    let web = std::fs::read_to_string(root().join("deploy/k8s/web.yaml")).unwrap();
    std::fs::write(&broken, web.replacen("replicas: 2", "replicas: two", 1)).unwrap();
    let refused = kubernetes_validate(std::slice::from_ref(&broken));
    let _ = std::fs::remove_file(&broken);
    assert!(!refused.status.success(), "a broken manifest passed");
}

/// A YAML file as JSON, read by the PyYAML that came with the validator.
fn yaml(path: &Path) -> Value {
    let output = Command::new("python3")
        .env("PYTHONPATH", python_deps())
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
        ])
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn compose_starts_each_role_only_once_what_it_needs_is_healthy() {
    let compose = yaml(&root().join("deploy/compose.yaml"));
    let services = &compose["services"];
    for name in ["postgres", "redis", "migrate", "web", "worker"] {
        assert!(services[name].is_object(), "no {name} service");
    }
    assert!(services["postgres"]["healthcheck"].is_object());
    assert!(services["redis"]["healthcheck"].is_object());
    assert_eq!(
        services["migrate"]["depends_on"]["postgres"]["condition"],
        "service_healthy"
    );
    for role in ["web", "worker"] {
        let service = &services[role];
        assert_eq!(service["command"][2], role, "{role} runs its role");
        assert_eq!(
            service["depends_on"]["migrate"]["condition"],
            "service_completed_successfully"
        );
        assert_eq!(
            service["depends_on"]["redis"]["condition"],
            "service_healthy"
        );
        assert_eq!(
            service["env_file"], "tendero.env",
            "secrets come from an env file"
        );
    }
    // Workers scale freely: no fixed name, no published port.
    assert!(services["worker"]["container_name"].is_null());
    assert!(services["worker"]["ports"].is_null());
    assert!(
        services["postgres"]["volumes"][0]
            .as_str()
            .unwrap()
            .starts_with("pgdata:")
    );
    assert!(compose["volumes"]["pgdata"].is_null() || compose["volumes"]["pgdata"].is_object());
    let example = std::fs::read_to_string(root().join("deploy/tendero.env.example")).unwrap();
    assert!(example.contains("DATABASE_URL=") && example.contains("REDIS_URL="));
}

/// `ENV`, `USER`, `HEALTHCHECK` and `CMD` of the runtime stage of the Dockerfile.
struct Image {
    env: Vec<(String, String)>,
    user: String,
    healthcheck: Vec<String>,
}

fn image() -> Image {
    let dockerfile = std::fs::read_to_string(root().join("deploy/Dockerfile")).unwrap();
    let joined = dockerfile.replace("\\\n", " ");
    let runtime = joined.rsplit("\nFROM ").next().unwrap();
    let mut image = Image {
        env: Vec::new(),
        user: String::new(),
        healthcheck: Vec::new(),
    };
    for line in runtime.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("ENV ") {
            for pair in rest.split_whitespace() {
                let (k, v) = pair.split_once('=').unwrap();
                image.env.push((k.to_owned(), v.to_owned()));
            }
        } else if let Some(rest) = line.strip_prefix("USER ") {
            image.user = rest.trim().to_owned();
        } else if let Some(rest) = line.strip_prefix("HEALTHCHECK ") {
            let json = &rest[rest.find("CMD ").unwrap() + 4..];
            image.healthcheck = serde_json::from_str(json).unwrap();
        }
    }
    image
}

#[tokio::test]
async fn the_binary_serves_and_passes_its_health_check_under_the_image_environment() {
    let image = image();
    assert!(!image.user.is_empty() && image.user != "root" && image.user != "0");
    assert_eq!(
        image.healthcheck.first().map(String::as_str),
        Some("tendero")
    );
    let listen = image
        .env
        .iter()
        .find(|(k, _)| k == "TENDERO_LISTEN")
        .map(|(_, v)| v.clone())
        .expect("the image sets TENDERO_LISTEN");
    assert!(listen.starts_with("0.0.0.0:"), "{listen}");
    // The image's address on a free port (8080 may be taken on this machine).
    let port = crate::helpers::free_port();
    let listen = format!("0.0.0.0:{port}");

    let admin = sqlx::PgPool::connect(&std::env::var("DATABASE_URL").unwrap())
        .await
        .unwrap();
    let (pool, scratch) = tendero::db::create_scratch(&admin, "tendero_image")
        .await
        .unwrap();
    let url = crate::helpers::database_url(&scratch);
    let env = |command: &mut Command| {
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default());
        for (k, v) in &image.env {
            command.env(k, v);
        }
        // What the deployment's env file or Secret adds.
        command
            .env("TENDERO_LISTEN", &listen)
            .env("DATABASE_URL", &url)
            .env("TENDERO_SECRET_KEY", tendero::config::TEST_SECRET_KEY);
    };
    let bin = env!("CARGO_BIN_EXE_tendero");
    for role in ["worker", "web"] {
        let mut serve = Command::new(bin);
        env(&mut serve);
        let mut child = serve
            .args(["serve", "--role", role])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut healthy = false;
        for _ in 0..200 {
            let mut check = Command::new(bin);
            env(&mut check);
            if check
                .args(&image.healthcheck[1..])
                .status()
                .unwrap()
                .success()
            {
                healthy = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let status = child.wait().unwrap();
        assert!(
            healthy,
            "the {role} process never passed the image's health check"
        );
        assert!(status.success(), "{role} stopped cleanly: {status}");
    }
    // With nothing listening, the check fails (so a dead container is noticed).
    let mut check = Command::new(bin);
    env(&mut check);
    assert!(
        !check
            .args(&image.healthcheck[1..])
            .status()
            .unwrap()
            .success()
    );
    tendero::db::drop_scratch(&admin, pool, &scratch)
        .await
        .unwrap();
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn alerts_and_the_dashboard_use_only_metrics_tendero_exports(pool: sqlx::PgPool) {
    let app = crate::helpers::spawn_app(pool).await;
    app.say("monitor", "hola").await;
    let metrics = app
        .client
        .get(format!("{}/metrics", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut known: std::collections::BTreeSet<String> = metrics
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split(['{', ' ']).next())
        .map(str::to_owned)
        .collect();
    for metric in tendero::histograms::Metric::ALL {
        for suffix in ["_bucket", "_sum", "_count"] {
            known.insert(format!("{}{suffix}", metric.name()));
        }
    }
    let names = regex::Regex::new(r"tendero_[a-z_]+").unwrap();
    let alerts = yaml(&root().join("deploy/monitoring/alerts.yaml"));
    let rules = alerts["groups"][0]["rules"].as_array().unwrap();
    assert!(rules.len() >= 5);
    let mut referenced = Vec::new();
    for rule in rules {
        assert!(rule["alert"].is_string(), "{rule}");
        for field in ["summary", "action"] {
            assert!(
                rule["annotations"][field].is_string(),
                "{rule} lacks {field}"
            );
        }
        referenced.extend(
            names
                .find_iter(rule["expr"].as_str().unwrap())
                .map(|m| m.as_str().to_owned()),
        );
    }
    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("deploy/monitoring/grafana-dashboard.json")).unwrap(),
    )
    .unwrap();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            referenced.extend(
                names
                    .find_iter(target["expr"].as_str().unwrap())
                    .map(|m| m.as_str().to_owned()),
            );
        }
    }
    assert!(referenced.len() > 10);
    for name in referenced {
        assert!(known.contains(&name), "{name} is not exported by /metrics");
    }
}
