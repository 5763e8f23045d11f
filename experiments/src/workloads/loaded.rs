//! A workload file of any kind, loaded: [`Loaded`] and [`load_file`], made from env's table of kinds
//! (`schedlab_env::kinds`), and [`with_kind!`], which picks the kind through env's
//! `each_kind!` so that commands are written once, generic over [`Kind`].

use std::path::Path;

use schedlab_env::EnvKind;
use schedlab_env::kinds::AnyWorkload;
use schedlab_env::workload_file::WorkloadFile;

use super::kind::{Kind, KindRow};

/// A kind's adapter found in a [`Loaded`].
pub trait OfLoaded: Sized {
    /// `loaded` when it is of this kind.
    fn of(loaded: &Loaded) -> Option<&Self>;
}

/// From env's table of kinds (`schedlab_env::kinds_table!`): [`Loaded`], one variant per
/// kind holding this crate's adapter of the kind's name, in the kind's module (built from the
/// kind's loaded workload and its path), each adapter's [`KindRow`] and [`OfLoaded`], and
/// [`load`].
macro_rules! loaded_kinds {
    ([] $(($kind:ident, $module:ident, $name:literal, $doc:literal, $workload:ty, $env:ty, $context:ident)),+) => {
        /// A workload file, loaded.
        pub enum Loaded {
            $(#[doc = $doc] $kind(super::$module::$kind),)+
        }

        $(impl KindRow for super::$module::$kind {
            type Env = $env;
            const ENV_KIND: EnvKind = EnvKind::$kind;

        }

        impl OfLoaded for super::$module::$kind {
            fn of(loaded: &Loaded) -> Option<&Self> {
                match loaded {
                    Loaded::$kind(w) => Some(w),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        })+

        /// Loads a workload file of any kind, read once ([`WorkloadFile`]); `overrides`
        /// (dotted `section.key=value`) change the workload where its kind allows.
        pub fn load_file(file: &WorkloadFile, overrides: &[(String, String)]) -> anyhow::Result<Loaded> {
            let path = file.path.as_path();
            Ok(match AnyWorkload::load_file(file, overrides)? {
                $(AnyWorkload::$kind(w) => Loaded::$kind(super::$module::$kind::from((w, path))),)+
            })
        }
    };
}

schedlab_env::kinds_table!(callback loaded_kinds []);

/// Runs `$body` with `$k` bound to the loaded workload of whatever kind `$loaded` is.
#[macro_export]
macro_rules! with_kind {
    ($loaded:expr, |$k:ident| $body:expr) => {
        schedlab_env::each_kind!($crate::workloads::Loaded, $loaded, $k => $body)
    };
}

/// Reads the workload file at `path` and loads it ([`load_file`]).
pub fn load(path: &Path, overrides: &[(String, String)]) -> anyhow::Result<Loaded> {
    load_file(&WorkloadFile::read(path)?, overrides)
}

/// The kind of env a workload file is for (its `kind` field; none is a single-job workload).
pub fn kind_of_file(path: &Path) -> anyhow::Result<EnvKind> {
    Ok(EnvKind::of_file(path)?)
}

/// The kind a workload file already read declares ([`kind_of_file`]).
pub fn declared_kind(file: &WorkloadFile) -> anyhow::Result<EnvKind> {
    Ok(EnvKind::of(file)?)
}

impl Loaded {
    pub fn env_kind(&self) -> EnvKind {
        with_kind!(self, |k| kind_of(k))
    }

    pub fn name(&self) -> &str {
        with_kind!(self, |k| k.name())
    }

    /// The settings a policy trained here must be played with elsewhere ([`Kind::play_settings`]).
    pub fn play_settings(&self) -> Vec<(String, String)> {
        with_kind!(self, |k| k.play_settings())
    }

    /// Whether its episodes run on real processes ([`Kind::executes_for_real`]).
    pub fn executes_for_real(&self) -> bool {
        with_kind!(self, |k| k.executes_for_real())
    }

    /// The workload as kind `K`, for commands that only make sense on one (`bench env`,
    /// `plot jct-cdf`, ...); `what` names the command.
    pub fn expect<K: Kind + OfLoaded>(&self, what: &str, path: &Path) -> anyhow::Result<&K> {
        K::of(self).ok_or_else(|| {
            anyhow::anyhow!(
                "{what} needs a {} workload; {} is a {} workload",
                K::ENV_KIND.name(),
                path.display(),
                self.env_kind().name()
            )
        })
    }
}

fn kind_of<K: KindRow>(_: &K) -> EnvKind {
    K::ENV_KIND
}
