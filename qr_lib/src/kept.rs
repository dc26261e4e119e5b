//! Buffers kept per thread from call to call, with a fresh one wherever the
//! thread's is not there to take.

use std::cell::Cell;
use std::thread::LocalKey;

/// Runs `f` on the value `key` keeps for this thread, then keeps it for the
/// next call. A call finds none to take when it re-enters (the outer call
/// holds it) or runs after `key` was destroyed (from another local's
/// destructor as the thread exits): it gets a fresh value, dropped at its
/// end. A panic in `f` drops the value; the next call starts a fresh one.
pub(crate) fn with_kept<T: Default, R>(
    key: &'static LocalKey<Cell<T>>,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    let mut value = key.try_with(Cell::take).unwrap_or_default();
    let result = f(&mut value);
    let _ = key.try_with(|kept| kept.set(value));
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::sync::mpsc::{channel, Sender};
    use std::thread;
    use std::time::Duration;

    thread_local! {
        static KEPT: Cell<Vec<u8>> = Cell::default();
        static DROPS_LAST: RefCell<PushOnDrop> = const { RefCell::new(PushOnDrop(None)) };
    }

    /// Appends a byte to the kept buffer and returns its length.
    fn push() -> usize {
        with_kept(&KEPT, |kept| {
            kept.push(1);
            kept.len()
        })
    }

    /// At its thread's exit, sends whether `KEPT` was gone and what `push` gave.
    struct PushOnDrop(Option<Sender<(bool, usize)>>);

    impl Drop for PushOnDrop {
        fn drop(&mut self) {
            if let Some(sender) = self.0.take() {
                let gone = KEPT.try_with(|_| ()).is_err();
                let _ = sender.send((gone, push()));
            }
        }
    }

    #[test]
    fn keeps_the_value_from_call_to_call() {
        // Counted from the first call: a test runner may run another test
        // on this thread before it.
        let first = push();
        assert_eq!((push(), push()), (first + 1, first + 2));
    }

    #[test]
    fn a_reentered_call_gets_a_fresh_value() {
        let (outer, inner) = with_kept(&KEPT, |outer| {
            outer.push(1);
            (outer.len(), push())
        });
        assert_eq!(inner, 1);
        // The outer call's value is the one kept.
        assert_eq!(push(), outer + 1);
    }

    #[test]
    fn a_call_after_the_key_was_destroyed_gets_a_fresh_value() {
        let (sender, receiver) = channel();
        thread::spawn(move || {
            // Registered before KEPT, so destroyed after it: thread-local
            // destructors run in the reverse order of registration.
            DROPS_LAST.with(|on_exit| on_exit.borrow_mut().0 = Some(sender));
            assert_eq!((push(), push()), (1, 2));
        })
        .join()
        .unwrap();
        let (gone, len) = receiver.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(
            gone,
            "KEPT was destroyed before the destructor that called push"
        );
        assert_eq!(len, 1);
    }
}
