//! Jobs-cluster policies by name: `name[:key=value...]` as for the single-job policies.

use schedlab_env::jobs::JobsEnv;

use super::ordering::{Order, OrderingPolicy};
use super::periodic::OptimusPolicy;
use super::pollux::PolluxPolicy;
use super::raes::JobsRaesPolicy;
use super::view::JobsContext;
use crate::registry::{PolicyError, parse_spec};
use crate::{Policy, RandomPolicy};

/// The names [`by_name`] accepts.
pub fn names() -> Vec<&'static str> {
    vec![
        "fifo", "sjf", "las", "static", "periodic", "pollux", "raes", "random",
    ]
}

/// Options: `placement=best-fit|worst-fit` (all but random), `backfill=true|false` (fifo,
/// sjf, las; default false for fifo, true for the others), `interval_s=S` (periodic, 300).
pub fn accepted_options(name: &str) -> &'static [&'static str] {
    match name {
        "fifo" | "sjf" | "las" => &["placement", "backfill"],
        "periodic" => &["placement", "interval_s"],
        "static" | "pollux" | "raes" => &["placement"],
        _ => &[],
    }
}

pub fn by_name(spec: &str, env: &JobsEnv) -> Result<Box<dyn Policy>, PolicyError> {
    let (name, options) = parse_spec(spec)?;
    if !names().contains(&name) {
        return Err(PolicyError::UnknownForJobs {
            name: name.to_owned(),
        });
    }
    let bad = |key: &str, value: &str, expected: &str| PolicyError::Option {
        policy: name.to_owned(),
        key: key.to_owned(),
        value: value.to_owned(),
        expected: expected.to_owned(),
    };
    let mut placement = 0;
    let mut backfill = name != "fifo";
    let mut interval_s = 300.0;
    for (key, value) in &options {
        if !accepted_options(name).contains(&key.as_str()) {
            return Err(bad(
                key,
                value,
                &format!("one of: {}", accepted_options(name).join(", ")),
            ));
        }
        match key.as_str() {
            "placement" => {
                placement = match value.as_str() {
                    "best-fit" => 0,
                    "worst-fit" => 1,
                    _ => return Err(bad(key, value, "best-fit or worst-fit")),
                }
            }
            "backfill" => {
                backfill = value
                    .parse()
                    .map_err(|_| bad(key, value, "true or false"))?
            }
            _ => {
                interval_s = value
                    .parse()
                    .ok()
                    .filter(|v: &f64| *v > 0.0)
                    .ok_or_else(|| bad(key, value, "a positive number of seconds"))?
            }
        }
    }
    let ctx = JobsContext::of(env);
    let ordering = |order| OrderingPolicy::new(spec, ctx.clone(), order, placement, backfill);
    Ok(match name {
        "fifo" => Box::new(ordering(Order::Fifo)),
        "sjf" => Box::new(ordering(Order::Sjf)),
        "las" => Box::new(ordering(Order::Las)),
        "static" => Box::new(OrderingPolicy::new(spec, ctx, Order::Fifo, placement, true)),
        "periodic" => Box::new(OptimusPolicy::new(ctx, interval_s, placement)),
        "pollux" => Box::new(PolluxPolicy::new(ctx, placement)),
        "raes" => Box::new(JobsRaesPolicy::new(ctx, placement)),
        _ => Box::new(RandomPolicy::new(JobsContext::generic(env))),
    })
}
