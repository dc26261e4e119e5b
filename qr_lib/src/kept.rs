//! Buffers kept per thread from call to call, with a fresh one wherever the
//! thread's is not there to take.

use std::cell::Cell;
use std::thread::LocalKey;

/// Runs `f` on the value `key` keeps for this thread, then keeps it for the
/// next call. A call finds none to take when it re-enters (the outer call
/// holds it) or runs while the thread's locals are being destroyed (from
/// another local's destructor): it gets a fresh value, dropped at its end.
/// A panic in `f` drops the value; the next call starts a fresh one.
pub(crate) fn with_kept<T: Default, R>(
    key: &'static LocalKey<Cell<T>>,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    let mut value = key.try_with(Cell::take).unwrap_or_default();
    let result = f(&mut value);
    let _ = key.try_with(|kept| kept.set(value));
    result
}
