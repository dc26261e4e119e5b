//! `qr_server --health-check`: asks a running qr_server for `GET /healthz`
//! and exits 0 on 200. A `FROM scratch` image has no shell or curl for the
//! container runtime's HEALTHCHECK to run, so the binary checks itself.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, ToSocketAddrs};

use crate::limits::HEALTH_CHECK_TIMEOUT;

/// The address a server listening on `host:port` answers on from inside its
/// own network namespace: loopback when it listens on every address.
fn target(host: &str, port: u16) -> Result<SocketAddr, String> {
    let addr = (host, port)
        .to_socket_addrs()
        .map_err(|err| format!("cannot resolve {host}: {err}"))?
        .next()
        .ok_or_else(|| format!("no address for {host}"))?;
    Ok(match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => (Ipv4Addr::LOCALHOST, port).into(),
        IpAddr::V6(ip) if ip.is_unspecified() => (Ipv6Addr::LOCALHOST, port).into(),
        _ => addr,
    })
}

/// Ok(()) when the server at `host:port` answers `/healthz` with 200.
pub fn check(host: &str, port: u16) -> Result<(), String> {
    let addr = target(host, port)?;
    let mut stream = TcpStream::connect_timeout(&addr, HEALTH_CHECK_TIMEOUT)
        .map_err(|err| format!("cannot connect to {addr}: {err}"))?;
    stream
        .set_read_timeout(Some(HEALTH_CHECK_TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(HEALTH_CHECK_TIMEOUT)))
        .map_err(|err| err.to_string())?;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .map_err(|err| format!("cannot ask {addr}: {err}"))?;
    // The status line is all we need; it comes in the first bytes.
    let mut head = [0u8; 16];
    let mut read = 0;
    while read < head.len() {
        match stream.read(&mut head[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(err) => return Err(format!("no answer from {addr}: {err}")),
        }
    }
    let status = String::from_utf8_lossy(&head[..read]);
    if status.starts_with("HTTP/1.1 200 ") {
        Ok(())
    } else {
        Err(format!("{addr} answered {:?}", status.trim_end()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_address_means_loopback() {
        assert_eq!(
            target("0.0.0.0", 80).unwrap(),
            "127.0.0.1:80".parse().unwrap()
        );
        assert_eq!(target("::", 80).unwrap(), "[::1]:80".parse().unwrap());
        assert_eq!(
            target("10.1.2.3", 80).unwrap(),
            "10.1.2.3:80".parse().unwrap()
        );
    }

    #[test]
    fn a_closed_port_fails() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        assert!(check("127.0.0.1", port)
            .unwrap_err()
            .contains("cannot connect"));
    }

    #[test]
    fn only_200_passes() {
        for (answer, healthy) in [
            (&b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"[..], true),
            (&b"HTTP/1.1 503 Service Unavailable\r\n\r\n"[..], false),
            (&b""[..], false),
        ] {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            let server = std::thread::spawn(move || {
                let (mut conn, _) = listener.accept().unwrap();
                let mut request = [0u8; 256];
                let _ = conn.read(&mut request);
                conn.write_all(answer).unwrap();
            });
            assert_eq!(check("127.0.0.1", port).is_ok(), healthy, "{answer:?}");
            server.join().unwrap();
        }
    }
}
