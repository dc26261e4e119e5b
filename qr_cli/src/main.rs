//! `qr_cli`: the core on the command line, one-shot or as a stdio worker.

// `--serve` is create-rust-ladder's worker, compiled from its template.
#[path = "../../scaffold/template/ladder/cli/src/serve.rs"]
mod serve;

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::process::ExitCode;

// The core's function on raw bytes, under the name `serve.rs` calls it by.
use qr_lib::generate_qr_code_from_utf8 as core_function_from_utf8;

const USAGE: &str = "\
Usage:
  qr_cli [--] <text>   write the QR-code PNG of <text> to stdout
  qr_cli -             read the text from stdin (every byte, newlines included)
  qr_cli --serve       worker mode: framed requests on stdin, framed responses
                       on stdout, until stdin closes (see docs/tiers.md, 'qr_cli')
  qr_cli --help | --version

Exit status: 0 ok, 2 usage error, 65 bad text, 70 generator failed, 74 I/O error.
Errors are one line on stderr: `qr_cli: <message> (<CODE>)`.
";

/// Exit statuses (sysexits.h where one fits), so scripts can tell a bad
/// text from a bad command line.
const EXIT_USAGE: u8 = 2;
const EXIT_BAD_TEXT: u8 = 65;
const EXIT_FAILED: u8 = 70;
const EXIT_IO: u8 = 74;

/// The longest `--serve` frame, far past any valid text: a longer one means
/// the stream is out of step.
const MAX_REQUEST_BYTES: u32 = 1 << 20;

enum Command {
    Help,
    Version,
    Serve,
    Encode(Input),
}

enum Input {
    Arg(OsString),
    Stdin,
}

fn parse_args(mut args: impl Iterator<Item = OsString>) -> Result<Command, String> {
    let Some(first) = args.next() else {
        return Err("missing <text>".into());
    };
    let (command, rest) = match first.to_str() {
        Some("--help" | "-h") => (Command::Help, args.next()),
        Some("--version" | "-V") => (Command::Version, args.next()),
        Some("--serve") => (Command::Serve, args.next()),
        Some("-") => (Command::Encode(Input::Stdin), args.next()),
        Some("--") => match args.next() {
            Some(text) => (Command::Encode(Input::Arg(text)), args.next()),
            None => return Err("missing <text> after --".into()),
        },
        Some(flag) if flag.starts_with('-') => {
            return Err(format!(
                "unknown option {flag} (use `qr_cli -- {flag}` to encode it)"
            ))
        }
        _ => (Command::Encode(Input::Arg(first)), args.next()),
    };
    match rest {
        Some(extra) => Err(format!("unexpected argument {}", extra.to_string_lossy())),
        None => Ok(command),
    }
}

fn main() -> ExitCode {
    let command = match parse_args(std::env::args_os().skip(1)) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("qr_cli: {message}\n\n{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match command {
        Command::Help => print!("{USAGE}"),
        Command::Version => println!("qr_cli {}", env!("CARGO_PKG_VERSION")),
        Command::Serve => {
            if let Err(err) = serve::run(io::stdin().lock(), io::stdout().lock()) {
                eprintln!("qr_cli: {err}");
                return ExitCode::from(EXIT_IO);
            }
        }
        Command::Encode(input) => return encode(input),
    }
    ExitCode::SUCCESS
}

fn encode(input: Input) -> ExitCode {
    let text = match input {
        Input::Arg(arg) => arg.into_encoded_bytes(),
        Input::Stdin => {
            let mut buf = Vec::new();
            if let Err(err) = io::stdin().read_to_end(&mut buf) {
                eprintln!("qr_cli: reading stdin: {err}");
                return ExitCode::from(EXIT_IO);
            }
            buf
        }
    };
    match core_function_from_utf8(&text) {
        Ok(png) => match io::stdout().lock().write_all(&png) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("qr_cli: writing stdout: {err}");
                ExitCode::from(EXIT_IO)
            }
        },
        Err(err) => {
            eprintln!("qr_cli: {err} ({})", err.code());
            ExitCode::from(if err.is_input_error() {
                EXIT_BAD_TEXT
            } else {
                EXIT_FAILED
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qr_lib::QrError;

    fn parse(args: &[&str]) -> Result<Command, String> {
        parse_args(args.iter().map(OsString::from))
    }

    fn text_of(command: Result<Command, String>) -> Option<String> {
        match command {
            Ok(Command::Encode(Input::Arg(t))) => Some(t.into_string().unwrap()),
            _ => None,
        }
    }

    #[test]
    fn flags_and_text() {
        assert!(matches!(parse(&["--help"]), Ok(Command::Help)));
        assert!(matches!(parse(&["--version"]), Ok(Command::Version)));
        assert!(matches!(parse(&["--serve"]), Ok(Command::Serve)));
        assert!(matches!(parse(&["-"]), Ok(Command::Encode(Input::Stdin))));
        assert_eq!(text_of(parse(&["hello world"])), Some("hello world".into()));
        assert_eq!(text_of(parse(&["--", "--help"])), Some("--help".into()));
        assert_eq!(text_of(parse(&["--", "-"])), Some("-".into()));
    }

    #[test]
    fn usage_errors() {
        assert!(parse(&[]).is_err());
        assert!(parse(&["--bogus"]).is_err());
        assert!(parse(&["a", "b"]).is_err());
        assert!(parse(&["--"]).is_err());
    }

    #[test]
    fn bad_text_is_not_a_usage_error() {
        let err = qr_lib::generate_qr_code_from_utf8(b"").unwrap_err();
        assert_eq!(err, QrError::EmptyText);
        assert!(err.is_input_error());
    }
}
