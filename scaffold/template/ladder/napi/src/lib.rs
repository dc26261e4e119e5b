//! Node-API binding of ladder_example_core, in the @node-rs style:
//! `ladderExampleSync` runs on the calling thread, `ladderExample` is an
//! `AsyncTask` on libuv's thread pool. The core owns every rule; this crate
//! only converts. This file holds the names; `call.rs` and `task.rs` are the
//! binding, the same files for every ladder (the QR ladder's addon compiles
//! them too).

mod call;
mod task;

use napi::bindgen_prelude::*;
use napi_derive::napi;
// The core's function and error type: all that `call.rs` takes from the core.
use ladder_example_core::{ladder_example as core_function, Error as CoreError};

use task::CoreTask;

// `ladderExampleSync(input)` and `ladderExample(input, signal?)`.
call::export!(
    ladder_example_sync,
    ladder_example,
    input,
    "The core's output for `input`."
);
