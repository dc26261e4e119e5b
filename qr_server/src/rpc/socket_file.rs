//! The Unix socket's file: a stale one (its server died without removing
//! it) is replaced at start, a live one is refused, and ours is removed at exit.

use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use tokio::net::UnixListener;

pub struct SocketFile {
    path: PathBuf,
    inode: u64,
}

/// Listens on `path`, replacing a socket file nothing answers on.
pub fn bind(path: &Path) -> io::Result<(UnixListener, SocketFile)> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "the path exists and is not a socket",
            ));
        }
        match std::os::unix::net::UnixStream::connect(path) {
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AddrInUse,
                    "another server is listening on it",
                ))
            }
            Err(err) if err.kind() == io::ErrorKind::ConnectionRefused => {
                std::fs::remove_file(path)?
            }
            Err(err) => return Err(err),
        }
    }
    let listener = UnixListener::bind(path)?;
    let inode = std::fs::metadata(path)?.ino();
    Ok((
        listener,
        SocketFile {
            path: path.to_owned(),
            inode,
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
    use super::*;

    fn temp_path(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("qr_server-{}-{name}.sock", std::process::id()))
    }

    #[tokio::test]
    async fn replaces_a_stale_socket_refuses_a_live_one_and_removes_its_own() {
        let path = temp_path("stale");
        let _ = std::fs::remove_file(&path);
        // A socket file nothing listens on: what a killed server leaves.
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        assert!(path.exists());
        let (listener, file) = bind(&path).unwrap();
        let err = bind(&path).err().expect("a live socket is not replaced");
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
        drop(listener);
        drop(file);
        assert!(!path.exists());
    }

    #[test]
    fn refuses_a_path_that_is_not_a_socket() {
        let path = temp_path("file");
        std::fs::write(&path, b"data").unwrap();
        assert!(bind(&path).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"data");
        std::fs::remove_file(&path).unwrap();
    }
}
