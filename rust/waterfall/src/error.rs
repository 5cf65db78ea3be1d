//! The one error type: what failed, and the negative errno libwaterfall
//! returned (docs/api.md lists them per call).
use std::fmt;
use std::io;

/// A libwaterfall call failed: `op` says which ("open trace.wft", ...),
/// `errno` why (a positive errno: `EALREADY` when a recording is open,
/// `EBADF` when none is, the `open(2)` error, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    op: String,
    errno: i32,
}

impl Error {
    /// From a C return value `rc < 0` (a negated errno).
    pub(crate) fn from_rc(op: impl Into<String>, rc: i32) -> Error {
        Error { op: op.into(), errno: rc.saturating_neg() }
    }

    /// The errno (positive), as `std::io::Error::raw_os_error` gives it.
    pub fn errno(&self) -> i32 {
        self.errno
    }

    /// The errno's kind, as `std::io` maps it (`ENOENT` is `NotFound`, ...).
    pub fn kind(&self) -> io::ErrorKind {
        io::Error::from_raw_os_error(self.errno).kind()
    }

    /// What was attempted, e.g. `record to trace.wft`.
    pub fn operation(&self) -> &str {
        &self.op
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.errno {
            libc_errno::EALREADY => "a recording is already open (one per process; drop the other Recorder first)".to_string(),
            libc_errno::EBADF => "no recording is open".to_string(),
            libc_errno::E2BIG => "an option this library does not know was set (a newer header than the library)".to_string(),
            e => io::Error::from_raw_os_error(e).to_string(),
        };
        write!(f, "waterfall: cannot {}: {}", self.op, why)
    }
}

impl std::error::Error for Error {}

impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        io::Error::new(io::Error::from_raw_os_error(e.errno).kind(), e)
    }
}

/// The few errnos the messages name (Linux values; the library is Linux-only).
pub(crate) mod libc_errno {
    pub const EBADF: i32 = 9;
    pub const EINVAL: i32 = 22;
    pub const E2BIG: i32 = 7;
    pub const EALREADY: i32 = 114;
}
