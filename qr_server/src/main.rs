//! `qr_server`: the core behind axum (tier `axum`).

mod app;
mod limits;
mod query;
mod serve;

use std::process::ExitCode;

const USAGE: &str = "\
Usage: qr_server [--host HOST] [--port PORT] [--max-connections N] [--blocking [--max-queue N]]

  --host HOST          address to listen on (env HOST, default 127.0.0.1)
  --port PORT          port to listen on, 0 for any free port (env PORT, default 42069)
  --max-connections N  open connections; past it 503 and close (default 4096)
  --blocking           generate on tokio's blocking pool, two per CPU at once,
                       instead of inline on the async workers
  --max-queue N        with --blocking: requests that may wait for a slot;
                       past it 503 \"server busy\" (default 512)

Routes: GET /qrcode?text=..., GET /healthz. Prints one line
`qr_server listening on http://ADDR` when ready; SIGINT or SIGTERM stops
accepting, finishes in-flight requests and exits 0.
";

struct Options {
    host: String,
    port: u16,
    max_queue: usize,
    max_connections: usize,
    blocking: bool,
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
        blocking: false,
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
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    match runtime.block_on(serve(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("qr_server: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(options: Options) -> Result<(), String> {
    let addr = (options.host.as_str(), options.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|err| format!("cannot listen on {}:{}: {err}", options.host, options.port))?;
    let local = listener.local_addr().map_err(|err| err.to_string())?;
    let generation = if options.blocking {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        app::Generation::Blocking(limits::Limiter::new(2 * cpus, options.max_queue))
    } else {
        app::Generation::Inline
    };
    // Before the ready line: a supervisor may send SIGTERM the moment it reads it.
    let shutdown = shutdown_signal().map_err(|err| format!("cannot handle signals: {err}"))?;
    println!("qr_server listening on http://{local}");
    serve::serve(
        listener,
        app::router(generation),
        options.max_connections,
        shutdown,
    )
    .await;
    Ok(())
}

/// SIGTERM or SIGINT, with both handlers installed when this returns.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}
