//! `generate_qr_code` keeps its buffers in thread locals; a call made while
//! a thread's locals are being destroyed (from another local's destructor)
//! finds them gone and must still answer, not panic: a panic there aborts
//! the process.

use std::cell::RefCell;
use std::sync::mpsc::{channel, Sender};
use std::thread;
use std::time::Duration;

const TEXT: &str = "https://example.com/a/b?c=1";

/// Generates a QR code when dropped, that is when its thread exits.
struct CallsOnDrop(Option<Sender<Vec<u8>>>);

impl Drop for CallsOnDrop {
    fn drop(&mut self) {
        if let Some(sender) = self.0.take() {
            let _ = sender.send(qr_lib::generate_qr_code(TEXT).unwrap());
        }
    }
}

thread_local! {
    static ON_EXIT: RefCell<CallsOnDrop> = const { RefCell::new(CallsOnDrop(None)) };
}

#[test]
fn a_call_from_a_destructor_at_thread_exit_answers() {
    let expected = qr_lib::generate_qr_code(TEXT).unwrap();
    let (sender, receiver) = channel();
    let on_the_thread = expected.clone();
    thread::spawn(move || {
        // Registered before the core's locals, so destroyed after them:
        // thread-local destructors run in the reverse order of registration.
        ON_EXIT.with(|on_exit| on_exit.borrow_mut().0 = Some(sender));
        assert_eq!(qr_lib::generate_qr_code(TEXT).unwrap(), on_the_thread);
    })
    .join()
    .unwrap();
    let from_the_destructor = receiver.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(from_the_destructor, expected);
}
