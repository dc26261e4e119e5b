//! `qr_server`: the core behind axum (tier `axum`).

mod app;
mod query;

use std::process::ExitCode;

const USAGE: &str = "\
Usage: qr_server [--host HOST] [--port PORT]

  --host HOST   address to listen on (env HOST, default 127.0.0.1)
  --port PORT   port to listen on, 0 for any free port (env PORT, default 42069)

Routes: GET /qrcode?text=..., GET /healthz. Prints one line
`qr_server listening on http://ADDR` when ready; SIGINT or SIGTERM stops
accepting, finishes in-flight requests and exits 0.
";

struct Options {
    host: String,
    port: u16,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        host: std::env::var("HOST").unwrap_or_else(|_| "127.0.0.1".into()),
        port: match std::env::var("PORT") {
            Ok(port) => port.parse().map_err(|_| format!("invalid PORT {port:?}"))?,
            Err(_) => 42069,
        },
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => return Ok(None),
            "--version" | "-V" => {
                println!("qr_server {}", env!("CARGO_PKG_VERSION"));
                std::process::exit(0);
            }
            "--host" => options.host = args.next().ok_or("--host needs a value")?,
            "--port" => {
                let port = args.next().ok_or("--port needs a value")?;
                options.port = port
                    .parse()
                    .map_err(|_| format!("invalid --port {port:?}"))?;
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
    println!("qr_server listening on http://{local}");
    axum::serve(listener, app::router())
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(|err| err.to_string())
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
