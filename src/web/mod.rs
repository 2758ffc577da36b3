//! wasm-bindgen glue for the page's worker: being written in the foundation issue.
