//! Typed scheduler options: each registry row declares its keys with a type, a default and a
//! line of help; `key=value` text is parsed once into [`Options`], and an unknown key or a bad
//! value is refused naming the scheduler, the key, the value and what is expected.

use std::fmt;

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("unknown scheduler `{name}`{for_kind}; available: {available}")]
    Unknown {
        name: String,
        /// ` for single-job workloads`, empty when no kind was asked.
        for_kind: String,
        available: String,
    },
    #[error("scheduler `{policy}`: option `{key}={value}`: expected {expected}")]
    Option {
        policy: String,
        key: String,
        value: String,
        expected: String,
    },
    #[error("trained agent `{spec}`: {message}")]
    Trained { spec: String, message: String },
    #[error("scheduler `raes`: {0}")]
    Predictor(String),
}

/// What values an option takes.
#[derive(Debug, Clone, Copy)]
pub enum OptionType {
    /// One of these words; parsed to its index.
    Choice(&'static [&'static str]),
    Bool,
    /// A number above zero.
    Positive,
    /// Zero or a number above it.
    NonNegative,
    /// A number in `[0, 1]`.
    Share,
    /// A whole number above zero.
    Count,
    /// Any text, such as a folder.
    Text,
}

impl fmt::Display for OptionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionType::Choice(words) => write!(f, "{}", words.join("|")),
            OptionType::Bool => write!(f, "true|false"),
            OptionType::Positive => write!(f, "a number > 0"),
            OptionType::NonNegative => write!(f, "a number >= 0"),
            OptionType::Share => write!(f, "a number in [0, 1]"),
            OptionType::Count => write!(f, "a whole number > 0"),
            OptionType::Text => write!(f, "text"),
        }
    }
}

/// One option a scheduler takes.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    pub key: &'static str,
    pub kind: OptionType,
    /// The value when not given (empty for a `Text` option that is unset by default).
    pub default: &'static str,
    pub help: &'static str,
}

/// A parsed option value.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionValue {
    Choice(usize),
    Bool(bool),
    Number(f64),
    Count(u64),
    Text(String),
}

/// A scheduler's options, every declared key present (defaults filled in).
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    values: Vec<(&'static str, OptionValue)>,
}

impl Options {
    /// The declared defaults with `pairs` applied in order.
    pub fn parse(
        scheduler: &str,
        specs: &[OptionSpec],
        pairs: &[(String, String)],
    ) -> Result<Self, PolicyError> {
        let mut values: Vec<(&'static str, OptionValue)> = specs
            .iter()
            .map(|spec| {
                let value = parse_value(scheduler, spec, spec.default)
                    .expect("a scheduler's declared default parses");
                (spec.key, value)
            })
            .collect();
        for (key, raw) in pairs {
            let Some(k) = specs.iter().position(|s| s.key == key) else {
                return Err(PolicyError::Option {
                    policy: scheduler.to_owned(),
                    key: key.clone(),
                    value: raw.clone(),
                    expected: if specs.is_empty() {
                        "no options: this scheduler takes none".into()
                    } else {
                        format!(
                            "one of the keys {}",
                            specs.iter().map(|s| s.key).collect::<Vec<_>>().join(", ")
                        )
                    },
                });
            };
            values[k].1 = parse_value(scheduler, &specs[k], raw)?;
        }
        Ok(Options { values })
    }

    fn get(&self, key: &str) -> &OptionValue {
        &self
            .values
            .iter()
            .find(|(k, _)| *k == key)
            .unwrap_or_else(|| panic!("option `{key}` is not declared by this scheduler"))
            .1
    }

    /// The index of a `Choice` option's word.
    pub fn choice(&self, key: &str) -> usize {
        match self.get(key) {
            OptionValue::Choice(i) => *i,
            other => panic!("option `{key}` is {other:?}, not a choice"),
        }
    }
    pub fn flag(&self, key: &str) -> bool {
        match self.get(key) {
            OptionValue::Bool(b) => *b,
            other => panic!("option `{key}` is {other:?}, not a flag"),
        }
    }
    pub fn number(&self, key: &str) -> f64 {
        match self.get(key) {
            OptionValue::Number(x) => *x,
            other => panic!("option `{key}` is {other:?}, not a number"),
        }
    }
    pub fn count(&self, key: &str) -> u64 {
        match self.get(key) {
            OptionValue::Count(n) => *n,
            other => panic!("option `{key}` is {other:?}, not a count"),
        }
    }
    /// A `Text` option; `None` when unset.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            OptionValue::Text(t) if t.is_empty() => None,
            OptionValue::Text(t) => Some(t),
            other => panic!("option `{key}` is {other:?}, not text"),
        }
    }
}

