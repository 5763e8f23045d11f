//! `--device`: where learned agents' networks train and act. Chosen once per process, like
//! the thread count; the simulated training job is not affected (it always runs on flex).

use std::sync::OnceLock;

use burn::tensor::Device;

static CHOSEN: OnceLock<Device> = OnceLock::new();

pub const NAMES: &str = "flex, ndarray, libtorch, libtorch-cuda[:N]";

/// Parses a device name: `flex` (default, pure Rust), `ndarray`, or with the `tch` cargo
/// feature `libtorch` (CPU) and `libtorch-cuda[:N]`.
pub fn parse(name: &str) -> anyhow::Result<Device> {
    match name {
        "flex" => Ok(Device::flex()),
        #[allow(deprecated)] // burn marks ndarray deprecated in favour of flex; still offered
        "ndarray" => Ok(Device::ndarray()),
        "libtorch" => libtorch(None),
        _ => match name.strip_prefix("libtorch-cuda") {
            Some("") => libtorch(Some(0)),
            Some(index) => {
                let index = index
                    .strip_prefix(':')
                    .and_then(|i| i.parse::<usize>().ok())
                    .ok_or_else(|| anyhow::anyhow!("device `{name}`: expected libtorch-cuda:N"))?;
                libtorch(Some(index))
            }
            None => anyhow::bail!("unknown device `{name}`; available: {NAMES}"),
        },
    }
}

#[cfg(feature = "tch")]
#[allow(deprecated)] // burn marks burn-tch deprecated; it is the libtorch route the workbench offers
fn libtorch(cuda: Option<usize>) -> anyhow::Result<Device> {
    Ok(match cuda {
        None => Device::libtorch(),
        Some(index) => Device::libtorch_cuda(index),
    })
}

#[cfg(not(feature = "tch"))]
fn libtorch(_cuda: Option<usize>) -> anyhow::Result<Device> {
    anyhow::bail!(
        "this schedlab was built without libtorch: rebuild with `--features tch` (docs/learned.md, \"libtorch\")"
    )
}

/// Sets the process's device; call once, before any network is built.
pub fn choose(device: Device) {
    CHOSEN
        .set(device)
        .expect("the device is chosen once, at start-up");
}

/// The chosen device (flex if none was), with autodiff on for training.
pub fn agents() -> Device {
    CHOSEN
        .get()
        .cloned()
        .unwrap_or_else(Device::flex)
        .autodiff()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_or_unbuilt_devices_are_refused_clearly() {
        assert!(parse("flex").is_ok());
        assert!(parse("ndarray").is_ok());
        let err = parse("gpu").unwrap_err().to_string();
        assert!(
            err.contains("unknown device `gpu`") && err.contains("flex"),
            "{err}"
        );
        let err = parse("libtorch-cuda:x").unwrap_err().to_string();
        assert!(
            err.contains("libtorch-cuda:N") || err.contains("--features tch"),
            "{err}"
        );
        if cfg!(not(feature = "tch")) {
            let err = parse("libtorch").unwrap_err().to_string();
            assert!(err.contains("--features tch"), "{err}");
        }
    }
}
