//! Writes issue 8's sparse 4.5 GiB Unity pair (`big.assets` + `big.resS`, the texture past
//! 4 GiB) into a folder: `cargo run --example sparse_fixture -- DIR`. The browser test
//! tests/browser/ranges.test.mjs drops them into the page; tests/cli.rs builds the same files
//! with the same function (tests/unity_fixtures). Prints what the test needs as one JSON line:
//! {"assets_len", "mip_bytes", "side", "offset"}.

#[path = "../tests/unity_fixtures/mod.rs"]
mod unity_fixtures;

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: sparse_fixture DIR");
        std::process::exit(2);
    };
    let dir = std::path::PathBuf::from(dir);
    let made = std::fs::create_dir_all(&dir).and_then(|_| unity_fixtures::sparse_unity(&dir));
    match made {
        Ok((pixels, assets_len)) => println!(
            "{{\"assets_len\": {assets_len}, \"mip_bytes\": {}, \"side\": {}, \"offset\": {}}}",
            pixels.len(),
            unity_fixtures::SPARSE_SIDE,
            unity_fixtures::SPARSE_OFFSET
        ),
        Err(e) => {
            eprintln!("sparse_fixture: {}: {e}", dir.display());
            std::process::exit(1);
        }
    }
}
