//! The Unix socket's file: owner-only unless widened (`--rpc-mode`), held
//! under a lock (`PATH.lock`) so that two servers cannot take the same path,
//! a stale one (its server died without removing it) replaced at start, a
//! live one refused, and ours removed at exit.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

use crate::limits::RPC_PROBE_TIMEOUT;

/// The socket's mode unless `--rpc-mode` widens it: only the server's user
/// may connect.
pub const DEFAULT_MODE: u32 = 0o600;

pub struct SocketFile {
    path: PathBuf,
    inode: u64,
    /// `PATH.lock`, flock'd for the process's life: the kernel lets go of it
    /// when the process ends, however it ends. The file itself stays (removing
    /// it would let a third server lock a new file while a second holds the
    /// removed one).
    _lock: File,
}

/// The lock file beside the socket: `PATH.lock`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Takes `PATH.lock` without waiting, or says which server holds it.
fn lock(path: &Path) -> io::Result<File> {
    let lock_path = lock_path(path);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
        .open(&lock_path)?;
    // SAFETY: flock on a descriptor this function owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let err = io::Error::last_os_error();
        return Err(if err.kind() == io::ErrorKind::WouldBlock {
            io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("another server holds {}", lock_path.display()),
            )
        } else {
            err
        });
    }
    Ok(file)
}

/// Whether a server answers on the socket file at `path`, found within
/// RPC_PROBE_TIMEOUT: a blocking connect to a server whose backlog is full (one
/// that is frozen) would wait for ever; a non-blocking one is told at once.
async fn probe(path: &Path) -> io::Result<bool> {
    match tokio::time::timeout(RPC_PROBE_TIMEOUT, UnixStream::connect(path)).await {
        Ok(Ok(_)) => Ok(true),
        Ok(Err(err)) if err.kind() == io::ErrorKind::ConnectionRefused => Ok(false),
        // EAGAIN: the listener's backlog is full, so something holds it
        // open, answering nothing.
        Ok(Err(err)) if err.kind() == io::ErrorKind::WouldBlock => Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            "a server holds the socket but accepts nothing (frozen?)",
        )),
        Ok(Err(err)) => Err(err),
        Err(_) => Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            format!("a server holds the socket but did not answer within {RPC_PROBE_TIMEOUT:?}"),
        )),
    }
}

/// Listens on `path` with permission bits `mode`, replacing a socket file
/// nothing answers on.
pub async fn bind(path: &Path, mode: u32) -> io::Result<(UnixListener, SocketFile)> {
    let lock = lock(path)?;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "the path exists and is not a socket",
            ));
        }
        if probe(path).await? {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                "another server is listening on it",
            ));
        }
        std::fs::remove_file(path)?;
    }
    // bind() creates the file with the umask's bits and clients may connect
    // from then on: an owner-only umask for the call leaves no moment where
    // the socket is wider than asked. Start-up is single-threaded here as
    // far as files go (nothing else creates one).
    // SAFETY: umask only swaps the process's file-creation mask.
    let previous = unsafe { libc::umask(0o177) };
    let bound = UnixListener::bind(path);
    // SAFETY: as above, restoring it.
    unsafe { libc::umask(previous) };
    let listener = bound?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    let inode = std::fs::metadata(path)?.ino();
    Ok((
        listener,
        SocketFile {
            path: path.to_owned(),
            inode,
            _lock: lock,
        },
    ))
}

impl Drop for SocketFile {
    /// Removes the file if it is still ours (not one a newer server bound).
    fn drop(&mut self) {
        if std::fs::metadata(&self.path).is_ok_and(|meta| meta.ino() == self.inode) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn temp_path(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("qr_server-{}-{name}.sock", std::process::id()))
    }

    fn clean(path: &Path) {
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_file(lock_path(path));
    }

