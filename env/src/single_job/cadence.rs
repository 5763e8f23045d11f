//! How often the training job's validation loss is checked: every so many server updates, or
//! at the first update after every multiple of so many virtual seconds. The second gives every
//! scheduler the same time resolution on `completion_time_s` and bounds what validation costs
//! per simulated second, however many updates the allocation makes.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Written `eval_every = 25` (server updates) or `eval_every = "10s"` (virtual seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValidationCadence {
    Updates(u64),
    VirtualSeconds(f64),
}

impl Default for ValidationCadence {
    fn default() -> Self {
        ValidationCadence::Updates(20)
    }
}

impl ValidationCadence {
    /// Whether an update that brings the server to `version` at virtual time `now` is checked,
    /// the last check having been at `checked_version`, `checked_at`.
    pub fn is_due(self, version: u64, now: f64, checked_version: u64, checked_at: f64) -> bool {
        match self {
            ValidationCadence::Updates(n) => version >= checked_version + n,
            ValidationCadence::VirtualSeconds(s) => {
                version > checked_version && (now / s).floor() > (checked_at / s).floor()
            }
        }
    }

    /// `Some(reason)` when the cadence cannot be used.
    pub fn problem(self) -> Option<String> {
        match self {
            ValidationCadence::Updates(0) => Some("must be at least 1 update".into()),
            ValidationCadence::VirtualSeconds(s) if !(s.is_finite() && s > 0.0) => {
                Some(format!("must be a positive number of seconds, got {s}"))
            }
            _ => None,
        }
    }
}

impl Serialize for ValidationCadence {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ValidationCadence::Updates(n) => serializer.serialize_u64(*n),
            ValidationCadence::VirtualSeconds(s) => serializer.serialize_str(&format!("{s}s")),
        }
    }
}

impl<'de> Deserialize<'de> for ValidationCadence {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CadenceVisitor;
        impl Visitor<'_> for CadenceVisitor {
            type Value = ValidationCadence;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number of server updates (25) or of virtual seconds (\"10s\")")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
                Ok(ValidationCadence::Updates(n))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
                u64::try_from(n)
                    .map(ValidationCadence::Updates)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(n), &self))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                text.trim()
                    .strip_suffix('s')
                    .and_then(|s| s.trim().parse::<f64>().ok())
                    .map(ValidationCadence::VirtualSeconds)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(text), &self))
            }
        }
        deserializer.deserialize_any(CadenceVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, Serialize, PartialEq)]
    struct Holder {
        eval_every: ValidationCadence,
    }

    #[test]
    fn reads_updates_or_seconds_and_writes_them_back() {
        for (text, cadence) in [
            ("eval_every = 25", ValidationCadence::Updates(25)),
            (
                "eval_every = \"10s\"",
                ValidationCadence::VirtualSeconds(10.0),
            ),
            (
                "eval_every = \"2.5s\"",
                ValidationCadence::VirtualSeconds(2.5),
            ),
        ] {
            let holder: Holder = toml::from_str(text).unwrap();
            assert_eq!(holder.eval_every, cadence, "{text}");
            let again: Holder = toml::from_str(&toml::to_string(&holder).unwrap()).unwrap();
            assert_eq!(again, holder);
        }
        for text in [
            "eval_every = \"10\"",
            "eval_every = \"ten s\"",
            "eval_every = -3",
        ] {
            let err = toml::from_str::<Holder>(text).unwrap_err().to_string();
            assert!(err.contains("virtual seconds"), "{text}: {err}");
        }
    }

    #[test]
    fn seconds_check_the_first_update_of_every_interval() {
        let cadence = ValidationCadence::VirtualSeconds(10.0);
        // last check at 3 s: updates at 9.9 s are not due, the first at or after 10 s is
        assert!(!cadence.is_due(5, 9.9, 4, 3.0));
        assert!(cadence.is_due(6, 10.0, 4, 3.0));
        // an interval with no update is skipped, not made up later
        assert!(cadence.is_due(7, 35.0, 6, 10.0));
        assert!(!cadence.is_due(8, 39.0, 7, 35.0));
        // no new parameters, nothing to check
        assert!(!cadence.is_due(7, 50.0, 7, 35.0));
        let updates = ValidationCadence::Updates(3);
        assert!(!updates.is_due(6, 0.0, 4, 0.0));
        assert!(updates.is_due(7, 0.0, 4, 0.0));
    }

    #[test]
    fn impossible_cadences_are_named() {
        assert!(ValidationCadence::Updates(0).problem().is_some());
        assert!(ValidationCadence::VirtualSeconds(0.0).problem().is_some());
        assert!(
            ValidationCadence::VirtualSeconds(f64::NAN)
                .problem()
                .is_some()
        );
        assert!(ValidationCadence::VirtualSeconds(0.5).problem().is_none());
    }
}
