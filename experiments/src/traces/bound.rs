//! The ends of an import's `--from/--to` window: seconds on a trace's clock, or wall-clock
//! date-times for traces that have one.

use super::date_time::{date_time, epoch_seconds};

/// One end of the `--from/--to` window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// Seconds on the trace's own clock.
    Seconds(f64),
    /// A wall-clock date-time (seconds since 1970), for traces that have one (Philly).
    Epoch(i64),
}

impl Bound {
    /// A number of seconds, or a `YYYY-MM-DD[ HH:MM:SS]` date-time.
    pub fn parse(text: &str) -> anyhow::Result<Bound> {
        if let Ok(v) = text.trim().parse::<f64>() {
            return Ok(Bound::Seconds(v));
        }
        epoch_seconds(text).map(Bound::Epoch).ok_or_else(|| {
            anyhow::anyhow!("{text:?}: expected seconds or a date-time YYYY-MM-DD[ HH:MM:SS]")
        })
    }

    /// This bound moved on by `seconds` (whole seconds on a wall clock).
    pub fn plus_s(self, seconds: f64) -> Bound {
        match self {
            Bound::Seconds(s) => Bound::Seconds(s + seconds),
            Bound::Epoch(e) => Bound::Epoch(e + seconds.round() as i64),
        }
    }
}

/// As `--from`/`--to` take it back.
impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::Seconds(s) => write!(f, "{s}"),
            Bound::Epoch(e) => write!(f, "{}", date_time(*e)),
        }
    }
}