    #[tokio::test]
    async fn replaces_a_stale_socket_refuses_a_live_one_and_removes_its_own() {
        let path = temp_path("stale");
        clean(&path);
        // A socket file nothing listens on: what a killed server leaves.
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        assert!(path.exists());
        let (listener, file) = bind(&path, DEFAULT_MODE).await.unwrap();
        let err = bind(&path, DEFAULT_MODE)
            .await
            .err()
            .expect("a live socket is not replaced");
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
        drop(listener);
        drop(file);
        assert!(!path.exists());
        clean(&path);
    }

    #[tokio::test]
    async fn refuses_a_path_that_is_not_a_socket() {
        let path = temp_path("file");
        clean(&path);
        std::fs::write(&path, b"data").unwrap();
        assert!(bind(&path, DEFAULT_MODE).await.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"data");
        clean(&path);
    }

    #[tokio::test]
    async fn the_socket_is_owner_only_by_default_and_widened_when_asked() {
        let path = temp_path("mode");
        clean(&path);
        // A permissive umask, as a careless service manager may leave.
        // SAFETY: the test restores it.
        let previous = unsafe { libc::umask(0o000) };
        let bound = bind(&path, DEFAULT_MODE).await;
        unsafe { libc::umask(previous) };
        let (listener, file) = bound.unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
        let lock_mode = std::fs::metadata(lock_path(&path))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(lock_mode, 0o600, "{lock_mode:o}");
        drop((listener, file));
        let (listener, file) = bind(&path, 0o660).await.unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o660, "{mode:o}");
        drop((listener, file));
        clean(&path);
    }

    /// The lock, not the probe, decides: a second server is refused even
    /// while the first has not yet bound the socket (their race at start).
    #[tokio::test]
    async fn a_second_server_is_refused_while_the_first_holds_the_lock() {
        let path = temp_path("lock");
        clean(&path);
        let first_lock = lock(&path).unwrap();
        let err = bind(&path, DEFAULT_MODE)
            .await
            .err()
            .expect("a second server took a locked path");
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
        assert!(err.to_string().contains(".lock"), "{err}");
        assert!(!path.exists(), "the refused server created the socket");
        drop(first_lock);
        let (listener, file) = bind(&path, DEFAULT_MODE).await.unwrap();
        drop((listener, file));
        clean(&path);
    }

    /// A server that holds the socket and accepts nothing, its backlog full
    /// (a SIGSTOPped server under load): the probe gives up within its bound
    /// instead of waiting in connect() for ever. Run on a thread of its own
    /// so that a hang fails the test instead of hanging it.
    #[test]
    fn a_frozen_server_with_a_full_backlog_is_probed_within_the_bound() {
        let path = temp_path("frozen");
        clean(&path);
        let frozen = std::os::unix::net::UnixListener::bind(&path).unwrap();
        // A backlog of one: few connections fill it.
        // SAFETY: listen() again on a listening socket only resizes its backlog.
        assert_eq!(unsafe { libc::listen(frozen.as_raw_fd(), 1) }, 0);
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let mut fillers = Vec::new();
        runtime.block_on(async {
            while let Ok(Ok(stream)) =
                tokio::time::timeout(Duration::from_millis(100), UnixStream::connect(&path)).await
            {
                fillers.push(stream);
                assert!(fillers.len() < 100, "the backlog never filled");
            }
        });
        let (done_tx, done) = std::sync::mpsc::channel();
        let probed = path.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            let started = std::time::Instant::now();
            let result = runtime.block_on(bind(&probed, DEFAULT_MODE)).map(|_| ());
            let _ = done_tx.send((result, started.elapsed()));
        });
        let (result, took) = done
            .recv_timeout(RPC_PROBE_TIMEOUT + Duration::from_secs(4))
            .expect("the probe of a frozen server never returned");
        let err = result.expect_err("a frozen server's socket was taken over");
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse, "{err}");
        assert!(
            took <= RPC_PROBE_TIMEOUT + Duration::from_millis(500),
            "{took:?}"
        );
        assert!(path.exists(), "the frozen server's socket was removed");
        drop(fillers);
        drop(frozen);
        clean(&path);
    }
}
