pub mod bench;
pub mod bench_solvers;
pub mod compare;
pub mod eval;
pub mod evaluate;
pub mod predictors;
pub mod quickstart;
pub mod run;
pub mod train;
pub mod validate;

/// Parses `KEY=VALUE` overrides.
pub fn parse_overrides(raw: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    raw.iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .ok_or_else(|| anyhow::anyhow!("`--set {kv}`: expected KEY=VALUE"))
        })
        .collect()
}
