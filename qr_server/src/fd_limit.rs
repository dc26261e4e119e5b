//! The open-file limit. Services often start with a soft limit of 1024
//! (systemd's default) and a far higher hard one; Node raises its soft limit
//! to the hard one at start, and so does qr_server. The connection cap is
//! then sized to what the limit allows, so that a connection past it gets the
//! 503 the cap promises instead of an accept loop stuck on EMFILE.

use std::io;

use crate::limits::FD_RESERVE;

/// Raises the soft RLIMIT_NOFILE to the hard limit; returns the soft limit
/// in force afterwards.
pub fn raise() -> io::Result<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit only reads the struct it is given. It can fail
        // (an unlimited hard limit is above the kernel's nr_open): then the
        // soft limit stays as it was.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    Ok(limit.rlim_cur)
}

/// The connection cap in force: the one asked for, or fewer if the limit
/// leaves room for fewer.
pub fn connection_cap(requested: usize, open_files: u64) -> usize {
    let room = open_files.saturating_sub(FD_RESERVE).max(1);
    requested.min(usize::try_from(room).unwrap_or(usize::MAX))
}

/// Whether an accept failed because descriptors ran out.
pub fn out_of_descriptors(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_connections_below_the_limit() {
        assert_eq!(connection_cap(4096, 1024), 1024 - FD_RESERVE as usize);
        assert_eq!(connection_cap(4096, 1_048_576), 4096);
        assert_eq!(connection_cap(20, 1024), 20);
        assert_eq!(connection_cap(4096, 10), 1);
    }
}
