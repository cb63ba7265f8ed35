//! Snapshot tests of which comment documents which key, two ways.
//!
//! 1. insta, in the crate's own tests: the whole `tether map` text of every
//!    template (every key with its line and column, every comment), reviewed with
//!    `cargo insta review`. Any line that moves shows up.
//! 2. `tether snapshot`, from the library here or the command line anywhere: only
//!    which comment documents which key, no line numbers, kept beside `tether.toml`.
//!    Inserting lines or uncommented keys passes; a comment that moves fails.

/// The chart, relative to this crate (tests run in its folder), so the paths in the
/// snapshots are the same on every machine.
const CHART: &str = "tests/fixtures/monorepo/packages/system/kubevirt";

#[test]
fn every_template_has_an_insta_comment_map() -> Result<(), helm_tether::Error> {
    let config = helm_tether::Config::discover(CHART)?;
    let covered = helm_tether::comment_maps(&config, &[CHART])?;
    assert!(covered.errors.is_empty(), "{:?}", covered.errors);
    let mut templates = 0;
    for (path, map) in covered.maps {
        let relative = path.strip_prefix(CHART).expect("under the chart");
        if !relative.starts_with("templates") {
            continue;
        }
        let map = map?;
        let name = relative.to_string_lossy().replace(['/', '\\'], "__");
        insta::assert_snapshot!(name, map.to_string());
        templates += 1;
    }
    assert!(templates > 0, "no template in {CHART}");
    Ok(())
}

#[test]
fn the_chart_snapshots_are_current() -> Result<(), helm_tether::Error> {
    let config = helm_tether::Config::discover(CHART)?;
    let report = helm_tether::snapshot::check(&config, &Default::default())?;
    assert!(
        report.passed(),
        "{}",
        report.render(&helm_tether::Format::Human { color: false })
    );
    Ok(())
}
