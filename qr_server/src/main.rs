//! `qr_server`: the core behind axum (tier `axum`).

mod app;
mod fd_limit;
mod health_check;
mod http_listener;
mod limits;
mod log;
mod metrics;
mod observe;
mod query;
mod rpc;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use tower::Layer;

const USAGE: &str = "\
Usage: qr_server [--host HOST] [--port PORT] [--max-connections N]
                 [--max-connections-per-client N] [--blocking [--max-queue N]]
                 [--rpc PATH [--rpc-mode MODE]] [--metrics-host HOST] [--metrics-port PORT]
                 [--no-metrics] [--access-log] [--until-stdin-closes]
       qr_server --health-check [--host HOST] [--port PORT]

  --host HOST          address to listen on (env HOST, default 127.0.0.1)
  --port PORT          port to listen on, 0 for any free port (env PORT, default 42069)
  --max-connections N  open connections; past it 503 and close (default 4096,
                       fewer if the open-file limit leaves room for fewer)
  --max-connections-per-client N
                       open HTTP connections from one client address (an
                       IPv6 one by its /64); past it 503 and close (default
                       1024; behind a proxy every client is the proxy)
  --blocking           generate on tokio's blocking pool, two per CPU at once,
                       instead of inline on the async workers
  --max-queue N        with --blocking: requests that may wait for a slot;
                       past it 503 \"server busy\" (default 512)
  --rpc PATH           also serve the core over a Unix socket at PATH, many
                       calls per connection (docs/rpc-protocol.md); a stale
                       socket file there is replaced, ours removed at exit;
                       PATH.lock, held while serving, refuses a second server
  --rpc-mode MODE      the socket's permission bits, in octal (default 0600:
                       only this user may connect; 0660 adds its group)
  --metrics-host HOST  address of the operator's listener, GET /metrics and
                       GET /healthz, apart from the public port (env
                       METRICS_HOST, default 127.0.0.1: this host only)
  --metrics-port PORT  its port, 0 for any free port (env METRICS_PORT,
                       default 0; the start log line names it)
  --no-metrics         neither count nor time requests, no operator's listener
                       (env QR_METRICS=off; docs/operations.md, \"Metrics\")
  --access-log         log a line per request (env QR_ACCESS_LOG=on)
  --until-stdin-closes also stop (as on SIGTERM) when stdin closes: a parent
                       process that holds the other end cannot die without
                       stopping this one, even by SIGKILL
  --health-check       instead of serving: ask the qr_server at HOST:PORT
                       (loopback if HOST is every address) for /healthz,
                       exit 0 on 200 and 1 otherwise (a container's check)

Routes: GET /qrcode?text=..., GET /healthz; on the operator's listener
GET /metrics (Prometheus) and GET /healthz. Raises
its soft open-file limit to the hard one and says which connection cap is in
force (HTTP and RPC connections together). Logs one JSON object per line on
stdout (docs/operations.md, \"Logs\"), the ready ones with the messages
`qr_server rpc listening on unix:PATH` (with --rpc), then `qr_server
listening on http://ADDR`; the start line before them names the operator's
listener (`metrics on http://ADDR/metrics`, unless --no-metrics); SIGINT or SIGTERM stops accepting, finishes
in-flight requests and calls, exits 0.
";

struct Options {
    host: String,
    port: u16,
    max_queue: usize,
    max_connections: usize,
    max_connections_per_client: usize,
    blocking: bool,
    rpc: Option<PathBuf>,
    rpc_mode: u32,
    metrics: bool,
    metrics_host: String,
    metrics_port: u16,
    access_log: bool,
    until_stdin_closes: bool,
    health_check: bool,
}

fn number<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("invalid {flag} {value:?}"))
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        host: std::env::var("HOST").unwrap_or_else(|_| "127.0.0.1".into()),
        port: match std::env::var("PORT") {
            Ok(port) => port.parse().map_err(|_| format!("invalid PORT {port:?}"))?,
            Err(_) => 42069,
        },
        max_queue: limits::MAX_QUEUE,
        max_connections: limits::MAX_CONNECTIONS,
        max_connections_per_client: limits::MAX_CONNECTIONS_PER_CLIENT,
        blocking: false,
        rpc: None,
        rpc_mode: rpc::DEFAULT_MODE,
        metrics: std::env::var("QR_METRICS").map_or(true, |v| v != "off"),
        metrics_host: std::env::var("METRICS_HOST").unwrap_or_else(|_| "127.0.0.1".into()),
        metrics_port: match std::env::var("METRICS_PORT") {
            Ok(port) => port
                .parse()
                .map_err(|_| format!("invalid METRICS_PORT {port:?}"))?,
            Err(_) => 0,
        },
        access_log: std::env::var("QR_ACCESS_LOG").is_ok_and(|v| v == "on"),
        until_stdin_closes: false,
        health_check: false,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => return Ok(None),
            "--version" | "-V" => {
                println!("qr_server {}", env!("CARGO_PKG_VERSION"));
                std::process::exit(0);
            }
            "--host" => options.host = args.next().ok_or("--host needs a value")?,
            "--port" => options.port = number("--port", args.next())?,
            "--max-queue" => options.max_queue = number("--max-queue", args.next())?,
            "--blocking" => options.blocking = true,
            "--rpc" => options.rpc = Some(args.next().ok_or("--rpc needs a path")?.into()),
            "--rpc-mode" => {
                let value = args.next().ok_or("--rpc-mode needs a value")?;
                options.rpc_mode = u32::from_str_radix(&value, 8)
                    .ok()
                    .filter(|mode| *mode <= 0o777)
                    .ok_or_else(|| format!("invalid --rpc-mode {value:?} (octal, at most 0777)"))?;
            }
            "--metrics-host" => {
                options.metrics_host = args.next().ok_or("--metrics-host needs a value")?
            }
            "--metrics-port" => options.metrics_port = number("--metrics-port", args.next())?,
            "--max-connections-per-client" => {
                options.max_connections_per_client =
                    number("--max-connections-per-client", args.next())?;
                if options.max_connections_per_client == 0 {
                    return Err("--max-connections-per-client must be at least 1".into());
                }
            }
            "--no-metrics" => options.metrics = false,
            "--access-log" => options.access_log = true,
            "--until-stdin-closes" => options.until_stdin_closes = true,
            "--health-check" => options.health_check = true,
            "--max-connections" => {
                options.max_connections = number("--max-connections", args.next())?
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    Ok(Some(options))
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("qr_server: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if options.health_check {
        return match health_check::check(&options.host, options.port) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("qr_server: unhealthy: {message}");
                ExitCode::FAILURE
            }
        };
    }
    let (_written_at_exit, dropped_lines) = log::init();
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    match runtime.block_on(run(options, dropped_lines)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // A log line, and one plain line on stderr for whoever started it.
            tracing::error!(event = "fatal", "qr_server: {message}");
            eprintln!("qr_server: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The server, from binding its listeners to the end of the drain that
/// follows a stop.
async fn run(
    options: Options,
    dropped_lines: tracing_appender::non_blocking::ErrorCounter,
) -> Result<(), String> {
    let open_files =
        fd_limit::raise().map_err(|err| format!("cannot read the open-file limit: {err}"))?;
    let max_connections = fd_limit::connection_cap(options.max_connections, open_files);
    let listener = listen(&options.host, options.port)
        .await
        .map_err(|err| format!("cannot listen on {}:{}: {err}", options.host, options.port))?;
    let local = listener.local_addr().map_err(|err| err.to_string())?;
    let operator_listener = if options.metrics {
        let (host, port) = (&options.metrics_host, options.metrics_port);
        let bound = listen(host, port)
            .await
            .map_err(|err| format!("cannot listen on {host}:{port} for metrics: {err}"))?;
        Some(bound)
    } else {
        None
    };
    let generation = if options.blocking {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        app::Generation::Blocking(limits::Limiter::new(2 * cpus, options.max_queue))
    } else {
        app::Generation::Inline
    };
    // Before the ready line: a supervisor may send SIGTERM the moment it reads it.
    let shutdown = shutdown_signal(options.until_stdin_closes)
        .map_err(|err| format!("cannot handle signals: {err}"))?;
    let connections = Arc::new(tokio::sync::Semaphore::new(max_connections));
    let (draining_tx, draining) = tokio::sync::watch::channel(false);
    let metrics = Arc::new(
        metrics::Metrics::new(connections.clone(), max_connections)
            .with_dropped_lines(dropped_lines),
    );
    let log = Arc::new(log::Log::new(options.access_log));
    let rpc = match &options.rpc {
        Some(path) => {
            let (listener, file) = rpc::bind(path, options.rpc_mode)
                .await
                .map_err(|err| format!("cannot listen on {}: {err}", path.display()))?;
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            let threads = rpc::Threads::start(cpus)
                .map_err(|err| format!("cannot start the RPC threads: {err}"))?;
            let accepting = tokio::spawn(rpc::run(
                listener,
                threads,
                rpc::Shared {
                    connections: connections.clone(),
                    metrics: metrics.clone(),
                    log: log.clone(),
                    draining: draining.clone(),
                },
            ));
            Some((accepting, file, path))
        }
        None => None,
    };
    // Where the operator's listener is, in the start line (not a ready line
    // of its own: a supervisor takes the first ready URL for the service).
    let metrics_url = match &operator_listener {
        Some(operator) => {
            let addr = operator.local_addr().map_err(|err| err.to_string())?;
            Some(format!("http://{addr}/metrics"))
        }
        None => None,
    };
    let metrics_said = metrics_url
        .as_deref()
        .map_or(String::new(), |url| format!("; metrics on {url}"));
    tracing::info!(
        event = "start",
        pid = std::process::id(),
        max_connections,
        open_files,
        metrics_url = metrics_url.as_deref(),
        "qr_server: at most {max_connections} connections (open-file limit {open_files}){metrics_said}"
    );
    if let Some((_, _, path)) = &rpc {
        let url = format!("unix:{}", path.display());
        tracing::info!(event = "ready", url, "qr_server rpc listening on {url}");
    }
    let url = format!("http://{local}");
    tracing::info!(event = "ready", url, "qr_server listening on {url}");
    let stop = async move {
        shutdown.await;
        tracing::info!(event = "stop", "qr_server: stopping");
        let _ = draining_tx.send(true);
    };
    let (router, operator_router) = app::routers(generation, metrics.clone(), options.metrics);
    // Both routers' requests are counted (unless metrics are off) and logged.
    let observe = observe::ObserveLayer::new(options.metrics.then(|| metrics.clone()), log.clone());
    // The operator's listener: its own cap, no share per client (its
    // clients are the operator's), stopped by the same drain.
    let operator = match (operator_listener, operator_router) {
        (Some(listener), Some(router)) => {
            let mut draining = draining.clone();
            let observers = http_listener::Observers {
                metrics: metrics.clone(),
                log: log.clone(),
            };
            let caps = http_listener::Caps {
                connections: Arc::new(tokio::sync::Semaphore::new(limits::MAX_METRICS_CONNECTIONS)),
                max_connections: limits::MAX_METRICS_CONNECTIONS,
                per_client: http_listener::PerClient::new(limits::MAX_METRICS_CONNECTIONS),
            };
            Some(tokio::spawn(http_listener::run(
                listener,
                observe.layer(router),
                caps,
                observers,
                async move {
                    let _ = draining.wait_for(|&d| d).await;
                },
            )))
        }
        _ => None,
    };
    let http = http_listener::run(
        listener,
        observe.layer(router),
        http_listener::Caps {
            connections,
            max_connections,
            per_client: http_listener::PerClient::new(options.max_connections_per_client),
        },
        http_listener::Observers { metrics, log },
        stop,
    );
    let operator_done = async {
        if let Some(operator) = operator {
            let _ = operator.await;
        }
    };
    let rpc_done = async {
        if let Some((accepting, file, _)) = rpc {
            // Accepting stops at the drain; the file goes with it, so a
            // client finds nothing there instead of a queue never served.
            let _ = accepting.await;
            drop(file);
        }
    };
    tokio::join!(http, rpc_done, operator_done);
    tracing::info!(event = "stopped", "qr_server: stopped");
    Ok(())
}

/// A listening socket with the backlog of limits.rs (TcpListener::bind
/// takes mio's 128: a burst of connections beyond it is dropped by the kernel
/// before the server can answer or refuse it).
async fn listen(host: &str, port: u16) -> std::io::Result<tokio::net::TcpListener> {
    let addr = tokio::net::lookup_host((host, port))
        .await?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no address"))?;
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(limits::LISTEN_BACKLOG)
}

/// SIGTERM or SIGINT (or, if asked, the end of stdin), with every handler
/// installed when this returns.
fn shutdown_signal(
    until_stdin_closes: bool,
) -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let (closed_tx, closed) = tokio::sync::oneshot::channel::<()>();
    if until_stdin_closes {
        // A thread of its own, not tokio's stdin: a read blocked in the
        // runtime's pool would hold up the runtime's exit.
        std::thread::spawn(move || {
            let mut sink = [0u8; 512];
            while matches!(std::io::Read::read(&mut std::io::stdin(), &mut sink), Ok(n) if n > 0) {}
            let _ = closed_tx.send(());
        });
    }
    // Without the thread the sender is dropped here: that branch never matches.
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            Ok(()) = closed => {}
        }
    })
}