fn parse_value(scheduler: &str, spec: &OptionSpec, raw: &str) -> Result<OptionValue, PolicyError> {
    let bad = || PolicyError::Option {
        policy: scheduler.to_owned(),
        key: spec.key.to_owned(),
        value: raw.to_owned(),
        expected: spec.kind.to_string(),
    };
    match spec.kind {
        OptionType::Choice(words) => words
            .iter()
            .position(|w| *w == raw)
            .map(OptionValue::Choice)
            .ok_or_else(bad),
        OptionType::Bool => raw.parse().map(OptionValue::Bool).map_err(|_| bad()),
        OptionType::Positive => raw
            .parse::<f64>()
            .ok()
            .filter(|x| *x > 0.0 && x.is_finite())
            .map(OptionValue::Number)
            .ok_or_else(bad),
        OptionType::NonNegative => raw
            .parse::<f64>()
            .ok()
            .filter(|x| *x >= 0.0 && x.is_finite())
            .map(OptionValue::Number)
            .ok_or_else(bad),
        OptionType::Share => raw
            .parse::<f64>()
            .ok()
            .filter(|x| (0.0..=1.0).contains(x))
            .map(OptionValue::Number)
            .ok_or_else(bad),
        OptionType::Count => raw
            .parse::<u64>()
            .ok()
            .filter(|n| *n > 0)
            .map(OptionValue::Count)
            .ok_or_else(bad),
        OptionType::Text => Ok(OptionValue::Text(raw.to_owned())),
    }
}

/// `key=value` pairs for a scheduler, applied in order.
pub type OptionPairs = Vec<(String, String)>;

/// Splits `name:key=value:key=value` into the name and its options; a `:` with nothing after
/// it is refused rather than read as no options.
pub fn parse_spec(spec: &str) -> Result<(&str, OptionPairs), PolicyError> {
    match spec.split_once(':') {
        None => Ok((spec, Vec::new())),
        Some((name, "")) => Err(PolicyError::Option {
            policy: name.to_owned(),
            key: String::new(),
            value: String::new(),
            expected: format!("KEY=VALUE after `{name}:`"),
        }),
        Some((name, inline)) => Ok((name, parse_inline(name, inline)?)),
    }
}

/// The `KEY=VALUE` pairs of `inline`, the text after a policy's name and its first `:`
/// (`samples=8:guide=heft`); empty text holds none.
pub fn parse_inline(policy: &str, inline: &str) -> Result<OptionPairs, PolicyError> {
    if inline.is_empty() {
        return Ok(Vec::new());
    }
    inline
        .split(':')
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .ok_or_else(|| PolicyError::Option {
                    policy: policy.to_owned(),
                    key: kv.to_owned(),
                    value: String::new(),
                    expected: "KEY=VALUE after the scheduler name".into(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: [OptionSpec; 3] = [
        OptionSpec {
            key: "placement",
            kind: OptionType::Choice(&["best-fit", "worst-fit"]),
            default: "best-fit",
            help: "",
        },
        OptionSpec {
            key: "backfill",
            kind: OptionType::Bool,
            default: "true",
            help: "",
        },
        OptionSpec {
            key: "interval_s",
            kind: OptionType::Positive,
            default: "300",
            help: "",
        },
    ];

    fn pairs(p: &[(&str, &str)]) -> OptionPairs {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_fill_in_and_pairs_apply_in_order() {
        let options = Options::parse(
            "toy",
            &SPECS,
            &pairs(&[
                ("placement", "worst-fit"),
                ("interval_s", "5"),
                ("interval_s", "60"),
            ]),
        )
        .unwrap();
        assert_eq!(options.choice("placement"), 1);
        assert!(options.flag("backfill"));
        assert_eq!(options.number("interval_s"), 60.0);
    }

    #[test]
    fn an_unknown_key_or_bad_value_names_scheduler_key_value_and_what_is_expected() {
        let err = Options::parse("toy", &SPECS, &pairs(&[("colour", "red")]))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "scheduler `toy`: option `colour=red`: expected one of the keys placement, backfill, interval_s"
        );
        let err = Options::parse("toy", &SPECS, &pairs(&[("interval_s", "-3")]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`interval_s=-3`: expected a number > 0"),
            "{err}"
        );
        let err = Options::parse("toy", &SPECS, &pairs(&[("placement", "first-fit")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected best-fit|worst-fit"), "{err}");
        let counts = [OptionSpec {
            key: "nodes",
            kind: OptionType::Count,
            default: "5",
            help: "",
        }];
        for bad in ["0", "2.5", "-1", "many"] {
            let err = Options::parse("toy", &counts, &pairs(&[("nodes", bad)]))
                .unwrap_err()
                .to_string();
            assert!(err.contains("expected a whole number > 0"), "{bad}: {err}");
        }
        let parsed = Options::parse("toy", &counts, &pairs(&[("nodes", "40")])).unwrap();
        assert_eq!(parsed.count("nodes"), 40);
        let err = Options::parse("none", &[], &pairs(&[("a", "1")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("takes none"), "{err}");
    }

    #[test]
    fn specs_split_into_name_and_pairs() {
        let (name, options) = parse_spec("raes:solver=heuristic:predictor=ewma").unwrap();
        assert_eq!(name, "raes");
        assert_eq!(
            options,
            pairs(&[("solver", "heuristic"), ("predictor", "ewma")])
        );
        assert!(parse_spec("raes:solver").is_err());
        assert!(parse_spec("raes:").is_err());
        assert!(parse_spec("raes:solver=heuristic:").is_err());
        assert_eq!(parse_spec("raes").unwrap(), ("raes", Vec::new()));
    }
}
